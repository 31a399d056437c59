"""The call the request writes with its arguments (issue 29): "use strconv, not fmt.Sprintf("%d", x) or
fmt.Sprint(x)", "t[#t + 1] = v instead of table.insert(t, v)", ".toList() instead of .collect(Collectors.toList())".
The argument list written is part of what is meant: that many arguments, each literal as written (`"%d"`), each
plain name any one argument, each call with no arguments that call however it is qualified (`toList()` imported,
`java.util.stream.Collectors.toList()`); a method written after a dot is called on any object. An author says the
call by its name with `has: {field: arguments, ...}`, `nthChild` and `not: has: {nthChild: N + 1}`, not the call
with any arguments (`fmt.Sprint(a, b)` joins strings; `table.insert(t, 1, v)` inserts at the front) nor the values
the examples happen to pass. Only where every invalid example makes such a call as the request writes it; verified on
the examples like any candidate, and before the call by its name alone (`requested.request_first`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sgtools.workflows.suggest import callnames
from sgtools.workflows.suggest.arguments import list_items, list_path
from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.mentioned import code_before
from sgtools.workflows.suggest.required import callee_regex, names_callee
from sgtools.workflows.suggest.tree import Example, Node, place

# A call written in the request: a (qualified) name and a flat argument list (`f(x)`, `fmt.Sprintf("%d", x)`).
# A method written after a dot (`.collect(...)`) is called on any object; an argument may be a call of its own
# with no arguments (`Collectors.toList()`).
_CALL = re.compile(r"(?<![\w.:$\\])\.?(?P<name>[A-Za-z_]\w*(?:(?:\.|::|->)[A-Za-z_]\w*)*)"
                   r"\((?P<args>[^()]*(?:\(\s*\)[^()]*)*)\)")
_STRING = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`")
_CONSTANT = re.compile(r"-?\d+(?:\.\d+)?|true|false|True|False|None|null|nil")
_ANY = re.compile(r"[A-Za-z_]\w*")  # a plain name: any one argument
_CALLED = re.compile(r"(?:[A-Za-z_]\w*\.)*(?P<name>[A-Za-z_]\w*)\(\s*\)")  # a call with no arguments
_CODE_AFTER = re.compile(r"\s*[.\[=<>+*/&|;%?-]")  # an operator or an access after the call: more code
# The Go twin of a lone one-argument call (`fmt.Sprint(id)` read as a type conversion): its one operand.
_OPERAND = {"type_conversion_expression": "operand"}


@dataclass(frozen=True)
class _Written:
    name: str
    args: tuple[str | None, ...]  # per argument, the regex of a literal written, None for any one argument


def _literal(arg: str) -> str | None:
    """The regex of a literal argument in any quotes (`"%d"` also as `` `%d` ``), None for a plain name."""
    if _STRING.fullmatch(arg):
        return "^[\"'`]" + re.escape(arg[1:-1]) + "[\"'`]$"
    called = _CALLED.fullmatch(arg)
    if called:  # the call by its name, however it is qualified (`toList()` imported, `java.util...toList()`)
        return rf"^([\w.]+\.)?{re.escape(called.group('name'))}\(\s*\)$"
    return f"^{re.escape(arg)}$" if _CONSTANT.fullmatch(arg) else None


def written_calls(request: str) -> list[_Written]:
    """The calls the request writes with one or more arguments, each a literal or a plain name; not `f()` (a
    call said as one), `f(...)` (any arguments) nor arguments that are code of their own (`f(a + 1)`, `key=v`)."""
    out: list[_Written] = []
    quoted = [(q.start(1), q.end(1)) for q in re.finditer(r"`([^`]+)`", request)]
    for m in _CALL.finditer(request):
        if not _alone(request, m, quoted):
            continue
        parts = [p.strip() for p in re.findall(r"(?:\"[^\"]*\"|'[^']*'|`[^`]*`|[^,])+", m.group("args"))]
        if not parts or not all(_STRING.fullmatch(p) or _CONSTANT.fullmatch(p) or _ANY.fullmatch(p)
                                or _CALLED.fullmatch(p) for p in parts):
            continue
        out.append(_Written(m.group("name"), tuple(_literal(p) for p in parts)))
    return out


def _alone(request: str, m: re.Match[str], quoted: list[tuple[int, int]]) -> bool:
    """The call is written by itself, not as part of more code (`for i := 0; i < len(s); i++` in backticks, `x +
    f(y)`, `f(x).y`): there its arguments are what that code passes, not what the request says of the call."""
    span = next(((s, e) for s, e in quoted if s <= m.start() < e), None)
    if span is not None and request[span[0]:span[1]].strip() != m.group(0):
        return False
    return not code_before(request[:m.start()]) and _CODE_AFTER.match(request, m.end()) is None


def _arguments(call: Node) -> list[Node] | None:
    """What the call passes, in order: its list's items, or the one operand of Go's type conversion."""
    found = list_path(call)
    if found is not None:
        return list_items(found[1])
    role = _OPERAND.get(call.kind)
    return [c for c in call.children if c.role == role] if role else None


def _makes(call: Node, written: _Written) -> bool:
    """The call is the one the request writes, with as many arguments and the literals as written."""
    callee = callnames.name_of(call) if call_like(call.kind) else None
    args = _arguments(call) if callee is not None else None
    if callee is None or args is None or not names_callee(written.name, callee.text):
        return False
    return len(args) == len(written.args) and all(
        regex is None or re.search(regex, a.text) for a, regex in zip(args, written.args, strict=True))


def _passes(where: dict[str, Any], written: _Written) -> dict[str, Any]:
    """The argument list as written, said on the list (`where`: its field or kind): that many items, each literal
    at its place."""
    count = len(written.args)
    items = [{"has": {"nthChild": i + 1, **({"regex": r} if r else {})}}
             for i, r in enumerate(written.args) if r or i + 1 == count]
    return {"has": {**where, "all": [*items, {"not": {"has": {"nthChild": count + 1}}}]}}


def _with_arguments(alternative: dict[str, Any], written: _Written, lists: dict[str, dict[str, Any]],
                    ) -> dict[str, Any] | None:
    """One alternative of the call by its name with its arguments, None where its kind takes no such list."""
    kind = alternative["kind"]
    operand = _OPERAND.get(kind)
    if operand is not None:
        if len(written.args) != 1:
            return None
        regex = written.args[0]  # its one operand: any, or the literal written
        return {**alternative, "all": [{"has": {"field": operand, "regex": regex}}]} if regex else alternative
    if kind not in lists:
        return None
    return {**alternative, "all": [lists[kind]]}


def _list_places(examples: Sequence[Example]) -> dict[str, dict[str, Any]]:
    """Per call kind, where its argument list is (its field, else its kind), as the examples' calls show it."""
    out: dict[str, dict[str, Any]] = {}
    for e in examples:
        for n in e.nodes():
            found = list_path(n) if call_like(n.kind) and n.kind not in out else None
            if found is not None and len(found[0]) == 1:
                args = found[1]
                out[n.kind] = place(args)
    return out


def _rule(written: _Written, made: list[Node], places: dict[str, dict[str, Any]],
          language: str) -> dict[str, Any] | None:
    """The call by the request's name with the request's arguments, in each kind the grammar writes it."""
    kinds = {(n.kind, c.role) for n in made if (c := callnames.name_of(n)) is not None}
    if len(kinds) != 1:
        return None
    kind, role = kinds.pop()
    bare = all((c := callnames.name_of(n)) is not None and c.text == written.name for n in made)
    called = callnames.by_name(kind, role or "", f"^{callee_regex(written.name, bare, language)}$", language)
    lists = {k: _passes(where, written) for k, where in places.items()}
    alternatives = [a for a in (_with_arguments(alt, written, lists) for alt in called.get("any", [called]))
                    if a is not None]
    if not alternatives:
        return None
    return alternatives[0] if len(alternatives) == 1 else {"any": alternatives}


def argued_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example], language: str,
                 start: int) -> list[Candidate]:
    """`any` of the calls the request writes with arguments that the invalid examples make as written, when every
    invalid example makes one; to be verified on the examples."""
    calls = [(i, n) for i, e in enumerate(invalid) for n in e.nodes() if call_like(n.kind)]
    places = _list_places([*invalid, *valid])
    parts: list[tuple[dict[str, Any], Node, str]] = []
    shown: set[int] = set()
    for written in written_calls(request or ""):
        made = [(i, n) for i, n in calls if _makes(n, written)]
        rule = _rule(written, [n for _, n in made], places, language) if made else None
        if rule is not None and not any(p[0] == rule for p in parts):
            parts.append((rule, made[0][1], written.name))
            shown |= {i for i, _ in made}
    if not parts or len(shown) != len(invalid):
        return []
    rule = parts[0][0] if len(parts) == 1 else {"any": [p[0] for p in parts]}
    label = " / ".join(f"{p[2]}(...)" for p in parts)
    note = (f"flags every call of {label} with the arguments the request writes (as many, its literals as "
            "written); lets through the call given more or other arguments")
    return [Candidate({"rule": rule}, Generalised.written(parts[0][1], label), REQUESTED, start, note, argued=True)]
