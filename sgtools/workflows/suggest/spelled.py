"""A name or literal the request says must be spelt a certain way (issue 29), placed as a regex on the node that
carries it: "counter names must end in _total", "don't prefix interface names with I", "long literals take an
uppercase L", "no tabIndex above 0", "every TODO needs a bug link: TODO(crbug.com/123456)". An author writes the
construct and a `regex` (or `not: regex`) on the one node that carries the spelling: a string (`_total['"]$`, with
its closing quote), a declared name (`^I[A-Z]`), a number as written (`l$`; `^[1-9]\\d*$` for "above 0"), a comment
(`TODO(?!...)`). The affix, case or range comes from the request's words (read by spellings.py); the examples only
confirm where it is carried (every invalid example holds such a node spelt as the request forbids), never what the
literal says. Said on the carrier itself where it is the construct (a literal, a declaration by its name, a
comment), else by where it stands in a near miss (`Counter($$$ARGS)` whose first argument is a string not ending
in `_total`), not by copying the valid examples word for word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest import callnames, directives, tree
from sgtools.workflows.suggest.author import call_like, matched
from sgtools.workflows.suggest.candidates import EXCLUDE, REQUESTED, Candidate, of_kinds
from sgtools.workflows.suggest.constructs import is_body
from sgtools.workflows.suggest.declnames import declaration
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.literal_kinds import spelled_as
from sgtools.workflows.suggest.mentioned import mentions
from sgtools.workflows.suggest.spellings import COMMENT, NAME, NUMBER, STRING, VALUE, Spelling, carrier, spellings
from sgtools.workflows.suggest.tree import Example, Node, Step
from sgtools.workflows.suggest.verify import Outcome

_NEAR = 12  # near misses given the spelling on the node inside them that carries it
_DEPTH = 4  # steps from a construct down to the carrier
_NEAR_DEPTH = 2  # ... from a near miss's match: deeper, the near miss is not the construct asked about


def _clause(spelling: Spelling, nodes: Sequence[Node], typed: bool, as_: str | None = None) -> dict[str, Any]:
    """The spelling on the carriers, with their kinds where it says what they lack (`not: regex` on a string, not
    on any first argument) or where `typed` asks."""
    kind = as_ or str(carrier(nodes[0]))
    rule = {**spelling.clause(kind)}
    if spelling.holds is not None:
        rule = {"regex": spelling.holds, **rule}
    elif kind == NUMBER and not spelling.flagged:
        rule = {"regex": VALUE.pattern, **rule}  # a number outside the range, not a variable
    if typed or (not spelling.flagged and kind != NUMBER):
        rule = {**of_kinds(sorted({n.kind for n in nodes})), **rule}
    return rule


def _note(spelling: Spelling, where: str) -> str:
    wrong = "spelt so" if spelling.flagged else "not spelt so"
    return (f"flags {where} {wrong} ({spelling.what}, as the request says), whatever the rest of it writes; lets "
            "through the same value built at run time")


def _declared(node: Node) -> bool:
    return node.role == "name" and node.parent is not None and declaration(node.parent)


_Said = tuple[dict[str, Any], Node, str]  # a rule, the node it is written from, what it flags (for the note)


def _kept(wrong: list[list[Node]], keep: Any) -> list[Node]:
    """The carriers `keep` accepts, when every invalid example has one; else none."""
    each = [[n for n in ns if keep(n)] for ns in wrong]
    return [n for ns in each for n in ns] if all(each) else []


def _by_name(spelling: Spelling, wrong: list[list[Node]]) -> _Said | None:
    """The declarations of a kind every invalid example declares a name spelt wrong in, by that name."""
    names = [[n for n in ns if carrier(n) == NAME and _declared(n)] for ns in wrong]
    kinds = set.intersection(*({str(n.parent.kind) for n in ns if n.parent} for ns in names))
    flat = [n for ns in names for n in ns if n.parent is not None and n.parent.kind in kinds]
    if not flat:
        return None
    derived = _derived(spelling, [n.parent for n in flat if n.parent is not None])
    rule = {**of_kinds(sorted(kinds)), "has": {"field": "name", **_clause(spelling, flat, False)},
            **({"all": derived} if derived else {})}
    return rule, flat[0].parent or flat[0], "every declaration named"


def _derived(spelling: Spelling, declared: list[Node]) -> list[dict[str, Any]]:
    """The affix the request gives the names also ending a name in another part of every declaration so named (`:
    InvalidOperationException`, what it derives from): what makes it one the request asks of (`class
    ExceptionMiddleware`, `class Filter : IExceptionFilter` are none)."""
    affix = spelling.regex.get("name", "")
    word = affix.strip("^$")
    if len(word) < 3 or not re.fullmatch(r"\w+", word) or affix.startswith("^") == affix.endswith("$"):
        return []
    regex = rf"{word}\b" if affix.endswith("$") else rf"\b{word}"
    parts = [{c.kind for c in d.children
              if c.named and c.role != "name" and not is_body(c) and re.search(regex, c.text)} for d in declared]
    common = sorted(set.intersection(*parts)) if parts else []
    return [{"has": {"kind": common[0], "regex": regex}}] if common else []


def _alone(spelling: Spelling, wrong: list[list[Node]], language: str, examples: Sequence[Example],
           start: int, narrowed: bool) -> list[Candidate]:
    """The carrier where it is the construct itself: a number literal by its kind, comments by the marker the
    request writes, a declaration by its name, of a kind every invalid example declares one so named in (for a
    spelling every name must have, only where no near miss `narrowed` it to the construct it is asked of)."""
    if not spelling.alone:
        return []
    said: list[_Said] = []
    if numbers := _kept(wrong, lambda n: carrier(n) == NUMBER and not n.children):
        # Every kind the grammar writes a number in (Java's hex beside its decimal), not only the examples' one.
        rule = {**spelled_as(language, {n.kind for n in numbers}), **_clause(spelling, numbers, False)}
        said.append((rule, numbers[0], "every number literal"))
    if comments := _kept(wrong, lambda n: carrier(n) == COMMENT):
        rule = {**of_kinds(directives.comment_kinds(language, examples)), **_clause(spelling, comments, False)}
        said.append((rule, comments[0], "every comment with the marker"))
    named = _by_name(spelling, wrong) if spelling.flagged or not narrowed else None
    said += [named] if named is not None else []
    return [Candidate({"rule": rule}, Generalised.written(node, spelling.what), REQUESTED, start + i,
                      _note(spelling, where)) for i, (rule, node, where) in enumerate(said)]


def _paths(spelling: Spelling, matches: list[Node]) -> dict[tuple[Step, ...], list[Node]]:
    out: dict[tuple[Step, ...], list[Node]] = {}
    for match in matches:
        for node in match.walk():
            if spelling.wrong(node) and (path := tree.path(match, node, depth=_NEAR_DEPTH)) is not None:
                out.setdefault(path, []).append(node)
    return out


def _nested(path: tuple[Step, ...], inner: dict[str, Any]) -> dict[str, Any]:
    for how, at in reversed(path):
        inner = {"has": {how: at, **inner}}
    return inner


def _held(mentioned: set[str], matches: list[list[Node]]) -> bool:
    """Every invalid example's match writes one of the code words the request names (`tabIndex`), if it names any
    the examples write: the construct asked about, not a part of it (`{1}`)."""
    return not mentioned or all(any(leaf.text in mentioned for m in ms for leaf in m.walk() if not leaf.children)
                                for ms in matches)


def _within(spelling: Spelling, near: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
            valid: Sequence[Example], mentioned: set[str], start: int) -> list[Candidate]:
    """Each near miss with the spelling on the node at one place inside its matches, where every invalid example
    has one spelt wrong there and no valid match does."""
    out: list[Candidate] = []
    for cand, outcome in near:
        bad, good = matched(outcome, invalid, 0), matched(outcome, valid, len(invalid))
        if not all(bad) or not _held(mentioned, bad):
            continue
        per = [_paths(spelling, ms) for ms in bad]
        paths = [path for path in sorted(set.intersection(*(set(p) for p in per)), key=len)
                 if not any((x := tree.follow(g, path)) is not None and spelling.wrong(x) for gs in good for g in gs)]
        matches = [m for ms in bad for m in ms]
        derived = _derived(spelling, matches) if all(declaration(m) for m in matches) else []
        for path in paths[:2]:
            nodes = [n for p in per for n in p[path]]
            constraint = _nested(path, _clause(spelling, nodes, False))
            rule = {"all": [cand.body["rule"], constraint, *derived]}
            out.append(Candidate({**cand.body, "rule": rule}, Generalised.written(bad[0][0], spelling.what),
                                 REQUESTED, start + len(out), _note(spelling, "every match whose part is")))
    return out


Named = tuple[str, tuple[Step, ...], str, tuple[Step, ...]]  # a construct kind, where its name is, the name, where
# the carrier is


def _names_of(spelling: Spelling, example: Example, mentioned: set[str]) -> dict[Named, Node]:
    """Each construct around a carrier spelt wrong that holds, in a place of its own, a code word the request
    names (`tabIndex` of `tabIndex={1}`): the construct asked about by name."""
    out: dict[Named, Node] = {}
    for node in example.nodes():
        if not spelling.wrong(node):
            continue
        for around in list(node.ancestors())[:_DEPTH]:
            named = [c for c in around.walk() if not c.children and c.text in mentioned and (
                c.start >= node.end or c.end <= node.start)]
            to_name = tree.path(around, named[0], depth=_DEPTH) if named else None
            to_node = tree.path(around, node, depth=_DEPTH)
            if to_name is not None and to_node is not None:
                out.setdefault((around.kind, to_name, named[0].text, to_node), around)
                break
    return out


def _named(spelling: Spelling, invalid: Sequence[Example], mentioned: set[str], start: int) -> list[Candidate]:
    """The construct every invalid example writes around a carrier spelt wrong, by the code word the request names
    in it and the carrier's place: `kind: jsx_attribute` named `tabIndex` whose value is a number above 0, as
    written (`{1}`, `"1"`)."""
    per = [_names_of(spelling, e, mentioned) for e in invalid] if mentioned else []
    common = sorted(set.intersection(*(set(p) for p in per)), key=lambda k: len(k[1]) + len(k[3])) if per else []
    if not common:
        return []
    kind, to_name, name, to_node = common[0]
    nodes = [n for p in per for n in [p[common[0]]]]
    carried = [x for n in nodes if (x := tree.follow(n, to_node)) is not None]
    rule = {"kind": kind, "all": [_nested(to_name, {"regex": f"^{re.escape(name)}$"}),
                                  _nested(to_node, _clause(spelling, carried, False))]}
    return [Candidate({"rule": rule}, Generalised.written(nodes[0], f"{name} {spelling.what}"), REQUESTED, start,
                      _note(spelling, f"every `{kind}` of {name} whose part is"))]


# A call kind, its callee's field, where the carrier is among its arguments and the class it is read as.
Called = tuple[str, str, tuple[Step, ...], str]


def _leading(node: Node, call: Node, spelling: Spelling) -> tuple[Node, str]:
    """The argument a string spelt wrong opens, for a start the request forbids (`"Missing %s" % k` starts with a
    capital as its string does); else the node itself."""
    kind = str(carrier(node))
    if kind != STRING or not spelling.flagged or not spelling.regex[kind].startswith("^"):
        return node, kind
    lead = node
    while lead.parent is not None and lead.parent is not call and lead.parent.start == node.start:
        lead = lead.parent
    return lead, kind


def _calls_of(spelling: Spelling, example: Example) -> dict[Called, str]:
    """Each call with a carrier spelt wrong among its arguments (not in its callee), by the name it calls."""
    out: dict[Called, str] = {}
    for node in example.nodes():
        if not spelling.wrong(node):
            continue
        for call in list(node.ancestors())[:_DEPTH]:
            name = callnames.name_of(call) if call_like(call.kind) else None
            if name is None or any(a is name for a in [node, *node.ancestors()]):
                continue
            lead, kind = _leading(node, call, spelling)
            path = tree.path(call, lead, depth=_DEPTH)
            if path:
                out.setdefault((call.kind, name.role or "", path, kind), name.text)
                break
    return out


def _called(spelling: Spelling, invalid: Sequence[Example], valid: Sequence[Example], language: str,
            start: int) -> list[Candidate]:
    """The call every invalid example passes a carrier spelt wrong to, at one place among its arguments, by the
    names they call: `errors.New` / `fmt.Errorf` whose first argument starts with a capital."""
    per = [_calls_of(spelling, e) for e in invalid]
    fine = [_calls_of(spelling, e) for e in valid]
    common = sorted((k for k in set.intersection(*(set(p) for p in per))
                     if not any(f.get(k) in {p[k] for p in per} for f in fine)), key=lambda k: len(k[2]))
    if not common:
        return []
    kind, role, path, as_ = common[0]
    names = sorted({p[common[0]] for p in per})
    regex = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    found = [tree.follow(c, path) for e in invalid for c in e.nodes() if c.kind == kind]
    carried = [x for x in found if x is not None and spelling.wrong(x, as_)]
    clause = _clause(spelling, carried, False, as_)
    rule = {"all": [callnames.by_name(kind, role, regex, language), _nested(path, clause)]}
    return [Candidate({"rule": rule}, Generalised.written(carried[0], f"{' / '.join(names)} {spelling.what}"),
                      REQUESTED, start, _note(spelling, f"every call of {' / '.join(names)} whose argument is"))]


def spelled_forms(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example], valid: Sequence[Example],
                  request: str | None, language: str, start: int) -> list[Candidate]:
    """The spellings the request says, where every invalid example holds a node spelt wrong: on that node alone,
    and on it inside each near miss; to be verified on the examples like any candidate."""
    if not request or not invalid:
        return []
    n = len(invalid)
    near = sorted(((c, o) for c, o in tried if not o.refused and c.form not in (EXCLUDE, REQUESTED)
                   and all(o.hits[:n]) and any(o.hits[n:])), key=lambda co: co[0].key())[:_NEAR]
    shown = {leaf.text for e in invalid for leaf in e.root.walk() if not leaf.children}
    mentioned = {m.name for m in mentions(request)} & shown
    out: list[Candidate] = []
    for spelling in spellings(request):
        wrong = [[x for x in e.nodes() if spelling.wrong(x)] for e in invalid]
        if not all(wrong) or (valid and not spelling.flagged and not spelling.shown(valid)):
            continue
        inside = _within(spelling, near, invalid, valid, mentioned - _affixes(spelling), start + len(out))
        out += _alone(spelling, wrong, language, [*invalid, *valid], start + len(out) + len(inside), bool(inside))
        out += _named(spelling, invalid, mentioned - _affixes(spelling), start + len(out) + len(inside))
        out += _called(spelling, invalid, valid, language, start + len(out) + len(inside))
        out += inside
    return out


def _affixes(spelling: Spelling) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", spelling.what))
