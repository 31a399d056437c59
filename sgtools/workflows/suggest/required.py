"""The argument the request says a call needs (issue 29): "std::async must be given std::launch::async",
"warnings.warn must pass stacklevel". When the request names a call that the invalid examples and the valid ones
both make, and a word of the request is in every valid call's text and in no invalid one's, the rule is that call
without that word: `all: [call by name, not: {regex: \\bword\\b}]`. The request says which call and which argument;
the examples confirm them, and the arguments or receivers they happen to write are no part of the rule (a pattern of
the calls shown, `warnings.warn($A, $B)`, misses `warnings.warn(msg)`). First when it separates them (service.py),
like the rule for the code the request names (requested.py): the two never both apply, that one wants code the
valid examples do not write. Where a valid call lacks the word too ("a NOT NULL column needs a server_default":
`Column(..., nullable=True)`), the need is that of the calls with what every invalid one passes and no such valid
one does (`nullable=False`), said beside it, and inside the call they are passed to where the prose says its name
(`add_column` for 'adding'); a call the request names as a plain word is its type's name too (`Column`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest import callnames, imported
from sgtools.workflows.suggest.arguments import argument_list, list_items
from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.listed import request_lists
from sgtools.workflows.suggest.requested import namespace_path
from sgtools.workflows.suggest.tree import Example, Node, place
from sgtools.workflows.suggest.valued import said_value

_NAME = re.compile(r"(?<![\w.:$\\])[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*")
_LITERAL = re.compile(r"null|nil|None|true|false|True|False|undefined")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")  # a command-line option: `--fail`, `-f`


# A value built by its type's name with fields, as a call is with arguments (Go's `http.Server{Addr: a}`, Rust's
# `Config { port: 80 }`): the field of the type's name.
_BUILT = {"composite_literal": "type", "struct_expression": "name"}


def _calls(example: Example) -> list[tuple[Node, Node]]:
    """Each call in the example with its callee, and each value built by its type's name with the name."""
    return [(n, c) for n in example.nodes() if (c := _callee(n)) is not None]


def _callee(node: Node) -> Node | None:
    if node.kind in _BUILT:
        return next((c for c in node.children if c.role == _BUILT[node.kind]), None)
    return callnames.name_of(node) if call_like(node.kind) else None


def names_callee(word: str, callee: str) -> bool:
    """The request's word names the callee (`warnings.warn` names `warnings.warn`; `async` names `std::async`)."""
    return callee == word or callee.endswith(("." + word, "::" + word, "->" + word))


def callee_regex(word: str, bare: bool, language: str) -> str:
    """The callee regex for one name: a namespace path optional from the left (`std::async`, bare `async` after a
    `using`); an object path before a dotted name (`warnings.warn`); a bare name as the examples call it, bare (with
    any namespace path where the language writes one: `\\file_put_contents`; a type's name, a constructor, with
    any package path: `android.os.Handler`), or on any object when they call it on one."""
    if "::" in word:
        qualifier, name = word.rsplit("::", 1)
        return namespace_path(qualifier + "::", "cpp") + re.escape(name)
    if bare and "." not in word:
        path = namespace_path("", language) or (r"([a-z_]\w*\.)*" if word[:1].isupper() else "")
        return path + re.escape(word)
    return rf"(\w+(\.|::|->))*{re.escape(word)}"


def _named_calls(calls: list[tuple[Node, Node]], words: list[str]) -> list[tuple[Node, Node]]:
    return [(n, c) for n, c in calls if any(names_callee(w, c.text) for w in words)]


def _named_words(request: str, shown: list[list[tuple[Node, Node]]], fine: list[list[tuple[Node, Node]]]) -> list[str]:
    """The request's names of a call that the invalid examples make, when a valid example makes one of them too
    ("hashlib.md5 or hashlib.sha1" where only an md5 call is shown valid: the request's list is one call)."""
    def makes(word: str, calls: list[list[tuple[Node, Node]]]) -> bool:
        return any(names_callee(word, c.text) for cs in calls for _, c in cs)
    made = [n for w in dict.fromkeys(_NAME.findall(request)) for n in (w, _typed(w)) if n and makes(n, shown)]
    return _family(request, made) if any(makes(w, fine) for w in made) else []


def _typed(word: str) -> str | None:
    """A plain lower-case word of the prose as the type's name it says ("a NOT NULL column": `Column(...)`)."""
    return word.capitalize() if re.fullmatch(r"[a-z]{3,}", word) else None


def _family(request: str, words: list[str]) -> list[str]:
    """The names shown, with the others of the request's list they are written in ("wait, spawn and delay" where
    `wait` and `spawn` are shown): the request asks about the whole list (listed.py)."""
    for names in request_lists(request):
        if set(words) <= set(names):
            return [*words, *(n for n in names if n not in words)]
    return words


def _tokens(request: str) -> list[str]:
    """The request's command-line options (`--fail`, `-f`) and its other words, in order."""
    flags = list(_FLAG.finditer(request))
    words = [m for m in re.finditer(r"[A-Za-z_]\w+", request)
             if not any(f.start() <= m.start() < f.end() for f in flags)]
    return [m.group() for m in sorted(flags + words, key=lambda m: m.start())]


def _said(token: str) -> str:
    """The regex of a needed token where a call writes it: an option as a whole argument, a one-letter one also in
    a cluster of them (`-f` in `-fsS`); a word as a whole word, a type's name also as a value's (`_as_value`)."""
    if token.startswith("-"):
        body = re.escape(token.lstrip("-"))
        short = len(token) == 2
        return rf"(^|\s)-[A-Za-z]*{body}" if short else rf"(^|\s){re.escape(token)}\b"
    return rf"\b{_as_value(token)}\b"


def _needed(request: str, words: list[str], made: list[tuple[Node, Node]], made_fine: list[str]) -> list[str]:
    """The request's words and options that valid calls write and no invalid one does (not a part of the call's
    name, not a literal), when every valid call writes one of them ("a ReadHeaderTimeout (or ReadTimeout)", "--fail
    (-f)")."""
    parts = {p.lower() for w in words for p in re.split(r"\.|::", w)}
    return [t for t in dict.fromkeys(_tokens(request)) if t.lower() not in parts
            and not _LITERAL.fullmatch(t) and any(_writes(t, text) for text in made_fine)
            and not any(_writes(t, n.text) for n, _ in made)]


def _writes(token: str, text: str) -> bool:
    return re.search(_said(token), text) is not None


def _items(call: Node) -> set[str]:
    """The arguments a call passes, each by its text without spaces (`nullable=False`)."""
    args = argument_list(call)
    return {re.sub(r"\s+", "", a.text) for a in list_items(args)} if args is not None else set()


def _present(calls: list[Node], without: list[Node]) -> list[dict[str, Any]] | None:
    """Where a valid call writes none of the needed words too, the arguments every invalid call passes and no such
    valid call does (`nullable=False` beside `nullable=True`): the need is theirs; None when there is none."""
    shared = set.intersection(*(_items(n) for n in calls)) - set().union(*(_items(n) for n in without))
    args = argument_list(calls[0])
    if not shared or args is None:
        return None
    spaced = [r"\s*".join(re.escape(t) for t in re.findall(r"\w+|[^\w\s]", item)) for item in sorted(shared)]
    return [{"has": {**place(args), "has": {"regex": f"^{item}$"}}} for item in spaced]


_VALUE = re.compile(r"\s*(?:=|:)\s*([\w.]+)")  # after a needed word: the value the request says it is given


def _named_receiver(request: str, words: list[str], callees: list[Node]) -> str | None:
    """A receiver every invalid call is made on that the request names too ("every Stripe create call":
    `stripe.refunds.create`), where the request names the call by its bare name: the rule keeps it, so that
    `db.payments.create` is no such call."""
    if any("." in w or "::" in w for w in words):
        return None
    said = {w.lower() for w in re.findall(r"[A-Za-z_]\w+", request)} - {w.lower() for w in words}
    shared: set[str] | None = None
    for callee in callees:
        segments = {p for p in re.split(r"\.|::|->", callee.text)[:-1] if p.lower() in said}
        shared = segments if shared is None else shared & segments
    return min(shared) if shared else None


def _valued(request: str, needed: list[str]) -> str | None:
    """The needed word with the value the request writes it with (`weights_only=True`, `fetch = FetchType.LAZY`), as
    one regex; None when the request gives it no value."""
    values: dict[str, tuple[list[str], int]] = {}
    for token in needed:
        at = re.search(rf"(?<![\w-]){re.escape(token)}\b", request)
        value = _VALUE.match(request, at.end()) if at else None
        if value is not None:
            written = value.group(1).rstrip(".")
            values[token] = written.split("."), value.start(1) + len(written)
    given = {part for parts, _ in values.values() for part in parts}
    if not values or any(t not in values and t not in given for t in needed):
        return None  # a needed word with no value, nor part of one (`SafeLoader` of `Loader=yaml.SafeLoader`)
    return "|".join(rf"\b{re.escape(t)}\s*[=:]\s*{_value_regex(request, *said)}\b" for t, said in values.items())


def _value_regex(request: str, parts: list[str], end: int) -> str:
    """A dotted value part by part (`FetchType . LAZY`); a single one as the request says it (a floor: "2 (or
    more)")."""
    return r"\s*\.\s*".join(map(re.escape, parts)) if len(parts) > 1 else said_value(request, end, parts[0])


def _as_value(word: str) -> str:
    """A type's name (`Looper`) as the regex of the word, also written as the name of a value of it, lower case
    first (`thread.looper`)."""
    return f"[{word[0]}{word[0].lower()}]{word[1:]}" if re.fullmatch(r"[A-Z][a-z]\w*", word) else word


def _passed_kind(request: str, made: list[Node], fine: list[Node]) -> tuple[dict[str, Any], list[str]] | None:
    """An argument of a kind the request names ("a dependency array": `array`) that every valid call passes and no
    invalid one does, as the `has` of the call's argument list; None when there is no such kind."""
    named = set(re.findall(r"[a-z]+", request.lower()))
    def kinds(call: Node) -> set[str]:
        args = argument_list(call)
        return {c.kind for c in args.children if c.named} if args is not None else set()
    shared = set.intersection(*(kinds(n) for n in fine)) if fine else set()
    said = sorted(k for k in shared - set().union(*(kinds(n) for n in made)) if k.split("_")[0] in named)
    args = argument_list(fine[0]) if fine else None
    if len(said) != 1 or args is None:
        return None
    held = {**place(args), "has": {"kind": said[0]}}
    return {"has": held}, [f"an argument of kind {said[0]}"]


def _imported(called: dict[str, Any], words: list[str], call: Node, callee: Node, language: str) -> dict[str, Any]:
    """The call by name, also by its bare name where the file imports it from the module the request writes
    (`from warnings import warn` then `warn(...)`)."""
    for word in words:
        qualifier, _, name = word.rpartition(".")
        module = imported.module_of(qualifier + ".", language) if qualifier else None
        if module is not None and callee.role:
            alone = imported.bare_where_imported(re.escape(name), module)
            called = imported.either(called, {"kind": call.kind, "has": {"field": callee.role, **alone}})
    return called


def _lacks(request: str, words: list[str], calls: list[tuple[Node, Node]],
           fine: list[Node]) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]] | None:
    """What the invalid calls lack, as a rule, its words and what they have that valid calls lacking it too do not:
    the needed words, else an argument of the kind the request names; None for neither."""
    needed = _needed(request, words, calls, [n.text for n in fine])
    without = [n for n in fine if not any(_writes(t, n.text) for t in needed)]
    present = _present([n for n, _ in calls], without) if needed and without else []
    if needed and present is not None:
        valued = _valued(request, needed)
        if valued and all(re.search(valued, n.text) for n in fine):
            return {"regex": valued}, needed, present  # `weights_only=False` lacks what `weights_only=True` says
        return {"regex": "|".join(_said(t) for t in needed)}, needed, present
    kind = _passed_kind(request, [n for n, _ in calls], fine)
    return (*kind, []) if kind is not None else None


def _callees(request: str, words: list[str], calls: list[tuple[Node, Node]], language: str) -> str:
    """The regex of the calls' names: the request's names of them, on the receiver it names where it names one."""
    bare = all(c.text in words for _, c in calls)
    named = _named_receiver(request, words, [c for _, c in calls])
    if named is None or bare:
        return "^(" + "|".join(callee_regex(w, bare, language) for w in words) + ")$"
    # The name within a longer one too (`stripeClient`, `_stripe`): what the request calls it, however spelt.
    receiver = rf"\w*(?i:{re.escape(named)})\w*"
    return "^(" + "|".join(rf"(\w+(\.|::|->))*{receiver}(\.|::|->)(\w+(\.|::|->))*{re.escape(w)}"
                           for w in words) + ")$"


def _passed_to(request: str, calls: list[Node], language: str) -> list[dict[str, Any]]:
    """The call every invalid one is passed to, where the request says its name in prose, each part of it a word of
    the request or its stem ("adding a NOT NULL column": `op.add_column(..., sa.Column(...))`): the request says
    where, as `inside` that call; a `Column` built for a `create_table` is another case."""
    outer = [next((a for a in n.ancestors() if _callee(a) is not None), None) for n in calls]
    callees = [_callee(a) for a in outer if a is not None]
    names = {re.split(r"\.|::|->", c.text)[-1] for c in callees if c is not None}
    if len(callees) != len(calls) or len(names) != 1 or outer[0] is None:
        return []
    name = names.pop()
    parts = re.findall(r"[a-z]+", re.sub(r"([A-Z])", r"_\1", name).lower())
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", request)}
    if len(parts) < 2 or not all(any(w.startswith(p) for w in said) for p in parts):
        return []
    callee = callees[0]
    assert callee is not None
    around = callnames.by_name(outer[0].kind, callee.role or "", f"^{callee_regex(name, False, language)}$", language)
    return [{"inside": {**around, "stopBy": "end"}}]


def required_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example], language: str,
                   start: int) -> list[Candidate]:
    """The call the request names without the word it says the call needs; to be verified on the examples."""
    if not request or not invalid or not valid:
        return []
    shown = [_calls(e) for e in invalid]
    fine = [_calls(e) for e in valid]
    words = _named_words(request, shown, fine)
    made = [_named_calls(cs, words) for cs in shown]
    if not words or not all(made):
        return []
    calls = [pair for cs in made for pair in cs]
    lacking = _lacks(request, words, calls, [n for cs in fine for n, _ in _named_calls(cs, words)])
    if lacking is None or len({(n.kind, c.role) for n, c in calls}) != 1:
        return []
    lacks, needed, present = lacking
    call, callee = calls[0]
    regex = _callees(request, words, calls, language)
    called = _imported(callnames.by_name(call.kind, callee.role or "", regex, language), words, call, callee,
                       language)
    around = _passed_to(request, [n for n, _ in calls], language) if present else []
    rule = {"all": [called, *present, {"not": lacks}, *around]}
    label = f"{' / '.join(words)} without {' / '.join(needed)}"
    note = (f"flags every call of {' / '.join(words)} that does not write {' or '.join(needed)} (what the request "
            "says it needs), whatever else it passes; lets through one that writes the word elsewhere in the call")
    return [Candidate({"rule": rule}, Generalised.written(call, label), REQUESTED, start, note)]
