"""Near misses told apart, where nothing else separated them, by a condition the request's words name, a statement
after or before it or a construct around it saying them (issue 29): the closest candidates still flag the right
construct, and what tells the sides apart is a word the request writes that such a place says on one side only
("revoke every URL.createObjectURL(...) with URL.revokeObjectURL": `not: precedes: {regex: \\brevokeObjectURL\\b,
stopBy: end}`, said on the statement the call stands in; "validate() a form before form.save()": `not: follows`; a
word before it in some valid examples and around it, an `if`'s condition, in others: `any` of both). The author
tries those conditions, built only from the request's words, on the closest constructs and keeps the one that
separates; several words the same place writes are said together, and a rule reading more of the request first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from sgtools.workflows.suggest import contrast, requested
from sgtools.workflows.suggest.author import matched, whole_kind
from sgtools.workflows.suggest.candidates import INSIDE_TEXT, KIND_ONLY, Candidate, of_kinds
from sgtools.workflows.suggest.roots import part_kind
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_NEAR = 6  # the closest near misses tried: the construct is usually the closest one
_PER_MISS = 2  # conditions kept per near miss
_FORMS = 8  # candidates at most
# (relation, how the note says it): the statement the match stands in, followed or preceded by one saying the
# words; a construct around it saying them.
_RELATIONS = (("precedes", "a later statement"), ("follows", "an earlier statement"),
              ("inside", "a construct around it"))

Places = Callable[[Node, bool], list[tuple[str, str]]]  # (kind of the node a relation starts from, text it reaches)


def _block(node: Node) -> bool:
    """A list of statements: a block, a body, the file itself (Swift's and Kotlin's `statements` too)."""
    return node.parent is None or part_kind(node.kind) or node.kind.endswith("statements")


def _statement(node: Node) -> Node | None:
    """The statement `node` stands in (itself, else the nearest enclosing one), not beyond a whole function."""
    for up in (node, *node.ancestors()):
        if whole_kind(up.kind) or _block(up):
            return None
        if up.parent is not None and _block(up.parent):
            return up
    return None


def _siblings(step: int) -> Places:
    def places(node: Node, _whole: bool = False) -> list[tuple[str, str]]:
        stmt = _statement(node)
        if stmt is None or stmt.parent is None:
            return []
        kin = [c for c in stmt.parent.children if c.named and "comment" not in c.kind]
        at = next((i for i, c in enumerate(kin) if c is stmt), None)
        if at is None:  # a comment: no statement of its own
            return []
        return [(stmt.kind, c.text) for c in (kin[at + 1:] if step > 0 else kin[:at])]
    return places


def _around(node: Node, whole: bool = False) -> list[tuple[str, str]]:
    """Each enclosing construct below the whole function (or file) it is in, by kind and the text of its parts
    around the match (an `if`'s condition, not the statements beside the match in its body), or, `whole`, all of
    its text, as ast-grep's `regex` reads it; not the blocks, whose other statements are before or after it."""
    out = []
    inner = node
    for up in node.ancestors():
        if up.parent is None or whole_kind(up.kind):
            break
        if not _block(up):
            out.append((up.kind, up.text if whole else " ".join(c.text for c in up.children if c is not inner)))
        inner = up
    return out


_PLACES: dict[str, Places] = {"precedes": _siblings(1), "follows": _siblings(-1), "inside": _around}


def _word(word: str) -> str:
    """The regex of a request word as a whole word, in Python's checks and in the rule alike."""
    return rf"\b{re.escape(word)}\b"


def _says(text: str, words: Sequence[str]) -> bool:
    return all(re.search(_word(w), text) for w in words)


def _request_words(request: str | None, examples: Sequence[Example]) -> list[str]:
    """The request's words that may name code (not its prose) some example writes as a word of its code, in the
    request's order."""
    code = "\n".join(e.code for e in examples)
    said = contrast.Words(request or "")
    words = dict.fromkeys(w for w in re.findall(r"[A-Za-z_]\w*", request or "") if said.of(w) is not None)
    return [w for w in words if re.search(_word(w), code)]


def _reached(nodes: Sequence[Node], relation: str, words: Sequence[str], whole: bool = False) -> list[list[str]]:
    """Per match, the kinds its relation starts from where the place it reaches says all `words` (`whole`: a
    construct around it anywhere in its text, as ast-grep reads it)."""
    return [[kind for kind, text in _PLACES[relation](n, whole) if _says(text, words)] for n in nodes]


def _clause(relation: str, words: Sequence[str], good: Sequence[Node]) -> dict[str, Any] | None:
    """The relation saying `words`, as ast-grep writes it for every valid match (each reaches a place saying
    them): around it, the nearest constructs so; after or before it, from the statement it stands in."""
    reach = _reached(good, relation, words)
    if not all(reach):
        return None
    said: dict[str, Any] = ({"regex": _word(words[0])} if len(words) == 1 else
                            {"all": [{"regex": _word(w)} for w in words]})
    if relation == "inside":
        return {"inside": {**of_kinds(sorted({r[0] for r in reach})), **said, "stopBy": "end"}}
    stmts = [_statement(g) for g in good]
    itself = [s is g for s, g in zip(stmts, good, strict=True)]
    near = {relation: {**said, "stopBy": "end"}}
    if all(itself):
        return near
    if any(itself):
        return None  # the statement is the match in some places and around it in others
    return {"inside": {**of_kinds(sorted({s.kind for s in stmts if s is not None})), **near, "stopBy": "end"}}


def _kept(bad: Sequence[Sequence[Node]], relations: Sequence[str], words: Sequence[str]) -> bool:
    """Some match of every invalid example reaches no place saying `words` by any of the relations (a construct
    around it that says them anywhere: a word of the match itself is no condition)."""
    return all(any(not any(_reached([node], r, words, whole=True)[0] for r in relations) for node in nodes)
               for nodes in bad)


def _holds(bad: Sequence[Sequence[Node]], good: Sequence[Node], relation: str,
           words: Sequence[str]) -> dict[str, Any] | None:
    """The clause saying `words` at the relation's place, when every valid match has it and some match of every
    invalid example does not; None otherwise."""
    return _clause(relation, words, good) if _kept(bad, [relation], words) else None


def _either(bad: Sequence[Sequence[Node]], good: Sequence[Node], words: Sequence[str]) -> dict[str, Any] | None:
    """Two relations saying the same words, each on some of the valid matches (a `guard` before it, an `if`
    around it), neither on every match of an invalid example."""
    for first, second in combinations([r for r, _ in _RELATIONS], 2):
        one, two = _reached(good, first, words), _reached(good, second, words)
        if all(one) or all(two) or not all(a or b for a, b in zip(one, two, strict=True)):
            continue
        if not _kept(bad, [first, second], words):
            continue
        parts = [_clause(r, words, [g for g, hit in zip(good, reach, strict=True) if hit])
                 for r, reach in ((first, one), (second, two))]
        if all(p is not None for p in parts):
            return {"any": parts}
    return None


def _telling(bad: Sequence[Sequence[Node]], good: Sequence[Node], words: Sequence[str]) -> list[
        tuple[dict[str, Any], list[str]]]:
    """Clauses (with the words they say) every valid match meets and some match of each invalid example does not:
    per relation, all the request's words one place says on every valid match, said together; else the words one
    at a time by two relations."""
    out: list[tuple[dict[str, Any], list[str]]] = []
    for relation, _shown in _RELATIONS:
        alone = [w for w in words if _holds(bad, good, relation, [w]) is not None]
        together = [alone] if len(alone) > 1 else []
        for said in [*together, *([w] for w in alone)]:
            clause = _holds(bad, good, relation, said)
            if clause is not None:
                out.append((clause, said))
                break
    if not out:
        out = [(c, [w]) for w in words if (c := _either(bad, good, [w])) is not None]
    # More of the request's words first; then the order tried (after, before, around).
    return sorted(out, key=lambda cw: -len(cw[1]))


def conditioned_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                      valid: Sequence[Example], request: str | None, start: int) -> list[Candidate]:
    """The closest near misses that flag valid code too, each with `not` a condition the request's words name that
    every valid match meets and some match of each invalid example does not (later, earlier or around it)."""
    words = _request_words(request, valid)
    if not words:
        return []
    n = len(invalid)
    out: list[Candidate] = []
    for cand, outcome in [m for m in misses if not m[0].shape and m[0].form != KIND_ONLY][:_NEAR]:
        bad = [nodes for nodes in matched(outcome, invalid, 0) if nodes]
        good = [node for nodes in matched(outcome, valid, n) for node in nodes]
        if len(bad) < n or not good:
            continue
        for clause, said in _telling(bad, good, words)[:_PER_MISS]:
            rule = {"all": [cand.body["rule"], {"not": clause}]}
            note = (f"flags it unless {' and '.join(f'`{w}`' for w in said)}, which the request names, is said "
                    "where every valid example says it; lets through the same words anywhere else")
            body = {**cand.body, "rule": rule}
            out.append(Candidate(body, cand.gen, INSIDE_TEXT, start + len(out), note, anchored=cand.anchored,
                                 read=requested.words_read(body, request)))
            if len(out) >= _FORMS:
                return out
    return out
