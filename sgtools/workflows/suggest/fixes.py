"""A `fix` template inferred from before/after pairs, verified by applying it and scanning again.

The edit between `before` and `after` must lie inside the code the rule flags; the new text of that span becomes
the template, with the text each metavariable captured replaced by the metavariable (`$A`, `$$$ARGS`). The fix is
kept only if ast-grep, applying it to every `before`, produces exactly the `after`, which the rule no longer flags.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sgtools.contracts.suggest import FixPair
from sgtools.core.errors import SgToolsError
from sgtools.edit.text import apply_edits
from sgtools.engine.captures import captures
from sgtools.engine.process import Engine
from sgtools.workflows.suggest.candidates import Candidate
from sgtools.workflows.suggest.verify import run_rules


def _captures(match: Mapping[str, Any], before: bytes) -> list[tuple[str, str]]:
    """(text, `$NAME` or `$$$NAME`) for each captured metavariable, longest text first."""
    single, multi = captures(match)
    found: list[tuple[str, str]] = []
    for name, node in single.items():
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and node.get("text"):
            found.append((str(node["text"]), f"${name}"))
    for name, nodes in multi.items():
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and nodes:
            start = int(nodes[0]["range"]["byteOffset"]["start"])
            end = int(nodes[-1]["range"]["byteOffset"]["end"])
            found.append((before[start:end].decode("utf-8", "replace"), f"$$${name}"))
    return sorted((f for f in found if f[0].strip()), key=lambda f: -len(f[0]))


def _template(before: str, after: str, match: Mapping[str, Any]) -> str | None:
    b, a = before.encode("utf-8"), after.encode("utf-8")
    start = int(match["range"]["byteOffset"]["start"])
    end = int(match["range"]["byteOffset"]["end"])
    tail = len(b) - end
    if not (a.startswith(b[:start]) and a.endswith(b[end:]) and len(a) >= start + tail):
        return None  # the edit reaches outside the flagged span
    new = a[start:len(a) - tail].decode("utf-8", "replace")
    slots: list[str] = []
    for text, meta in _captures(match, b):
        pattern = (r"(?<![\w$])" if re.match(r"\w", text) else "") + re.escape(text) + (
            r"(?!\w)" if re.search(r"\w$", text) else "")
        slot = f"\x00{len(slots)}\x00"
        slots.append(meta)
        new = re.sub(pattern, slot.replace("\\", "\\\\"), new)
    return re.sub("\x00(\\d+)\x00", lambda m: slots[int(m.group(1))], new)


def _applied(before: str, hits: Sequence[Mapping[str, Any]]) -> str | None:
    edits = [{"byteStart": int(m["replacementOffsets"]["start"]), "byteEnd": int(m["replacementOffsets"]["end"]),
              "newText": str(m["replacement"])} for m in hits if "replacementOffsets" in m]
    if not edits:
        return None
    try:
        return apply_edits(before, edits)
    except SgToolsError:
        return None


def _works(engine: Engine, language: str, file_name: str, body: dict[str, Any], fix: str,
           pairs: Sequence[FixPair]) -> bool:
    befores = [p["before"] for p in pairs]
    outcome = run_rules(engine, language, file_name, [{**body, "fix": fix}], befores)[0]
    if outcome.refused:
        return False
    for pair, hits in zip(pairs, outcome.hits, strict=True):
        if _applied(pair["before"], hits) != pair["after"]:
            return False
    rescan = run_rules(engine, language, file_name, [body], [p["after"] for p in pairs])[0]
    return not rescan.refused and all(len(after) < len(before) for after, before in zip(
        rescan.hits, outcome.hits, strict=True))


def infer(engine: Engine, language: str, file_name: str, cand: Candidate,
          pairs: Sequence[FixPair]) -> tuple[str | None, str | None]:
    """(verified fix template, None) or (None, why no fix was inferred)."""
    scan = run_rules(engine, language, file_name, [cand.body], [p["before"] for p in pairs])[0]
    if scan.refused:
        return None, "the rule could not be run on the fix examples"
    templates: list[str] = []
    for i, (pair, hits) in enumerate(zip(pairs, scan.hits, strict=True)):
        if not hits:
            return None, f"fix_examples[{i}].before is not flagged by this rule, so no fix was inferred from it"
        template = _template(pair["before"], pair["after"], hits[0])
        if template is None:
            return None, f"fix_examples[{i}] changes code outside what the rule flags; no fix was inferred"
        if template not in templates:
            templates.append(template)
    for template in templates:
        if _works(engine, language, file_name, cand.body, template, pairs):
            return template, None
    return None, ("no single fix template turns every `before` into its `after` (checked by applying it); "
                  "make the pairs consistent, or write the fix by hand")


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def unsafe_reason(fix: str, cand: Candidate, pairs: Sequence[FixPair]) -> str:
    """Why this inferred fix is `fixSafety: unsafe`: what it drops, what names it brings in, or that it is only
    proven on the examples given."""
    used = set(re.findall(r"\$\$?\$?([A-Z][A-Z0-9_]*)", fix))
    holes = [h.name for h in cand.gen.holes]
    dropped = [h for h in holes if h not in used]
    befores = " ".join(p["before"] for p in pairs)
    new_names = sorted({n for n in _NAME.findall(re.sub(r"\$+[A-Z][A-Z0-9_]*", " ", fix))
                        if n not in befores})
    parts = []
    if dropped:
        parts.append("it drops what " + ", ".join(f"${h}" for h in dropped) + " captured")
    if new_names:
        parts.append("it brings in " + ", ".join(f"`{n}`" for n in new_names[:4]) + ", which the file may not "
                     "import")
    if not parts:
        parts.append("it is inferred from the examples given and proven only on them")
    return "fixSafety: unsafe: " + "; ".join(parts) + ". Review each edit before applying it."
