"""Separating near misses with `not`/`inside`, and saying why no rule could separate the examples."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sgtools.rules.draft import snip
from sgtools.workflows.suggest import contexts, difference
from sgtools.workflows.suggest.candidates import EXCLUDE, INSIDE, Candidate, of_kinds, own_context
from sgtools.workflows.suggest.roots import part_kind
from sgtools.workflows.suggest.tree import Example
from sgtools.workflows.suggest.verify import Outcome

_MAX_NOT_CHARS = 80  # a longer exclusion is a copy of a valid example, not a construct
_MAX_NOT = 3  # literal exclusions a `not` clause may list before it is just a list of the valid examples


def _normal(code: str) -> str:
    return re.sub(r"\s+", " ", code).strip()


def identical(invalid: Sequence[str], valid: Sequence[str]) -> str | None:
    """An invalid and a valid example with the same code (up to whitespace) cannot be told apart."""
    for i, code in enumerate(invalid):
        for j, other in enumerate(valid):
            if _normal(code) == _normal(other):
                return (f"invalid_examples[{i}] and valid_examples[{j}] are the same code (`{snip(code)}`), "
                        "so they have the same syntax tree and no rule can flag one and not the other. Remove one "
                        "of them, or make the valid example show what is different about correct code.")
    return None


def _ancestor_kinds(example: Example, match: Mapping[str, Any]) -> set[str]:
    offsets = match.get("range", {}).get("byteOffset", {})
    node = example.covering(int(offsets.get("start", 0)), int(offsets.get("end", 0)))
    return {a.kind for a in node.ancestors()} if node is not None else set()


def _inside(cand: Candidate, outcome: Outcome, invalid: Sequence[Example], valid: Sequence[Example]) -> list[
        Candidate]:
    n = len(invalid)
    per_match = [[_ancestor_kinds(e, m) for m in outcome.hits[i]] for i, e in enumerate(invalid)]
    # Inside K: every invalid example has some match inside K (`return 0;` in a `finally`, beside a `return g();`
    # in the `try`). Not inside K: every invalid example has some match outside it.
    bad = [set.intersection(*found) for found in per_match]
    some = [set.union(*found) for found in per_match]
    good = [_ancestor_kinds(e, m) for j, e in enumerate(valid) for m in outcome.hits[n + j]]
    if not bad or not good:
        return []
    bad_all, bad_any = set.intersection(*some), set.union(*bad)
    good_all, good_any = set.intersection(*good), set.union(*good)
    out = []
    for base, by_kind in contexts.bases(cand):
        for kind in sorted(bad_all - good_any, key=_context_order):
            rule = {"all": [base, {"inside": {"kind": kind, "stopBy": "end"}}]}
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, INSIDE, cand.root_index,
                                 f"only inside a `{kind}`, which the valid examples' matches are not in",
                                 by_kind=by_kind, anchored=cand.anchored))
        for kind in sorted(good_all - bad_any, key=_context_order):
            rule = {"all": [base, {"not": {"inside": {"kind": kind, "stopBy": "end"}}}]}
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, INSIDE, cand.root_index,
                                 f"not inside a `{kind}`, where the valid examples' matches are", by_kind=by_kind,
                                 anchored=cand.anchored))
    # The enclosing constructs of their own (`with_statement`, `for_statement`, `finally_clause`) first, from
    # either side: an assignment or an argument list around the invalid code is where it happened to be.
    ranked = sorted(out, key=lambda c: not own_context(_context_kind(c)))
    return ([c for c in ranked if c.by_kind][:2] + [c for c in ranked if not c.by_kind][:2]
            + _parent_forms(cand, outcome, invalid, valid))


def _parent(example: Example, match: Mapping[str, Any]) -> tuple[str, str] | None:
    """The kind of the node right around a match and the field the match is in ('' for none); None at the top."""
    offsets = match.get("range", {}).get("byteOffset", {})
    node = example.covering(int(offsets.get("start", 0)), int(offsets.get("end", 0)))
    if node is None or node.parent is None or node.parent.parent is None:
        return None
    return node.parent.kind, node.role or ""


def _parents(example: Example, hits: Sequence[Mapping[str, Any]]) -> set[tuple[str, str]]:
    return {p for m in hits if (p := _parent(example, m)) is not None}


def _parent_kinds(outcome: Outcome, invalid: Sequence[Example], valid: Sequence[Example]) -> tuple[list[str], str]:
    """The kinds right around some match in every invalid example and around no valid match, with the one field
    the matches are all in; ([], '') when there are none, they are parts (a block, a list) or no field is shared."""
    n = len(invalid)
    bad = [_parents(e, outcome.hits[i]) for i, e in enumerate(invalid)]
    good = {k for j, e in enumerate(valid) for k, _ in _parents(e, outcome.hits[n + j])}
    kinds = sorted({k for ps in bad for k, _ in ps} - good)
    if not kinds or len(kinds) > _MAX_NOT or not all({k for k, _ in ps} & set(kinds) for ps in bad):
        return [], ""
    if any(part_kind(k) for k in kinds):
        return [], ""
    roles = {r for ps in bad for k, r in ps if k in kinds}
    # In one named place of its parent (an assignment's `right`, a declaration's `type`); the operand of one node
    # and the value of another (`+`, `return`) is only where the code happened to be.
    return (kinds, roles.pop()) if len(roles) == 1 and "" not in roles else ([], "")


def _parent_forms(cand: Candidate, outcome: Outcome, invalid: Sequence[Example],
                  valid: Sequence[Example]) -> list[Candidate]:
    """The construct as a direct part of a kind of node no valid match is a direct part of (a `lambda` as an
    `assignment`'s value beside one passed as a keyword argument; `Optional<T>` as the type of a
    `field_declaration` or a `formal_parameter` beside a method's return type): `inside` that kind without
    `stopBy`, so the same construct deeper in such a node (a lambda in a dict that is assigned) is not flagged."""
    kinds, role = _parent_kinds(outcome, invalid, valid)
    if not kinds:
        return []
    inside: dict[str, Any] = of_kinds(kinds)
    inside["field"] = role
    where = " or ".join(f"`{k}`" for k in kinds)
    part = f"the `{role}` of a {where}"
    return [Candidate({**cand.body, "rule": {"all": [base, {"inside": inside}]}}, cand.gen, INSIDE, cand.root_index,
                      f"only as {part} itself, which no valid example's match is; lets it through deeper inside one",
                      by_kind=by_kind) for base, by_kind in contexts.bases(cand)]


def _context_order(kind: str) -> tuple[bool, bool, str]:
    """Statements and their clauses first (`with_statement` before its `as_pattern`), then other constructs of
    their own."""
    return not own_context(kind), "statement" not in kind and not kind.endswith("_clause"), kind


def _context_kind(cand: Candidate) -> str:
    clause = cand.body["rule"]["all"][-1]
    return str((clause.get("inside") or clause.get("not", {}).get("inside") or {}).get("kind", ""))


def exclusions(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
               valid: Sequence[Example]) -> list[Candidate]:
    """For candidates that also flag valid code: exclude those exact constructs, or constrain the context."""
    n = len(invalid)
    out: list[Candidate] = []
    for cand, outcome in misses:
        texts = list(dict.fromkeys(str(m.get("text", "")) for hits in outcome.hits[n:] for m in hits))
        if texts and len(texts) <= _MAX_NOT and all(t.strip() and "\n" not in t and len(t) <= _MAX_NOT_CHARS
                                                   for t in texts):
            rule = {"all": [cand.body["rule"], {"not": {"any": [{"pattern": t} for t in texts]}}]}
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, EXCLUDE, cand.root_index,
                                 "`not` excludes the construct the valid examples use"))
        out.extend(_inside(cand, outcome, invalid, valid))
    return out


def _contained(invalid: Sequence[Example], valid: Sequence[Example]) -> str | None:
    """When the shortest invalid example's code all occurs in a valid example, say which and where."""
    pivot = min(invalid, key=lambda e: (len(e.code), e.index))
    for j, other in enumerate(valid):
        there = {(n.kind, n.text) for n in other.nodes()}
        tops = [c for c in pivot.root.children if c.named and c.kind != "comment"]
        if tops and all((c.kind, c.text) in there for c in tops):
            told = difference.describe(pivot, other)
            return (f"valid_examples[{j}] cannot be separated from invalid_examples[{pivot.index}]: all of its code "
                    f"(`{snip(tops[0].text)}`) occurs unchanged in the valid example, so a rule made from "
                    "it would flag the valid example too. " + (f"{told}. " if told else "")
                    + "Show in the invalid example what makes it wrong.")
    return None


def why_none(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example], valid: Sequence[str],
             had_roots: bool, valid_trees: Sequence[Example] = ()) -> str:
    """Which example could not be separated, and why."""
    return _parse_note(invalid) + _why_none(tried, invalid, valid, had_roots, valid_trees)


def _parse_note(invalid: Sequence[Example]) -> str:
    """Broken code parses into ERROR nodes that no two examples share: say so before anything else."""
    for example in invalid:
        bad = [n for n in example.nodes() if n.kind == "ERROR" or n.kind.startswith("MISSING")]
        if bad:
            line = example.code.encode("utf-8")[:bad[0].start].count(b"\n") + 1
            return (f"invalid_examples[{example.index}] does not parse cleanly ({bad[0].kind} at line {line}); "
                    "complete the code so it parses. ")
    return ""


def _why_none(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example], valid: Sequence[str],
              had_roots: bool, valid_trees: Sequence[Example]) -> str:
    n = len(invalid)
    contained = None if had_roots else _contained(invalid, valid_trees)
    if contained is not None:
        return contained
    pair = difference.closest(invalid, valid_trees)
    told = difference.describe(*pair) if pair is not None else ""
    if not had_roots:
        kinds = difference.kinds_of(invalid)
        return ("The invalid examples share no construct ast-grep could match: no node kind appears, with some "
                f"code in common, in all of them ({kinds}). " + (f"{told}. " if told else "")
                + "Give examples that show the same construct, or split them into separate requests (one rule "
                "per construct).")
    covering = sorted(((c, o) for c, o in tried if not o.refused and all(o.hits[i] for i in range(n))),
                      key=lambda co: co[0].key())
    if not covering:
        return ("No candidate matched every invalid example: what they share could not be written as one "
                f"pattern that ast-grep reads the same way in each ({difference.kinds_of(invalid)}). "
                + (f"{told}. " if told else "") + "Make the examples show the same construct, or split them into "
                "separate requests.")
    near = [(c, o) for c, o in covering if any(o.hits[n:])]
    if not near:  # every one that flags them all separates, but only by the examples' shape: never proposed
        return ("Only the examples' shape told them apart (node kinds, without a name or word they write), too "
                "broad to propose as a rule. " + (f"{told}. " if told else "") + "Give examples that write the "
                "code the rule is about, or name it in the request.")
    return _inseparable(near, n, len(valid), told)


def _inseparable(near: Sequence[tuple[Candidate, Outcome]], n: int, n_valid: int, told: str) -> str:
    """The valid example every near miss (best first) flags, else the best one's first, and the closest."""
    cand, outcome = near[0]
    flagged = [j for j in range(n_valid) if outcome.hits[n + j]]
    always = [j for j in range(n_valid) if all(o.hits[n + j] for _c, o in near)]
    j = (always or flagged)[0]
    text = str(outcome.hits[n + j][0].get("text", ""))
    return (f"valid_examples[{j}] cannot be separated from the invalid examples: every candidate that flags all "
            f"invalid examples also flags it (the closest, `{snip(cand.gen.pattern)}`, matches "
            f"`{snip(text)}` there), and no `not`, `inside` or constraint tried told them apart. "
            + (f"{told}." if told else "Their code shows no difference a rule can name: add the code that makes "
               "them different to the examples."))
