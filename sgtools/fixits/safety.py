"""Fix safety: whether a rule's fix keeps the program's behaviour wherever the rule matches.

Verification (fixits/verify.py) proves that the fixed text parses and that the rule stops firing; it cannot see
that the program now does something else. So safety is data the rule declares, kept apart from verification:

- `safe`: the fix keeps behaviour wherever the rule matches (a rename to an alias, a simpler spelling).
- `unsafe`: the fix may change behaviour (drops or reorders arguments, changes a type, an exception, evaluation
  order, or is the intended behaviour change of a security fix). Applied only when the caller asks.

A rule declares it as `metadata.fixSafety`. A rule imported from a community source that declares nothing is
`unsafe` (nobody here has judged it); a project's own rule that declares nothing is `safe`, since its author
wrote the fix for this code base. A suppress fix-it only adds a comment, so it is always `safe`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from sgtools.fixits.types import Fixit

Safety = Literal["safe", "unsafe"]
SAFE: Final = "safe"
UNSAFE: Final = "unsafe"
SAFETIES: Final = (SAFE, UNSAFE)
META_KEY: Final = "fixSafety"
# Written by `import_community_rule` into the imported rule's metadata: marks a rule nobody here wrote.
IMPORTED_MARK: Final = "communityId"


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
    """The class of a rule's fix: declared, else `unsafe` for an imported rule and `safe` for the project's own.
    An unknown rule (None) is `unsafe`; a value that is declared but not valid counts as `unsafe` too."""
    if data is None:
        return UNSAFE
    value = declared(data)
    if value is not None:
        return value
    meta = data.get("metadata")
    if isinstance(meta, Mapping) and (IMPORTED_MARK in meta or META_KEY in meta):
        return UNSAFE
    return SAFE


def mark(fixits: Sequence[Fixit], data: Mapping[str, Any] | None) -> None:
    """Set `safety` on each fix-it of one diagnostic: the rule's class for its `fix`, `safe` for a suppression."""
    for fx in fixits:
        fx["safety"] = rule_fix_safety(data) if fx.get("kind") == "fix" else SAFE


def for_import(data: Mapping[str, Any]) -> dict[str, Any]:
    """Metadata to add to a community rule on import: `fixSafety: unsafe` when it has a fix and declares none,
    so the class is visible in the project's copy and not only implied by its provenance."""
    if "fix" in data and declared(data) is None:
        return {META_KEY: UNSAFE}
    return {}
