"""Fix safety: whether a rule's fix keeps the program's behaviour wherever the rule matches.

Verification (fixits/verify.py) proves that the fixed text parses and that the rule stops firing; it cannot see
that the program now does something else. So safety is data the rule declares, kept apart from verification:

- `safe`: the fix keeps behaviour wherever the rule matches (a rename to an alias, a simpler spelling).
- `unsafe`: the fix may change behaviour (drops or reorders arguments, changes a type, an exception, evaluation
  order, or is the intended behaviour change of a security fix). Applied only when the caller asks.

A rule declares it as `metadata.fixSafety`. Safe means proven: a rule that declares nothing is `unsafe`, whoever
wrote it (a project's own rule, an imported one, a `suggest_rule` fix inferred from a few examples), until its
author marks it `safe` (docs/fixes.md says what proves it). A suppression is no fix-it and has no class: it is
never applied.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from sgtools.contracts.fixits import ConfidenceCap, Fixit

Safety = Literal["safe", "unsafe"]
SAFE: Final = "safe"
UNSAFE: Final = "unsafe"
SAFETIES: Final = (SAFE, UNSAFE)
META_KEY: Final = "fixSafety"
# Written by `import_community_rule` into the imported rule's metadata: marks a rule nobody here wrote.
IMPORTED_MARK: Final = "communityId"
# The verdicts of bin/fix_harness.py on bundled fixes applied to real code, read by eye (community_index/).
VERDICTS_FILE: Final = "fix_verdicts.tsv"
# The most an unsafe fix nobody has measured may claim: verification shows it parses, not that it is right.
UNMEASURED_UNSAFE_CAP: Final = 0.8
_Z: Final = 1.96  # 95% two-sided


def declared(data: Mapping[str, Any]) -> Safety | None:
    """The rule document's own `metadata.fixSafety`, or None when it declares none (or no valid one)."""
    meta = data.get("metadata")
    value = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    if isinstance(value, str) and value.strip().lower() in SAFETIES:
        return SAFE if value.strip().lower() == SAFE else UNSAFE
    return None


def problem(data: Mapping[str, Any]) -> str | None:
    """Why the rule's `metadata.fixSafety` is not usable, or None (absent is fine)."""
    meta = data.get("metadata")
    if not isinstance(meta, Mapping) or META_KEY not in meta or declared(data) is not None:
        return None
    return f"metadata.{META_KEY} is {meta[META_KEY]!r}; it must be `safe` or `unsafe` (it counts as `unsafe`)"


def rule_fix_safety(data: Mapping[str, Any] | None) -> Safety:
    """The class of a rule's fix: `safe` only when the rule declares it; undeclared, an unknown rule (None) and a
    declared value that is not valid are all `unsafe`."""
    return (declared(data) if data is not None else None) or UNSAFE


def mark(fixits: Sequence[Fixit], data: Mapping[str, Any] | None) -> None:
    """Set `safety` on each fix-it of one diagnostic (the rule's class), and `confidenceCap` on one whose kind
    was measured or is unsafe: verification never raises the confidence above it (fixits/judge.py)."""
    for fx in fixits:
        fx["safety"] = rule_fix_safety(data)
        cap = confidence_cap(data, fx["safety"])
        if cap is not None:
            fx["confidenceCap"] = cap
            fx["confidence"] = min(float(fx.get("confidence", 1.0)), cap["value"])


def lower_bound(right: int, judged: int) -> float:
    """The Wilson score interval's lower end (95%) for `right` of `judged`: what the share right is at least,
    so that a handful of lucky verdicts cannot claim 0.99."""
    if judged <= 0:
        return 0.0
    p = right / judged
    z2 = _Z * _Z
    centre = p + z2 / (2 * judged)
    spread = _Z * math.sqrt(p * (1 - p) / judged + z2 / (4 * judged * judged))
    return max(0.0, (centre - spread) / (1 + z2 / judged))


def confidence_cap(data: Mapping[str, Any] | None, fix_safety: str) -> ConfidenceCap | None:
    """`{value, judged, right, basis}` for a bundled (or imported bundled) rule whose fixes were judged; the
    unmeasured cap for any other unsafe fix; None for a project's own safe fix (nothing to say)."""
    meta = data.get("metadata") if data is not None else None
    rule_id = (meta.get(IMPORTED_MARK) if isinstance(meta, Mapping) else None) or (data or {}).get("id")
    counts = bundled_verdicts().get(str(rule_id)) if rule_id else None
    if counts is not None:
        judged, right = counts
        return {"value": round(lower_bound(right, judged), 2), "judged": judged, "right": right,
                "basis": f"{right} of {judged} judged fixes of this rule on real code were right "
                         "(95% lower bound)"}
    if fix_safety == UNSAFE:
        return {"value": UNMEASURED_UNSAFE_CAP, "judged": 0, "right": 0,
                "basis": "an unsafe fix never judged on real code"}
    return None


@functools.cache
def bundled_verdicts() -> dict[str, tuple[int, int]]:
    """{rule id: (judged, right)} from the bundled verdict file; empty when it is missing."""
    from sgtools.core.bundled import bundled_dir

    counts: dict[str, list[int]] = {}
    try:
        text = (bundled_dir() / VERDICTS_FILE).read_text(encoding="utf-8")
    except OSError:
        return {}
    for line in text.splitlines():
        fields = line.split("\t")
        if line.startswith("#") or len(fields) < 2 or fields[1] not in ("right", "wrong"):
            continue
        c = counts.setdefault(fields[0].split("|", 1)[0], [0, 0])
        c[0] += 1
        c[1] += fields[1] == "right"
    return {k: (v[0], v[1]) for k, v in counts.items()}


def for_import(data: Mapping[str, Any]) -> dict[str, Any]:
    """Metadata to add to a community rule on import: `fixSafety: unsafe` when it has a fix and declares none,
    so the class is visible in the project's copy and not only implied by its provenance."""
    if "fix" in data and declared(data) is None:
        return {META_KEY: UNSAFE}
    return {}
