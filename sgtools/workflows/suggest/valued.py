"""The key the request writes set to a value (issue 29): "no subprocess calls with shell=True", "no save(validate:
false)", "instead of ref=\"name\"". The key is where the point is, its value the point: an author writes the keyed
element, keyword argument or attribute by that key whose value is the literal written (`True`, `false`, `1`) or, for
a string, the string the examples all write, else any string, bare or in the braces of an expression container
(`ref="name"` and `ref={"name"}`), whatever construct holds it. Verified on the examples like any candidate; first
when it separates them, like the code the request names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import REQUESTED, Candidate, of_kinds
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.spellings import above
from sgtools.workflows.suggest.tree import Example, Node

KEYED = re.compile(r"(?<![\w.$-])(?P<key>[A-Za-z_][\w-]*)\s*(?:=|:)\s*(?P<value>\"[^\"]*\"|'[^']*'|true|false|"
                    r"True|False|None|null|nil|-?\d+)(?![\w\"'])")
_STRING = r"^\{?\s*[@$\w]{0,2}[\"'`][\s\S]*[\"'`]\s*\}?$"  # a string, or an expression container holding one
# After a number the request writes: it is a floor ("stacklevel=2 (or more)").
_OR_MORE = re.compile(r"\s*\(?\s*or\s+(?:more|higher|above|greater|larger|bigger)\b")


def said_value(request: str, end: int, value: str) -> str:
    """The regex of a value the request writes ending at `end`: the value as written, or, where the request says
    "or more" after a whole number, that number, a greater one or a value that is no number literal (computed:
    `stacklevel=find_stack_level()`), which the request's floor says nothing against."""
    if re.fullmatch(r"\d+", value) and _OR_MORE.match(request, end):
        return rf"({value}|{above(int(value))}|[^\s\d-][\s\S]*)"
    return re.escape(value)


def needed_pair(request: str, key: str) -> str | None:
    """The key written with the value the request says it needs (`frozen=True`, `stacklevel=2 (or more)`), as the
    regex of the whole pair's text; None when the request writes the key with no value or with a string, whose words
    code says in more ways than one (`rel="noreferrer"` for `rel="noopener noreferrer"`). The value is the need: a
    code writing the key with another value (`frozen=False`, `stacklevel=1`) still lacks it."""
    m = next((m for m in KEYED.finditer(request) if m.group("key") == key), None)
    if m is None or m.group("value")[:1] in "\"'":
        return None
    return rf"^{re.escape(key)}\s*[=:]\s*{said_value(request, m.end(), m.group('value'))}$"


def _value(value: str, shown: list[Node]) -> str:
    """The value's regex: the literal as written; a string as every example writes it, else any string."""
    if value[:1] not in "\"'":
        return f"^{re.escape(value)}$"
    texts = {n.text for n in shown}
    return f"^{re.escape(texts.pop())}$" if len(texts) == 1 else _STRING


def _pairs(example: Example, key: str, value: str) -> list[Node]:
    """The nodes of the example whose first item is the key and whose last is such a value."""
    out = []
    for node in example.nodes():
        items = node.named_children()
        if len(items) >= 2 and items[0].text == key and not items[0].children and (
                items[-1].text == value if value[:1] not in "\"'" else re.search(_STRING, items[-1].text)):
            out.append(node)
    return out


def value_forms(request: str | None, invalid: Sequence[Example], start: int) -> list[Candidate]:
    """The key the request writes with its value, by the kinds of construct the invalid examples write it in; to
    be verified on the examples like any other candidate."""
    out: list[Candidate] = []
    for m in KEYED.finditer(request or "") if invalid else []:
        key, value = m.group("key"), m.group("value")
        found = [_pairs(e, key, value) for e in invalid]
        if not all(found):
            continue
        flat = [n for ns in found for n in ns]
        kinds = sorted({n.kind for n in flat})
        held: list[dict[str, Any]] = [
            {"has": {"nthChild": 1, "regex": f"^{re.escape(key)}$"}},
            {"has": {"nthChild": {"position": 1, "reverse": True},
                     "regex": _value(value, [n.named_children()[-1] for n in flat])}}]
        rule: dict[str, Any] = {**of_kinds(kinds), "all": held}
        note = (f"flags every `{key}` set to {value} (a string of any text, where the examples differ), in a "
                f"{' or '.join(kinds)}, whatever holds it; lets through the key set another way")
        out.append(Candidate({"rule": rule}, Generalised.written(flat[0], f"{key} = {value}"), REQUESTED,
                             start + len(out), note))
    return out
