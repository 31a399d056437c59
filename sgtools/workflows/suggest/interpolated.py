"""Strings built by interpolation, as an ast-grep author says them (issue 29): a string every invalid example writes
with code inside it (`"... $id"`, `f"... {x}"`, `$"... {x}"`) where no valid example's string holds any, is that
kind of string holding an interpolation, in any of the language's forms of one (`kind: string_literal`, `has:
{any: [{kind: interpolated_identifier}, {kind: interpolated_expression}]}`: Kotlin's `$name` and `${expr}`).

The generalised patterns cannot say it: two strings with different text are one hole, which keeps no literal.
Where the string goes (the SQL call it is passed to) is usually the point: ranked as a kind found only inside
strings (`in_literal`), after the call it goes to; placed.py keeps it inside the call the request names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import KIND_ONLY, Candidate, of_kinds
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, Node

# A string's own parts (its text, escapes, quotes and delimiters, the `$` that opens an interpolation), not code.
_CONTENT = re.compile(r"content|fragment|escape|text|chars|quote|delimiter|brace|_start$|_end$")
_STRING = re.compile(r"string|template")
# The forms one interpolation takes where the grammar gives each its own kind (Kotlin's `$name` and `${expr}`, a
# shell's `$x`, `${x}` and `$(cmd)`, PHP's `$x`, `{$o->x}`, `{$a[0]}`, `${x}`): one shown means any of them.
FORMS: dict[str, tuple[str, ...]] = {
    "kotlin": ("interpolated_identifier", "interpolated_expression"),
    "bash": ("simple_expansion", "expansion", "command_substitution"),
    "php": ("variable_name", "member_access_expression", "subscript_expression", "dynamic_variable_name"),
}


def _code_parts(node: Node) -> set[str]:
    """The kinds of the code a string node holds as its own children (its interpolations), none for other nodes."""
    if not node.children or not _STRING.search(node.kind):
        return set()
    return {c.kind for c in node.children if c.named and not _CONTENT.search(c.kind)}


def _holding(example: Example) -> dict[str, set[str]]:
    """Per string kind, the kinds of code the example's strings of it hold."""
    out: dict[str, set[str]] = {}
    for node in example.nodes():
        parts = _code_parts(node)
        if parts:
            out.setdefault(node.kind, set()).update(parts)
    return out


def _forms(kinds: set[str], language: str) -> list[str]:
    group = FORMS.get(language, ())
    return sorted(kinds | set(group)) if kinds & set(group) else sorted(kinds)


def string_forms(invalid: Sequence[Example], valid: Sequence[Example], language: str,
                 start: int) -> list[Candidate]:
    """A string kind every invalid example writes with an interpolation and no valid example does: that kind
    holding one (any form of it in the language)."""
    if len(invalid) < 2:  # one example is no evidence that every interpolated string is wrong
        return []
    per = [_holding(e) for e in invalid]
    fine: dict[str, set[str]] = {}
    for e in valid:
        for kind, parts in _holding(e).items():
            fine.setdefault(kind, set()).update(parts)
    out: list[Candidate] = []
    for kind in sorted(set.intersection(*(set(p) for p in per))):
        forms = _forms(set.union(*(p[kind] for p in per)), language)
        if set(forms) & fine.get(kind, set()):
            continue
        held: dict[str, Any] = of_kinds(forms)
        node = next(n for n in invalid[0].nodes() if n.kind == kind and _code_parts(n))
        note = (f"flags every `{kind}` holding an interpolation ({', '.join(forms)}); lets through the same text "
                "built another way (concatenation, a format call)")
        out.append(Candidate({"rule": {"kind": kind, "has": held}}, Generalised.written(node, f"{kind} interpolated"),
                             KIND_ONLY, start + len(out), note, in_literal=True))
    return out
