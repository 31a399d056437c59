"""`any` of each invalid example's own rule, when the invalid examples share nothing that separates them.

"No `eval` or `new Function`", "no `binding.pry` or `byebug`": the developer names two things and the examples
show each once, as different constructs. An ast-grep author writes `any:` of a rule per thing. Tried only when
no rule flags every invalid example and no valid one, or when the best that does is a whole function or a
literal `not` of valid code: each invalid example gets its own search against all the valid examples (same
forms, same ranking), and its best rule joins the `any` only if it says the example's own construct in general
terms: the most relaxed pattern, a kind, a name regex, a comment word or a bare name; never a telling child
(which copies the example's text), a context, a literal `not`, code a valid example also shows, or a
construct holding a statement a valid example has. When
one example has no such rule there is no union. Metavariables of the later parts are renamed (`$A` -> `$A_2`)
so that each part's constraints stay its own.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import (
    COMMENT,
    CONTEXT,
    CONTEXT_TYPED,
    FIELD,
    KIND_ONLY,
    LEAF_KIND,
    MODIFIER,
    PINNED,
    PLAIN,
    TYPED,
    UNION,
    Candidate,
)
from sgtools.workflows.suggest.generalise import LEVELS
from sgtools.workflows.suggest.tree import Example, Node

_META = re.compile(r"\$(\$\$)?([A-Z][A-Z0-9_]*)")
# A call's pattern, a kind, a name regex, a comment word, a modifier word: the construct itself. Not a telling
# child (it copies the example's text: `has: {regex: ^\(f"user \{uid\}"\)$}`), a type by name (the example's
# own type), a context or a `not`.
_PATTERNS = frozenset({PLAIN, TYPED, PINNED, CONTEXT, CONTEXT_TYPED})
_FORMS = frozenset({*_PATTERNS, KIND_ONLY, FIELD, COMMENT, MODIFIER})
_STATEMENT = re.compile(r"statement|call|invocation")
LAST_TIER = 8  # a whole function, a literal `not`: what a union is tried before
_WEAK_TIER = 4  # keywords only, a whole function, a name with no call: no part of a union


def _rename(value: Any, suffix: str) -> Any:
    """Every metavariable in a part's patterns and contexts, with the part's suffix."""
    if isinstance(value, dict):
        return {k: (_META.sub(lambda m: f"${m.group(1) or ''}{m.group(2)}{suffix}", v)
                    if k in ("pattern", "context") and isinstance(v, str) else _rename(v, suffix))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, suffix) for v in value]
    return value


def _general(cand: Candidate, fine: set[tuple[str, str]]) -> bool:
    """The example's own construct in general terms (see the module's doc)."""
    if cand.form == LEAF_KIND and cand.bare:
        # A bare name by kind and regex (`identifier` `^byebug$`), as its plain pattern would be; not the name a
        # declaration gives (a method's own name, `Save`), which is what the example happened to call it.
        return not cand.gen.shadowed and cand.gen.root.role != "name"
    if cand.form not in _FORMS or cand.gen.shadowed or cand.keyword_only():
        return False
    if cand.leaf and (cand.form != PLAIN or not cand.gen.root.kind.endswith("identifier")):
        return False  # a bare name (`byebug`), not a token picked out of the example (`mut`, a type)
    if cand.form in _PATTERNS and not (cand.leaf or _named_call(cand.gen.root)):
        return False  # `catch (std::exception $A)`: a pattern of a construct keeps the example's own types
    if cand.form in _PATTERNS and cand.gen.level != LEVELS[0] and not cand.leaf:
        return False  # a pattern that keeps the example's values (`logger.info(f"user {uid}")`) is that example
    if _holds_fine(cand, fine):
        return False
    return cand.leaf or cand.tier() < _WEAK_TIER


def _holds_fine(cand: Candidate, fine: set[tuple[str, str]]) -> bool:
    """`def show byebug render :show end`: holds code a valid example has. A call by its name keeps none of what it
    holds (`"<b>#{@page.title}</b>".html_safe` beside `tag(@page.title)`): its name is the point."""
    return cand.form != FIELD and any(d is not cand.gen.root and d.named and not d.atomic
                                      and _STATEMENT.search(d.kind) and (d.kind, d.text) in fine
                                      for d in cand.gen.root.walk())


def _named_call(node: Node) -> bool:
    """A call or a `new` of a name (`eval(...)`, `new Function(...)`, `binding.pry`): the thing named."""
    return any(w in node.kind for w in ("call", "invocation", "macro", "new_expression", "object_creation")) or any(
        c.role in ("function", "method", "macro", "callee", "constructor") for c in node.children)


def best_part(passing: Sequence[Candidate], valid: Sequence[Example]) -> Candidate | None:
    """The best of one invalid example's own rules (`passing`, best first) that says it in general terms."""
    fine = {(n.kind, n.text) for e in valid for n in e.nodes()}
    usable = [c for c in passing if _general(c, fine)]
    constructs = [c for c in usable if not c.leaf]
    found = constructs or usable
    return found[0] if found else None


def joined(parts: Sequence[Candidate]) -> Candidate:
    """One candidate: `any` of the parts' rules, their constraints merged under renamed metavariables."""
    rules: list[Any] = []
    constraints: dict[str, Any] = {}
    for n, part in enumerate(parts):
        suffix = "" if n == 0 else f"_{n + 1}"
        body = copy.deepcopy(part.body) if n == 0 else _rename(copy.deepcopy(part.body), suffix)
        rules.append(body["rule"])
        for name, rule in body.get("constraints", {}).items():
            constraints[f"{name}{suffix}"] = rule
    out: dict[str, Any] = {"rule": {"any": rules}}
    if constraints:
        out["constraints"] = constraints
    note = (f"`any` of {len(parts)} rules, one per invalid example: the examples share no construct that tells them "
            "from the valid ones, so each is said on its own; flags each construct shown wherever it is; lets "
            "through a further construct of the same family that no example shows")
    return Candidate(body=out, gen=parts[0].gen, form=UNION, root_index=-1, note=note)
