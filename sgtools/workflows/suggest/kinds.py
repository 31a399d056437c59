"""What every node of a kind shares beyond its kind (author.py's kind alone, issue 29): the operator token it
starts or ends with (`x!!`, not `i++`), the keywords it opens with (`#pragma warning disable`), the construct it
holds in one field (`not_operator` whose argument is a comparison)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.workflows.suggest.candidates import specific
from sgtools.workflows.suggest.roots import part_kind
from sgtools.workflows.suggest.tree import Example

_OPERATOR = re.compile(r"[!+\-*/%<>=&|^~?]+")


def shared_operator(kind: str, invalid: Sequence[Example]) -> str | None:
    """The operator token every node of `kind` starts or ends with (`!!` of `user!!`), as a regex on the node,
    when it is the same in every one: a kind may take several (`!!`, `++`, `--`)."""
    ends: set[str] = set()
    for e in invalid:
        for n in e.nodes():
            if n.kind != kind:
                continue
            first, last = n.children[0] if n.children else None, n.children[-1] if n.children else None
            ops = [f"^{re.escape(c.text)}" if c is first else f"{re.escape(c.text)}$" for c in (first, last)
                   if c is not None and not c.named and _OPERATOR.fullmatch(c.text) and len(n.children) > 1]
            if len(ops) != 1:
                return None
            ends.add(ops[0])
    return ends.pop() if len(ends) == 1 else None


def shared_words(kind: str, invalid: Sequence[Example]) -> str | None:
    """The keywords a node of `kind` opens with in every invalid example, two or more, one of them not already
    said by the kind's name (`#pragma warning disable`, not `#pragma warning restore`; not `extern crate`, which
    `extern_crate_declaration` says), as a regex on the node."""
    per: list[set[tuple[str, ...]]] = []
    for e in invalid:
        heads: set[tuple[str, ...]] = set()
        for n in e.nodes():
            if n.kind == kind and n.named and n.children:
                words: list[str] = []
                for c in n.children:
                    if c.named or not re.fullmatch(r"#?[A-Za-z_]\w*", c.text):
                        break
                    words.append(c.text)
                heads.add(tuple(words))
        per.append(heads)
    shared = set.intersection(*per) if per else set()
    named = set(kind.split("_"))
    told = [h for h in shared if len(h) >= 2 and any(w.lstrip("#") not in named for w in h)]
    if len(told) != 1:
        return None
    head = told[0]
    return ("" if head[0].startswith("#") else r"\b") + r"\s+".join(map(re.escape, head)) + r"\b"


def shared_parts(kind: str, invalid: Sequence[Example]) -> list[tuple[str, str]]:
    """The fields every node of `kind` fills with a construct of the same kind (`not_operator`'s argument a
    `comparison_operator`, `unless` with an `else` alternative): what the invalid nodes share beyond their kind.
    Only constructs of their own: names, literals and building blocks there (a call, a subscript, an argument
    list) are what the examples happened to write."""
    shared: set[tuple[str, str]] | None = None
    for e in invalid:
        for n in e.nodes():
            if n.kind == kind and n.named and n.children:
                held = {(c.role, c.kind) for c in n.children if c.role and c.named and not c.atomic and c.children
                        and specific(c.kind) and not part_kind(c.kind)}
                shared = held if shared is None else shared & held
    return sorted(shared or ())


def _edge_tokens(kind: str, examples: Sequence[Example], at: int) -> set[str | None]:
    """The token each node of `kind` opens (`at` 0) or closes (`at` -1) with; None for a node that opens or
    closes with a named child (a name, an expression) instead."""
    out: set[str | None] = set()
    for e in examples:
        for n in e.nodes():
            if n.kind == kind and n.named and len(n.children) > 1:
                edge = n.children[at]
                out.add(None if edge.named or not edge.text.strip() else edge.text)
    return out


def spelled_token(kind: str, invalid: Sequence[Example], valid: Sequence[Example]) -> tuple[str, str] | None:
    """A kind the valid examples write too, told apart by the token every invalid node of it opens with (else
    closes with) and no valid one does: a backtick command substitution beside `$(...)`, `[ ... ]` beside `[[ ...
    ]]`, `array(...)` beside `[...]`. A regex on the node; one that stops the token where a valid one goes on
    (`^\\[([^\\[]|$)`: not `[[`). The token and the regex."""
    for at in (0, -1):
        mine, theirs = _edge_tokens(kind, invalid, at), _edge_tokens(kind, valid, at)
        token = next(iter(mine)) if len(mine) == 1 else None
        if token is None or not theirs or token in theirs:
            continue
        # The character after (before) the token in a valid one that goes on from it (`[[` from `[`).
        longer = sorted({(t[len(token)] if at == 0 else t[-len(token) - 1]) for t in theirs if t is not None
                         and len(t) > len(token) and (t.startswith(token) if at == 0 else t.endswith(token))})
        word = r"\b" if re.fullmatch(r"\w+", token) else ""
        if at == 0:
            rest = f"([^{re.escape(''.join(longer))}]|$)" if longer else word
            return token, f"^{re.escape(token)}{rest}"
        return token, (f"(^|[^{re.escape(''.join(longer))}])" if longer else word) + f"{re.escape(token)}$"
    return None
