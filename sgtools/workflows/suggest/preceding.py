"""Declarations told apart by the comment written before them (issue 29): every valid one is preceded by a comment
that opens with the same marker (Rust's `///`, Javadoc's `/**`) and no invalid one is, whatever the comments say,
so the rule says `not: follows` a comment opening with that marker, looking back past attributes and other comments
(`stopBy`): `pub fn` not preceded by a `///` line, `#[inline]` between them or not."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import matched
from sgtools.workflows.suggest.candidates import ARGUMENT, PINNED, PLAIN, TYPED, Candidate
from sgtools.workflows.suggest.sequence import in_sequence
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_NEAR = 12  # the best plain patterns among the near misses, looked at
_BETWEEN = re.compile(r"comment|attribute|annotation|decorator")  # what stands between a comment and its item
# Attribute kinds that stand as siblings before an item, which an author skips though no example shows one.
_ATTRIBUTES = {"rust": ("attribute_item",)}
_OPENER = re.compile(r"[^\w\s]+")


def _declaration(node: Node) -> Node | None:
    """The node itself where it stands in a sequence, else its parent there (the item around `pub`)."""
    if in_sequence(node):
        return node
    up = node.parent
    return up if up is not None and in_sequence(up) else None


def before(decl: Node) -> list[Node]:
    """The comments and attributes right before `decl`, nearest first."""
    kin = [c for c in decl.parent.children if c.named] if decl.parent is not None else []
    at = next((i for i, c in enumerate(kin) if c is decl), 0)
    run: list[Node] = []
    for c in reversed(kin[:at]):
        if not _BETWEEN.search(c.kind):
            break
        run.append(c)
    return run


def _marker_regex(runs: Sequence[list[Node]]) -> tuple[str, str] | None:
    """(comment kind, regex) for the opener every run holds a comment starting with (`///`, `/**`), the longest."""
    shared: set[tuple[str, str]] | None = None
    for run in runs:
        openers = {(c.kind, m.group(0)) for c in run if "comment" in c.kind and (m := _OPENER.match(c.text))}
        shared = openers if shared is None else shared & openers
    if not shared:
        return None
    kind, opener = max(shared, key=lambda s: (len(s[1]), s))
    if len(opener) < 2:
        return None
    return kind, f"^{re.escape(opener)}([^{re.escape(opener[-1])}]|$)"


def _said(cand: Candidate, node: Node, decl: Node) -> dict[str, Any]:
    """The near miss said on the declaration: its own rule where it matched the declaration, else the declaration's
    kind holding it (a modifier by its word standing alone among others: `public` of `@Override public`, not
    `pub(crate)`)."""
    rule: dict[str, Any] = cand.body["rule"]
    if node is decl:
        return rule
    word = re.fullmatch(r"\w+", node.text) is not None and not node.named_children()
    held = {"kind": node.kind, "regex": rf"(^|\s){re.escape(node.text)}(\s|$)"} if word else rule
    return {"kind": decl.kind, "has": held}


def _decls(outcome: Outcome, examples: Sequence[Example], offset: int) -> list[tuple[Node, Node]] | None:
    out = []
    for found in matched(outcome, examples, offset):
        for node in found:
            decl = _declaration(node)
            if decl is None:
                return None
            out.append((node, decl))
    return out


def doc_comment_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                      valid: Sequence[Example], start: int, language: str) -> list[Candidate]:
    """A pattern (among the best near misses) whose valid matches all stand after a comment opening with one marker
    and whose invalid ones none: `not: follows` such a comment, skipping attributes and comments between."""
    n = len(invalid)
    plain = [m for m in misses if m[0].form in (PLAIN, TYPED, PINNED)][:_NEAR]
    for cand, outcome in plain:
        good, bad = _decls(outcome, valid, n), _decls(outcome, invalid, 0)
        if not good or not bad or len({d.kind for _, d in good + bad}) != 1:
            continue
        marker = _marker_regex([before(d) for _, d in good])
        if marker is None or any(re.search(marker[1], c.text) for _, d in bad for c in before(d)
                                 if c.kind == marker[0]):
            continue
        said = _said(cand, *bad[0])
        skipped = sorted({c.kind for _, d in good + bad for c in before(d)} | {marker[0]}
                         | set(_ATTRIBUTES.get(language, ())))
        follows = {"kind": marker[0], "regex": marker[1], "stopBy": {"not": {"any": [{"kind": k} for k in skipped]}}}
        rule = {"all": [said, {"not": {"follows": follows}}]}
        opener = marker[1][1:].split("(")[0].replace("\\", "")
        note = (f"flags it unless a comment opening with `{opener}` comes before it (past attributes and other "
                "comments); lets through any text in that comment")
        return [Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start, note)]
    return []
