"""Candidate rules from the invalid examples' trees, in the forms ast-grep offers, each with a sort key.

Each generalised root (roots.py) is written as a bare pattern, a pattern with `kind` or `regex` constraints, a
`context`/`selector` pattern (when the bare text is misread) or `kind` + `has`; `Candidate.key` ranks them all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sgtools.workflows.suggest.generalise import LEVELS, Generalised
from sgtools.workflows.suggest.roots import PART_KINDS, part_kind
from sgtools.workflows.suggest.tree import Node

_CALLEE_ROLES = ("function", "callee", "constructor", "object", "operand", "receiver")
# Forms, in order of preference (simplest first).
PLAIN, TYPED, PINNED, CONTEXT, CONTEXT_TYPED, KIND_HAS, INSIDE, EXCLUDE = range(8)
# Forms an ast-grep author writes from the kind of fact the examples share (author.py).
KIND_ONLY, COMMENT, FIELD, CHILD, ARGUMENT, INSIDE_TEXT, LEAF_KIND, MODIFIER = range(8, 16)
UNION = 16  # `any` of each invalid example's own rule, when they share nothing that separates them (union.py)
DECLARED = 17  # a declaration by its name (declnames.py) or its declared type (decltypes.py)
REQUESTED = 18  # the code the request names, every use of it (requested.py)
TYPE_ROLES = ("type", "returns", "return_type", "result")  # the fields a declaration's type or return type is in
FORM_NAMES = {PLAIN: "pattern", TYPED: "pattern + kind constraints", PINNED: "pattern + regex constraints",
              CONTEXT: "pattern with context/selector", CONTEXT_TYPED: "context/selector + kind constraints",
              KIND_HAS: "kind + has", EXCLUDE: "pattern + not (literal text of the valid examples)",
              INSIDE: "pattern + inside/not inside", KIND_ONLY: "node kind", COMMENT: "comment kind + regex",
              FIELD: "kind + name regex", CHILD: "kind + has (a telling child)",
              ARGUMENT: "pattern + has/not has an argument", INSIDE_TEXT: "pattern + inside (an enclosing context)",
              LEAF_KIND: "kind + regex (a type by name)", MODIFIER: "kind + has (a modifier word)",
              UNION: "any of each invalid example's own rule", DECLARED: "kind + has (a declaration's name)",
              REQUESTED: "kind + regex (the code the request names)"}
_WHOLE = re.compile(r"function|method|class|struct|impl|interface|module|namespace|program|item$")
ACCESS_KINDS = ("member", "selector", "field_access", "attribute", "navigation", "scoped")
# Kinds that are building blocks of any code (accesses, assignments, calls, arguments, operators, lambdas, lists):
# having one says nothing by itself, so `kind: K` alone is never proposed for them.
_GENERIC_WORDS = frozenset({"member", "field", "selector", "attribute", "navigation", "assignment", "argument",
                            "arguments", "lambda", "call", "invocation", "binary", "unary", "parenthesized", "list",
                            "pair", "subscript", "index", "access", "augmented", "annotated", "identifier",
                            "literal", "string", "suffix", "clause", "declarator", "type", "local"})


def of_kinds(kinds: Sequence[str]) -> dict[str, Any]:
    """The rule fragment for a node of any of the kinds: `kind: K` for one, `any` of them for more."""
    return {"kind": kinds[0]} if len(kinds) == 1 else {"any": [{"kind": k} for k in kinds]}


def specific(kind: str) -> bool:
    """A kind that names a construct of its own (`assert_statement`), not a building block (`expression_list`)."""
    return kind != "expression_statement" and not set(kind.split("_")) & _GENERIC_WORDS


# Control-flow constructs, whatever the grammar calls them (`for_expression` in Rust, `while` in Ruby).
_CONTROL = re.compile(r"(?:^|_)(?:for|foreach|while|until|loop|do|repeat|if|match|when|switch|try|with|finally|"
                      r"catch|except|rescue|ensure|else|case|unsafe|async|lock|using|synchronized)(?:_|$)")
_CLAUSE = re.compile(r"^(\w+?)_(?:clause|block)$")


def own_context(kind: str) -> bool:
    """A kind that is a context of its own for the code inside it: a statement or a control-flow construct, or a
    clause named by one (`finally_clause`, `catch_clause`, `except_clause`), not a building block."""
    if part_kind(kind):
        return False
    clause = _CLAUSE.match(kind)
    if clause is not None and _CONTROL.search(clause.group(1)):
        return True
    return specific(kind) and ("statement" in kind or bool(_CONTROL.search(kind)))


PLACED_TIER = 1.9  # a construct inside a context of its own (`_context_tier`)


@dataclass
class Candidate:
    body: dict[str, Any]  # `rule` and maybe `constraints`
    gen: Generalised
    form: int
    root_index: int  # which root (for one candidate per root)
    note: str = ""
    names_a_call: bool = False  # a telling child that is (part of) the name of a call inside the root
    within: bool = False  # a type always written in one construct the valid examples also use (`catch (T t)`)
    family: bool = False  # a name regex of an output family (`^Console\.Write(Line)?$`), wider than the names
    in_literal: bool = False  # a kind alone whose every node sits inside a string literal (an interpolation)
    open_tail: bool = False  # a trailing argument no constraint needs, written as any number of them (necessary.py)
    by_kind: bool = False  # the kind of a construct whose pattern kept only its keyword (`return $A`), in a context
    qualified: bool = False  # a leaf or a telling child naming one API with its namespace (`std::endl`)
    holds_fine: bool = False  # a kind alone whose nodes hold a statement a valid example has (`for` around `defer`)
    namesake: bool = False  # valid code writes the same names another way (`os.ReadFile`, `@Disabled("why")`)
    bare: bool = False  # a value name alone (`arguments`), by kind and regex: after all but whole functions
    namespaced: bool = False  # a call by its whole name, also written with its namespace (`System.GC.Collect`)
    compared: bool = False  # a comparison by a constant and what it is compared with (`size()` with `0`)
    operators: bool = False  # a construct by operators a valid example also writes (`==`, `!=` beside `== null`)
    phrase: bool = False  # comments by a phrase of words they all open with (`/// <reference path=`), a directive
    spread: bool = False  # a type every invalid example writes at two kinds of place (declared and constructed)
    repeated: bool = False  # a repeated metavariable said by `has` at each place (repeats.py): as its pattern
    anywhere: bool = False  # a kind held anywhere inside a call: after what the call passes at one place
    anchored: bool = False  # inside the construct every example is about (`tuple` in an `assert`): just before it
    placed: bool = False  # a kind alone inside the call the request names (placed.py): as a context of its own
    unnamed: bool = False  # a declaration by a modifier it lacks, whatever its name: after one by its name too
    shape: bool = False  # only the kinds of a construct and its field children (shapes.py): a near miss, never kept
    flag: bool = False  # a call without the flag every valid call passes (`true`): before a pattern of its arity
    lacks: bool = False  # a construct with the parts the request names, without the one it needs (lacking.py)
    argued: bool = False  # a call with the arguments the request writes (`fmt.Sprint(x)`, argued.py)
    reached: bool = False  # the name the request writes on any receiver, however reached (reached.py)
    holds: str | None = None  # a kind by the construct it holds (nested.py): that construct's kind
    counted: bool = False  # a pattern's calls with no more arguments than written (`x.first`, counted.py)
    contrast: int = 0  # the construct writing the request's words: how many of them it checks (contrast.py)
    said_place: bool = False  # its context is the one the request says (any loop for "loop", looped.py): before
    # the same code in a context only the examples show
    read: int = 0  # a near miss told apart by the request's words (conditioned.py): how many of them the rule reads

    def kept_inside(self, clause: dict[str, Any], note: str, root_index: int, *, placed: bool) -> Candidate:
        """This candidate flagged only inside `clause` (the construct, call or declaration it is a part of): the
        context-placing modules (anchor, placed, annotated) each write it so."""
        return replace(self, body={**self.body, "rule": {"all": [self.body["rule"], {"inside": clause}]}},
                       root_index=root_index, note=note, anchored=True, placed=placed)

    def keyword_only(self) -> bool:
        """A pattern that keeps only operators and keywords (`$A == $B`, `defer $A`, `$A, _`)."""
        return (self.form in (PLAIN, TYPED, PINNED) and self.gen.pinned is None
                and not any(n.text != "_" for n in kept_leaves(self.gen)))

    def loses_keyword(self) -> bool:
        """A hole over code of different shapes that all start with one keyword (`async`), with no constraint
        keeping it: keywords stay literal, and this one is what the examples agree on."""
        constraints = self.body.get("constraints", {})
        return any(h.lead is not None and not str(constraints.get(h.name, {}).get("regex", "")).startswith(
            f"^{h.lead}") for h in self.gen.holes)

    @property
    def leaf(self) -> bool:
        return self.form < KIND_ONLY and (not self.gen.root.children or self.gen.root.atomic)

    def tier(self) -> float:
        """Generality first (issue 29): a node kind or a comment word, then patterns that keep real code, then
        a telling argument, child or context, then a name regex; whole-function patterns, near-bare patterns
        and bare names after those; `not` of literal valid code last. A candidate kept inside the construct every
        example is about goes just before the same candidate alone (`key`, anchor.py); one kept inside the call the
        request names ranks as a context of its own at worst (placed.py)."""
        if self.form == EXCLUDE:
            return 9
        tier = _author_tier(self) if self.form >= KIND_ONLY or self.form == INSIDE else _pattern_tier(self)
        return min(tier, PLACED_TIER) if self.placed else tier

    def key(self) -> tuple[Any, ...]:
        if self.form >= KIND_ONLY:
            # Then the most relaxed generalisation of a near miss told apart (`print($$$ARGS)` before `print($A)`).
            return (self.tier(), not self.by_kind, -self.read, _effective_size(self.gen.root), self.form,
                    -self.gen.level, not self.anchored, not self.said_place, len(str(self.body)))
        level_rank = LEVELS.index(self.gen.level)
        # A construct whose kind the valid examples also use is what they are near misses of (`eval` beside
        # `ast.literal_eval`, `defer` in a loop beside `defer` alone); one they lack only separates by absence.
        # A literal `not` copies valid code into the rule: the last resort.
        return (self.tier(), self.leaf, self.form == EXCLUDE, not self.by_kind, not self.gen.kind_in_valid,
                _effective_size(self.gen.root), self.form >= CONTEXT, self.loses_keyword(),
                level_rank, len(self.body.get("constraints", {})), self.form, -self.gen.kept, not self.open_tail,
                not self.anchored, not self.counted, not self.said_place, len(str(self.body)))


def _author_tier(cand: Candidate) -> float:
    form, root = cand.form, cand.gen.root
    # A bare name, or a node that holds only keyword tokens (Swift's `let` binding): where the code sits.
    # A clause or statement of its own is a construct even when it holds only keywords (`catch (...) {}`).
    bare = not root.children or root.atomic or (not own_context(root.kind) and not any(
        d.named for d in root.walk() if not d.children))
    if form == INSIDE:
        return 3 if cand.leaf else _inside_tier(cand)
    if cand.flag:
        # `f($$$ARGS)` without the `true` every valid call adds: `f($A)` only counts the arguments; a name also
        # written with its namespace before the name as shown (`Swift.fatalError()`).
        return 0.85 if cand.namespaced else 0.9
    if form in (ARGUMENT, INSIDE_TEXT):
        # Where the code is wrong (`inside`) before where it is fine (`not: inside`, from the valid side).
        negated = form == INSIDE_TEXT and "not" in cand.body["rule"].get("all", [{}])[-1]
        # What a call passes at one place (its format is no literal) before a kind held anywhere inside it.
        return (2 + (1 if bare else 0) + (1.5 if cand.gen.name_hole else 0) + (0.1 if negated else 0)
                + (0.05 if cand.anywhere else 0))
    if form == CHILD:
        return _child_tier(cand)
    return _named_tier(cand)


def _child_tier(cand: Candidate) -> float:
    root = cand.gen.root
    # A JSX attribute is a name with its value (`dangerouslySetInnerHTML={...}`), not a member access.
    access = any(a in root.kind for a in ACCESS_KINDS) and not root.kind.startswith("jsx_")
    if cand.compared:
        return 0.95  # `size()` compared with `0`: the comparison is the point, before the call alone
    if cand.namesake:
        return 2.05  # `ioutil.X` beside `os.X`, `@Disabled` beside `@Disabled("why")`: what differs is the point
    if _WHOLE.search(root.kind) or access:
        return 8  # a whole function with some name in it; a member access by its receiver's name
    if _callish(root) or cand.names_a_call:
        return 3.2  # a call by some name, or a statement holding one: the name is the point (FIELD says it)
    if _an_argument(root):
        return 2.3  # `validate: false` alone: an argument is said with the call that takes it (ARGUMENT)
    if _in_arguments(root):
        return 3.7  # `&Session::on_read` passed to `std::bind`: part of the call that takes it, as a kind alone is
    # A building block (`type_annotation` with `any`) after a construct of its own with that child (`catch_clause`).
    block = 0 if specific(root.kind) or own_context(root.kind) else 0.02
    if cand.qualified:
        return 1.99 + block  # a child that is one qualified name (`context.Context`): before its parts at any depth
    return (2 if "stopBy" in str(cand.body) else 2.2) + block


def _named_tier(cand: Candidate) -> float:
    """A kind alone (with calls when every node names the same thing), a type by name, a name regex (an output
    family before the patterns that keep the one name shown), a comment word."""
    form = cand.form
    if form == KIND_ONLY:
        if cand.holds_fine:
            return 3.7
        return 3.5 if _callish(cand.gen.root) or cand.names_a_call else 2.1 if cand.in_literal else 0
    if form == LEAF_KIND:
        if cand.bare:
            return 7.5
        return 0.9 if cand.qualified or cand.spread else 2.5 if cand.within else 1.5
    if form == COMMENT and cand.phrase:
        return -0.05  # a directive's opening words: the same words elsewhere in a comment are prose
    if form == FIELD and (cand.family or cand.namespaced):
        return 0.8
    if form == FIELD and _made_by_name(cand):
        return 0.99
    if form == DECLARED:
        return _declared_tier(cand)
    return {COMMENT: 0, FIELD: 3, MODIFIER: 2, UNION: 3.9}.get(form, 3)


def _declared_tier(cand: Candidate) -> float:
    """A declaration by a name convention (`^get_`, the names the request lists) or by a modifier it lacks beside
    the same name: before the patterns that copy the declaration shown. One name whole, which the valid examples
    may have just named otherwise, as a modifier word; one lacking a modifier whatever its name, before the code
    inside a context (a `return` in a function not `local`) but after patterns of real code."""
    rule = cand.body["rule"]
    if cand.unnamed:
        return 1.9
    if rule.get("has", {}).get("field") in TYPE_ROLES:
        return 1.6  # by its declared type: after a type by name wherever it stands, before a context
    whole = re.fullmatch(r"\^[\w$]+\$", str(rule.get("has", {}).get("regex", ""))) is not None
    return 2 if whole and "not" not in rule else 0.9


def _made_by_name(cand: Candidate) -> bool:
    """An object made by one bare class name (`new Array`, Kotlin's `Suppress(...)` in an annotation), by kind and
    name: what `new Array($$$ARGS)` says, and also the `new` written without its argument list (`new Array`) or
    in another form of its construct (`@file:Suppress(...)`). Not a name the functions around it take."""
    name = re.fullmatch(r"\^(\w+)\$", str(cand.body["rule"].get("has", {}).get("regex", "")))
    return (name is not None and re.search(r"new|creation|constructor", str(cand.body["rule"].get("kind"))) is not None
            and name.group(1) not in _bound_here(cand.gen.root))


def _inside_tier(cand: Candidate) -> float:
    """A construct inside (or not inside) a node kind; an assignment or a list around it is incidental."""
    clause = cand.body["rule"]["all"][-1]
    inside = clause.get("inside") or clause.get("not", {}).get("inside") or {}
    kinds = [str(k.get("kind", "")) for k in inside.get("any", [inside])]
    if "stopBy" not in inside and "inside" in clause:
        # A direct part of a node (a lambda as an assignment's value): said before the same node at any depth.
        return min(_context_tier(k) for k in kinds) - 0.05
    return _context_tier(kinds[0])


def _context_tier(kind: str) -> float:
    if kind in PART_KINDS:
        return 2.6  # a block is part of whatever holds it, not a context of its own
    if kind.startswith("await"):
        return 1.95  # `fetch(...)` not inside an `await`: a suspension point, where the code is fine
    if not own_context(kind):
        return 2.6
    # A statement or a clause of one (`finally_clause`: nearer the code than its `try_statement`) before other
    # constructs (an `as_pattern` inside a `with_statement`).
    return 1.9 if "statement" in kind or kind.endswith("_clause") else 1.95


def _pattern_tier(cand: Candidate) -> float:
    form, gen = cand.form, cand.gen
    if _WHOLE.search(gen.root.kind) and gen.root.parent is not None and gen.root.parent.parent is None:
        return 8
    if cand.leaf:
        return 7
    if cand.keyword_only():
        return 4  # only operators and keywords kept (`$A == $B`, `defer $A`, `$A, _`): it flags too much
    if gen.root.kind == "expression_statement" and len(gen.root.named_children()) == 1:
        return 3.4  # `gets($A);` matches only a call standing alone: the call itself says it (in any form)
    kept = kept_leaves(gen)
    if form in (PLAIN, TYPED, PINNED) or cand.repeated:
        return _plain_tier(gen, kept)
    return 3.6 if gen.name_hole and len(kept) <= 1 else 3


def _plain_tier(gen: Generalised, kept: list[Node]) -> float:
    """A pattern as written (with constraints at most)."""
    if gen.bound:
        # One metavariable at two places (`for $A := 0; $A < len($B); $A++`, `$A = realloc($A, ...)`): a relation
        # every invalid example shows that a kind alone (`i++`) cannot say, so before it.
        return -0.1
    if gen.root.kind.endswith("modifiers"):
        return 3  # `@Autowired private`: a modifier list matches as a whole, so the one written beside it must be too
    if "\n" in gen.pattern:
        return 2.5  # a pattern spanning statements copies the example's shape around the point
    if gen.name_hole and len(kept) <= 1:
        return 3.6  # `http.$C(...)` for http.Get / http.Post: the names were the point (a name regex says so)
    if kept and all(n.text in _bound_here(gen.root) for n in kept):
        return 3.6  # `resolve(...)`: every name kept is a parameter of a function around it, a local choice
    return 1


def _bound_here(node: Node) -> set[str]:
    """The names the functions around a node take as parameters (`resolve` in `async (resolve) => ...`)."""
    out: set[str] = set()
    for a in node.ancestors():
        for c in a.children:
            if c.role in ("parameter", "parameters") or c.kind.endswith(("parameters", "parameter_list")):
                out.update(d.text for d in c.walk() if d.atomic and d.kind.endswith("identifier"))
    return out


def _in_arguments(node: Node) -> bool:
    return node.parent is not None and node.parent.kind.endswith(("arguments", "argument_list"))


def _an_argument(node: Node) -> bool:
    """A building block passed in a call's argument list (a keyword argument, a pair), not a construct of its own."""
    return _in_arguments(node) and not specific(node.kind)


def _callish(node: Node) -> bool:
    return any(c in node.kind for c in ("call", "invocation", "macro")) or any(
        c.role in ("function", "method", "macro", "callee") for c in node.children)


def _effective_size(node: Node) -> float:
    """A callee or receiver ranks as its call: `console.log($$$ARGS)` says more than `console.log`."""
    climbed = node
    while climbed.parent is not None and climbed.parent.parent is not None and (
            climbed.role in _CALLEE_ROLES or (climbed.parent.named_children()[:1] == [climbed] and any(
                c in climbed.parent.kind for c in ("call", "invocation", "member", "selector", "field_access")))):
        climbed = climbed.parent
    return climbed.size() + (0.5 if climbed is not node else 0.0)


def kept_leaves(gen: Generalised) -> list[Node]:
    """The named one-line leaves of the root that no hole covers: the literal code a candidate keeps."""
    covered = [(s, e) for s, e, _t in gen.edits]
    leaves = []
    for node in gen.root.walk():
        if node.named and node.atomic and node is not gen.root and "\n" not in node.text and not any(
                s <= node.start and node.end <= e for s, e in covered):
            leaves.append(node)
    leaves.sort(key=lambda n: (n.kind.endswith("identifier") is False, n.start))
    return [n for n in leaves if n.text.strip()]
