"""What actually differs between the closest invalid and valid examples, for honest "no rule" answers (issue 29,
part 4): the tokens each has where the other has something else, quoted as they are written, and the rule form
that would say it. Text is only named when it occurs in its example and not in the other one.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from sgtools.rules.draft import snip
from sgtools.workflows.suggest.generalise import incidental
from sgtools.workflows.suggest.tree import Example, Node

_MAX_PARTS = 3


def _tokens(example: Example) -> list[Node]:
    return [n for n in example.nodes() if not n.children and n.text.strip() and n is not example.root]


def _span(example: Example, nodes: Sequence[Node]) -> str:
    if not nodes:
        return ""
    data = example.code.encode("utf-8")
    return data[nodes[0].start:nodes[-1].end].decode("utf-8", "replace").strip()


def closest(invalid: Sequence[Example], valid: Sequence[Example]) -> tuple[Example, Example] | None:
    """The invalid and valid example that share the most tokens."""
    best: tuple[float, Example, Example] | None = None
    for bad in invalid:
        for good in valid:
            ratio = SequenceMatcher(a=[n.text for n in _tokens(bad)], b=[n.text for n in _tokens(good)],
                                    autojunk=False).ratio()
            if best is None or ratio > best[0]:
                best = (ratio, bad, good)
    return None if best is None else (best[1], best[2])


def _same_up_to_names(a: Sequence[Node], b: Sequence[Node]) -> bool:
    def shape(ns: Sequence[Node]) -> list[str]:
        return ["<name>" if incidental(n, 2) else n.text for n in ns]
    return len(a) == len(b) and shape(a) == shape(b)


def describe(bad: Example, good: Example) -> str:
    """The differences, as `invalid_examples[i] has `x` where valid_examples[j] has `y``; '' when none shows."""
    a, b = _tokens(bad), _tokens(good)
    if _same_up_to_names(a, b):
        names = [(x.text, y.text) for x, y in zip(a, b, strict=True) if x.text != y.text][:2]
        shown = ", ".join(f"`{x}` / `{y}`" for x, y in names)
        return (f"invalid_examples[{bad.index}] and valid_examples[{good.index}] are the same code up to names "
                f"({shown}), so what tells them apart is outside the code shown (types, imports, runtime values): "
                "add the code that makes them different to the examples")
    parts: list[str] = []
    matcher = SequenceMatcher(a=[n.text for n in a], b=[n.text for n in b], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        x, y = _span(bad, a[i1:i2]), _span(good, b[j1:j2])
        x = x if x and x not in good.code else ""
        y = y if y and y not in bad.code else ""
        if x and y:
            parts.append(f"invalid_examples[{bad.index}] has `{snip(x)}` where valid_examples[{good.index}] has "
                         f"`{snip(y)}`")
        elif x:
            parts.append(f"invalid_examples[{bad.index}] has `{snip(x)}` (valid_examples[{good.index}] has not)")
        elif y:
            parts.append(f"valid_examples[{good.index}] has `{snip(y)}` (invalid_examples[{bad.index}] has not)")
        if len(parts) == _MAX_PARTS:
            break
    if not parts:
        return ""
    return ("They differ here: " + "; ".join(parts) + ". A rule says such a difference with `has` / `not: has` "
            "on that node (`stopBy: end`), a `regex` on a name, or `inside` / `not: inside` for where it sits")


def kinds_of(invalid: Sequence[Example]) -> str:
    """What each invalid example is, by its first construct's kind (`a call_expression`, `a type_conversion...`)."""
    parts = []
    for e in invalid:
        top = next((c for c in e.root.children if c.named and "comment" not in c.kind), None)
        while top is not None and len(top.named_children()) == 1 and top.named_children()[0].text == top.text:
            top = top.named_children()[0]
        if top is not None:
            parts.append(f"invalid_examples[{e.index}] is a `{top.kind}` (`{snip(top.text)}`)")
    return "; ".join(parts)
