"""Near misses told apart by the statement written right after (or right before) them (issue 29): every valid
match is followed by the same statement and no invalid one is, so the rule says "not followed by it" with
ast-grep's `precedes` (`follows` for the one before), and writes that statement with the near miss's own
metavariables where it repeats what they matched: `free($A);` with `not: precedes: {pattern: $A = NULL;}`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgtools.engine.captures import captures
from sgtools.workflows.suggest.author import matched
from sgtools.workflows.suggest.candidates import ARGUMENT, PINNED, PLAIN, TYPED, Candidate
from sgtools.workflows.suggest.generalise import apply_edits
from sgtools.workflows.suggest.roots import part_kind
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_MAX_FORMS = 4  # candidates at most: one near miss in each direction is usually all there is
_NEAR = 12  # the best plain patterns among the near misses, looked at
# (relation, which sibling, how the note says it)
_SIDES = (("precedes", 1, "right after"), ("follows", -1, "right before"))


def in_sequence(node: Node) -> bool:
    """A statement among others: a child of a block or a statement list (or of the file itself)."""
    up = node.parent
    return up is not None and (up.parent is None or part_kind(up.kind))


def _sibling(node: Node, step: int) -> tuple[Node, str | None] | None:
    """The named, non-comment node next to `node` in its sequence (`step` 1: after it, -1: before it), and the kind
    of the statement wrapping `node` alone (Go's `expression_statement` around a call), if that is what stands in
    the sequence; None when nothing stands there."""
    wrapper = None
    up = node.parent
    if up is not None and not in_sequence(node) and up.named_children() == [node]:
        node, wrapper = up, up.kind
    if node.parent is None or not in_sequence(node):
        return None
    kin = [c for c in node.parent.children if c.named and "comment" not in c.kind]
    at = next((i for i, c in enumerate(kin) if c is node), None)
    if at is None or not 0 <= at + step < len(kin):
        return None
    return kin[at + step], wrapper


def _written(node: Node, captured: Mapping[str, str]) -> tuple[str, bool]:
    """`node`'s text with each outermost part that repeats what a metavariable captured written as it (`$A`), and
    whether any did."""
    by_text = {text: name for name, text in captured.items() if text.strip()}
    edits: list[tuple[int, int, str]] = []
    for d in node.walk():
        name = by_text.get(d.text)
        if name is None or not d.named or any(s <= d.start < e for s, e, _ in edits):
            continue
        edits.append((d.start, d.end, f"${name}"))
    return " ".join(apply_edits(node, edits, dedent=False).split()), bool(edits)


def _captures(match: Mapping[str, Any]) -> dict[str, str]:
    return {name: str(v.get("text", "")) for name, v in captures(match)[0].items()}


def _neighbour(outcome: Outcome, examples: Sequence[Example], offset: int,
               step: int) -> list[tuple[str, bool, str | None]] | None:
    """For every match in `examples`, its neighbour statement written with the match's metavariables, whether one
    stands in it, and the statement kind wrapping the match (if any); None when some match has no neighbour."""
    written: list[tuple[str, bool, str | None]] = []
    nodes = matched(outcome, examples, offset)
    for i, found in enumerate(nodes):
        for node, match in zip(found, outcome.hits[offset + i], strict=False):
            near = _sibling(node, step)
            if near is None:
                return None
            written.append((*_written(near[0], _captures(match)), near[1]))
    return written


def neighbour_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                    valid: Sequence[Example], start: int) -> list[Candidate]:
    """A pattern (among the best near misses) that flags valid code too, where every valid match has the same
    statement right after it (or right before it), written the same way once its metavariables stand in it, and
    no invalid match has that statement there: `not: precedes` (`not: follows`) that statement."""
    out: list[Candidate] = []
    n = len(invalid)
    done: set[int] = set()  # one form per generalised root: a constrained copy of it says the same
    plain = [m for m in misses if m[0].form in (PLAIN, TYPED, PINNED)][:_NEAR]
    for cand, outcome in plain:
        if not isinstance(cand.body["rule"].get("pattern"), str) or id(cand.gen) in done:
            continue
        for relation, step, shown in _SIDES:
            fine = _neighbour(outcome, valid, n, step)
            if not fine or len(set(fine)) != 1 or not fine[0][1]:
                continue  # one statement, repeating what the pattern matched (`$A = NULL;` after `free($A);`)
            said, _bound, wrapper = fine[0]
            if said in {text for text, _, _ in _neighbour(outcome, invalid, 0, step) or []}:
                continue
            neighbour: dict[str, Any] = {relation: {"pattern": said}}
            if wrapper is not None:  # the statement around the match is what has a neighbour
                neighbour = {"inside": {"kind": wrapper, **neighbour}}
            rule = {"all": [cand.body["rule"], {"not": neighbour}]}
            note = (f"flags it unless `{said}` comes {shown} it; lets through the same fix written another way "
                    "or a statement later")
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note))
            done.add(id(cand.gen))
            if len(out) == _MAX_FORMS:
                return out
    return out
