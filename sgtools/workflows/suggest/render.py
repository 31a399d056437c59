"""How a verified candidate is shown: its rule document as YAML, a default id and message, and why it won."""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.scalarstring import LiteralScalarString

from sgtools.core import yamlio
from sgtools.workflows.suggest.candidates import EXCLUDE, FORM_NAMES, UNION, Candidate

_SLUG = re.compile(r"[^a-z0-9]+")


def _literal(value: Any) -> Any:
    """Multi-line strings (contexts, fixes) as `|` blocks, which read like the code they hold."""
    if isinstance(value, str) and "\n" in value and not re.search(r"[ \t]\n|[^\S\n]$", value):
        return LiteralScalarString(value)
    if isinstance(value, dict):
        return {k: _literal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_literal(v) for v in value]
    return value


def rule_doc(rule_id: str, language: str, severity: str, message: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"id": rule_id, "language": language, "severity": severity, "message": message, **body}


def dump(doc: dict[str, Any]) -> str:
    return yamlio.dump(_literal(doc))


def _names(cand: Candidate) -> list[str]:
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*", re.sub(r"\$\$?\$?[A-Z0-9_]+", " ", cand.gen.pattern))


def default_id(cand: Candidate) -> str:
    words = [w for w in _names(cand) if len(w) > 1][:3]
    slug = _SLUG.sub("-", "-".join(words).lower()).strip("-")
    return f"no-{slug}"[:100] if slug else "suggested-rule"


def default_message(cand: Candidate) -> str:
    first = cand.gen.pattern.strip().splitlines()[0] if cand.gen.pattern.strip() else cand.gen.root.kind
    if len(first) > 60:
        first = first[:57] + "..."
    return f"Avoid `{first}` here"


def _holes(cand: Candidate) -> str:
    parts = []
    for h in cand.gen.holes:
        sigil = "$$$" if h.multi else "$"
        if h.multi and (h.relaxed or not h.texts):
            parts.append(f"{sigil}{h.name} matches any run of items there")
        elif h.relaxed:
            parts.append(f"{sigil}{h.name} abstracts `{h.texts[0][:30]}` (incidental)")
        else:
            shown = " / ".join(dict.fromkeys(t[:20] for t in h.texts))
            parts.append(f"{sigil}{h.name} stands for what differs (`{shown}`)")
    return "; ".join(parts)


def form_name(cand: Candidate) -> str:
    return "kind + regex (the literals differ but share this start or end)" if cand.gen.pinned else \
        FORM_NAMES[cand.form]


def why(cand: Candidate, n_invalid: int, n_valid: int) -> str:
    shared = "shared by all" if n_invalid > 1 else "in"
    text = (f"The smallest `{cand.gen.root.kind}` {shared} {n_invalid} invalid example(s), written as "
            f"{form_name(cand)}")
    if cand.form == UNION:
        text = "No construct is shared by all the invalid examples and absent from the valid ones"
    holes = "" if cand.form == UNION else _holes(cand)
    if holes:
        text += f"; {holes}"
    if cand.note:
        text += f"; {cand.note}"
    text += f". Verified with ast-grep: it flags all {n_invalid} invalid example(s) and none of the {n_valid} valid."
    return text


def scope(cand: Candidate) -> str:
    """One line: what else the candidate would flag and what it would let through."""
    if cand.note and "lets through" in cand.note:
        return cand.note
    holes = [("$$$" if h.multi else "$") + h.name for h in cand.gen.holes]
    where = f" with anything in {', '.join(holes)}" if holes else ""
    text = cand.gen.pattern.strip().splitlines()[0][:60] if cand.gen.pattern.strip() else cand.gen.root.kind
    base = f"flags every `{text}`{where}"
    if cand.form == EXCLUDE:
        return (f"{base} except the valid examples' exact code; lets through nothing new but flags any other "
                "spelling of the valid code (a literal `not`, not a generalisation)")
    return f"{base}; lets through the same thing written differently (another receiver, an alias, a wrapper)"
