"""`suggest_rule`: rules proposed from code that must be flagged and code that must not, each one proven.

Flow: read every example's tree as ast-grep parses it; generalise what the invalid examples share into
candidate rules (bare patterns first, then constraints, context/selector, `not`/`inside`, kind + has); scan all
candidates over all examples in one ast-grep call per stage; keep only those that flag every invalid example and
no valid one; rank them (smallest construct, most general, simplest form); infer a `fix` from before/after pairs
and verify it by applying it. Nothing unverified is returned; when nothing passes, the answer says why. A caller's
own rule (`draft_rule`) is proven the same way and, proven, comes first (drafted.py); so are the rules already
written for common requests (known.py), put before the generaliser's or after its top rule (offered.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgtools.contracts.common import SEVERITIES
from sgtools.contracts.suggest import FixPair, SuggestedRule, SuggestResult
from sgtools.core import languages
from sgtools.core.errors import BadInput
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.languages import file_name_for
from sgtools.project.workspace import RULE_ID, Workspace
from sgtools.rules import analysis, syntax
from sgtools.workflows.suggest import (
    anchor,
    annotated,
    arguments,
    around,
    asked,
    author,
    callnames,
    carrier,
    carry,
    comments,
    conditioned,
    counted,
    declnames,
    decltypes,
    directives,
    drafted,
    dropped,
    explain,
    facts,
    fixes,
    forms,
    from_request,
    interpolated,
    keyed,
    known,
    listed,
    looped,
    modifiers,
    namesakes,
    necessary,
    operators,
    placed,
    preceding,
    proof,
    ranking,
    render,
    repeats,
    requested,
    scope,
    sequence,
    shapes,
    union,
    worded,
    wrapped,
    written,
)
from sgtools.workflows.suggest import candidates as cands
from sgtools.workflows.suggest import roots as found
from sgtools.workflows.suggest.call import SuggestCall
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, read_examples
from sgtools.workflows.suggest.verify import Outcome, run_rules

_CONTEXT_ROOTS = 60  # roots tried in context/selector form when their bare pattern is misread
_SPARE = 2  # candidates beyond max_candidates kept in reserve for those the rule analyser rejects
_REPAIR_ROOTS = 12  # near misses given `not`/`inside` clauses, and roots tried as kind + has


FixExample = FixPair


def _texts(value: object, what: str, settings: Settings, *, required: bool) -> list[str]:
    if value is None:
        value = []
    if not isinstance(value, list | tuple):
        raise BadInput(f"{what} must be a list of code strings, not {type(value).__name__}.")
    if required and not value:
        raise BadInput(f"{what} is empty. Give at least one piece of code the rule must flag.")
    limit = settings.max_examples
    if len(value) > limit:
        raise BadInput(f"{what} has {len(value)} items; at most {limit} are accepted. Keep the telling ones.")
    return [syntax.check_code_arg(v, f"item {i} of {what}", settings) for i, v in enumerate(value)]


def _fix_pairs(value: object, settings: Settings) -> list[FixExample]:
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise BadInput("fix_examples must be a list of {before, after} objects.")
    pairs: list[FixExample] = []
    for i, item in enumerate(value):
        if not isinstance(item, Mapping) or not isinstance(item.get("before"), str) or not isinstance(
                item.get("after"), str):
            raise BadInput(f"fix_examples[{i}] must be an object with `before` and `after` code strings.")
        pairs.append({"before": syntax.check_code_arg(item["before"], f"fix_examples[{i}].before", settings),
                      "after": syntax.check_code_arg(item["after"], f"fix_examples[{i}].after", settings,
                                                     allow_blank=True)})
    return pairs


def _file_name(language: str, path: object) -> str:
    if path is None or path == "":
        return file_name_for(language, None)
    if not isinstance(path, str) or "\x00" in path:
        raise BadInput("path must be a file path such as src/app.tsx.")
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if languages.from_path(name) != language:
        raise BadInput(f"path {path!r} is not a {language} file name. Give a path with a {language} extension "
                       f"(e.g. x{languages.LANGUAGES[language][1][0]}), or leave path out.")
    return name


def _options(severity: object, rule_id: object, message: object, max_candidates: object,
             settings: Settings) -> tuple[str, str | None, str | None, int]:
    sev = "warning" if severity is None else str(severity).lower()
    if sev not in SEVERITIES:
        raise BadInput(f"severity must be one of {', '.join(SEVERITIES)}, not {severity!r}.")
    if rule_id is not None and (not isinstance(rule_id, str) or not RULE_ID.fullmatch(rule_id)):
        raise BadInput(f"rule_id {rule_id!r} is not a valid id: letters, digits, '.', '_' and '-', up to 128.")
    if message is not None and not isinstance(message, str):
        raise BadInput("message must be text.")
    cap = settings.suggest_max_candidates
    count = 3 if max_candidates is None else max_candidates
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= cap:
        raise BadInput(f"max_candidates must be a whole number from 1 to {cap}, not {max_candidates!r}.")
    return sev, rule_id, message, count


class _Search:
    """One request's state: the examples, the candidates tried and what the engine said about each."""

    def __init__(self, engine: Engine, language: str, file_name: str, invalid: list[Example],
                 valid: list[str]) -> None:
        self.engine, self.language, self.file_name = engine, language, file_name
        self.invalid, self.valid = invalid, valid
        self.texts = [e.code for e in invalid] + valid
        self.tried: list[tuple[cands.Candidate, Outcome]] = []
        self.comparisons: dict[str, str] = {}  # the kinds the grammar compares in, where examples use several
        self.request: str | None = None  # the developer's words, where they name things (declnames.py, placed.py)

    def run(self, batch: Sequence[cands.Candidate]) -> None:
        batch = looped.loop_forms(batch, self.request, self.language)  # a loop the request names is any loop
        fresh = [c for c in batch if not any(c.body == t.body for t, _ in self.tried)]
        outcomes = run_rules(self.engine, self.language, self.file_name, [c.body for c in fresh], self.texts)
        self.tried.extend(zip(fresh, outcomes, strict=True))

    def passing(self) -> list[cands.Candidate]:
        n = len(self.invalid)
        return sorted((c for c, o in self.tried if o.separates(n) and not c.shape), key=lambda c: c.key())

    def matched_self(self, pivot: Example) -> set[int]:
        """The roots some form of which matched the example it came from: the others may be misread bare
        (Go's lone call), so they get the context/selector form."""
        at = self.invalid.index(pivot)
        return {c.root_index for c, o in self.tried if o.hits[at]}

    def near_misses(self) -> list[tuple[cands.Candidate, Outcome]]:
        n = len(self.invalid)
        found = [(c, o) for c, o in self.tried if not o.refused and all(o.hits[i] for i in range(n))
                 and any(o.hits[n:])]
        return sorted(found, key=lambda co: co[0].key())


def _authored(invalid: list[Example], valid: list[Example], language: str,
              request: str | None = None) -> list[cands.Candidate]:
    """The forms an author writes from the examples: a kind, a comment word, a name regex, a child."""
    groups = list(found.roots(invalid))
    base = author.AUTHOR_ROOTS
    return (facts.kind_only(invalid, valid, base) + comments.comment_forms(invalid, valid, base + 1000)
            + callnames.field_forms(groups + callnames.outermost(invalid), base + 2000, [*invalid, *valid],
                                    language)
            + author.child_forms(groups, valid, base + 3000) + modifiers.modifier_forms(invalid, valid, base + 9000)
            + operators.operator_forms(invalid, valid, base + 9500)
            + namesakes.namesake_forms(invalid, valid, base + 9700)
            + declnames.name_forms(invalid, valid, base + 12_000, request, language)
            + decltypes.type_forms(invalid, valid, base + 12_500, request, language)
            + interpolated.string_forms(invalid, valid, language, base + 9800))


def _search(search: _Search, gens: list[Generalised], pivot: Example, want: int,
            valid_trees: list[Example]) -> None:
    search.run(repeats.compared(forms.plain_forms(gens, language=search.language))
               + _authored(search.invalid, valid_trees, search.language, search.request)
               + operators.comparison_forms(search.invalid, search.comparisons, author.AUTHOR_ROOTS + 9600)
               + keyed.element_forms(pivot, search.invalid, valid_trees, author.AUTHOR_ROOTS + 9650)
               + from_request.request_forms(search.request, search.invalid, valid_trees, search.language,
                                             author.AUTHOR_ROOTS + 13_000))
    matched_self = search.matched_self(pivot)
    by_size = sorted(range(len(gens)), key=lambda i: gens[i].root.size())
    misread = [i for i in by_size if i not in matched_self and not gens[i].shadowed]
    search.run(forms.context_forms(gens, pivot, misread[:_CONTEXT_ROOTS]) + repeats.repeat_forms(gens, misread)
               + necessary.necessary_forms(search.tried, valid_trees, len(search.invalid))
               + counted.counted_forms(search.tried)
               + anchor.anchored_forms(search.tried, search.invalid, valid_trees, author.AUTHOR_ROOTS + 10_800)
               + written.write_forms(search.tried, search.language)
               + placed.request_context_forms(search.tried, search.invalid, search.request, search.language,
                                              author.AUTHOR_ROOTS + 10_700)
               + placed.construct_context_forms(search.tried, search.invalid, search.request, search.language,
                                                author.AUTHOR_ROOTS + 10_750)
               + from_request.near_forms(search.tried, search.request, search.invalid, valid_trees, search.language,
                                         author.AUTHOR_ROOTS + 13_100)
               + annotated.annotated_forms(search.tried, search.invalid, search.request, author.AUTHOR_ROOTS + 10_780)
               + worded.worded_forms(search.tried, search.invalid, search.request, author.AUTHOR_ROOTS + 10_850))
    if len({c.root_index for c in search.passing()
            if c.tier() <= 1 and (c.gen.kind_in_valid or not valid_trees)}) >= want:
        return
    _repair(search, gens, by_size, valid_trees, pivot)
    if not search.passing():  # the closest constructs, told apart by a condition the request's words name
        search.run(conditioned.conditioned_forms(search.near_misses(), search.invalid, valid_trees, search.request,
                                                 author.AUTHOR_ROOTS + 13_200))
    if not search.passing():
        _shapes(search, gens, valid_trees)


def _shapes(search: _Search, gens: list[Generalised], valid_trees: list[Example]) -> None:
    """Nothing separated: constructs no pattern said (they keep no literal in common) by their shape, told apart
    from the valid code by a kind they hold (shapes.py)."""
    search.run(shapes.shape_forms(search.invalid, gens, author.AUTHOR_ROOTS + 11_000))
    near = [m for m in search.near_misses() if m[0].shape]
    search.run(around.held_kind_forms(near, search.invalid, valid_trees, author.AUTHOR_ROOTS + 11_500)
               + around.bounded_held_forms(near, search.invalid, valid_trees, author.AUTHOR_ROOTS + 11_700))


def _repair(search: _Search, gens: list[Generalised], by_size: list[int], valid_trees: list[Example],
            pivot: Example) -> None:
    """Roots no plain form solved: kind + has, shadowed code, then near misses told apart by a `not`, a node kind
    around them, an argument or an enclosing context."""
    passed_roots = {c.root_index for c in search.passing()}
    unsolved = [i for i in by_size if i not in passed_roots and not gens[i].shadowed]
    # Code also in a valid example, to be told apart by its context: constructs before the names and literals
    # inside them (a call `print(x)` shown in both, not its callee `print` alone).
    shadowed = sorted((gens[i] for i in by_size if gens[i].shadowed), key=lambda g: g.root.atomic)[:_REPAIR_ROOTS]
    wanted = {id(g) for g in shadowed}
    # Shadowed code gets the context/selector form too: its bare text may be misread (Go's `time.Sleep(d)`).
    matched_self = search.matched_self(pivot)
    misread = [i for i, g in enumerate(gens) if id(g) in wanted and i not in matched_self and not g.root.atomic]
    # ... and, misread, kind + has: its text may be no pattern at all (a JSX attribute alone).
    search.run(forms.kind_has_forms(gens, unsolved[:_REPAIR_ROOTS] + misread)
               + [c for c in forms.plain_forms(gens, shadowed=True, language=search.language) if id(c.gen) in wanted]
               + forms.context_forms(gens, pivot, misread)
               + necessary.necessary_forms(search.tried, valid_trees, len(search.invalid)))
    near = search.near_misses()
    misses = [m for m in near if m[0].form < cands.KIND_ONLY][:_REPAIR_ROOTS]
    named = [m for m in near if m[0].form in (cands.PLAIN, cands.FIELD)][:_REPAIR_ROOTS]
    # A call by one name (or its family) that flags valid calls too is told apart by an argument, or by where it
    # is (`t.Fatal` inside a goroutine, `t.Fatal` in the test itself).
    calls = misses + [m for m in named if callnames.one_name(m[0])]
    search.run(explain.exclusions(calls, search.invalid, valid_trees)
               + author.argument_forms(calls, search.invalid, valid_trees, author.AUTHOR_ROOTS + 4000)
               + arguments.argument_kind_forms(calls, search.invalid, valid_trees, author.AUTHOR_ROOTS + 4500)
               + arguments.literal_forms(misses + named, search.invalid, valid_trees, author.AUTHOR_ROOTS + 4700)
               + arguments.empty_forms(calls, search.invalid, valid_trees, author.AUTHOR_ROOTS + 4800)
               + author.context_forms(calls, search.invalid, valid_trees, author.AUTHOR_ROOTS + 5000)
               + around.held_kind_forms(named, search.invalid, valid_trees, author.AUTHOR_ROOTS + 6000)
               + around.bounded_held_forms(named, search.invalid, valid_trees, author.AUTHOR_ROOTS + 6500)
               + around.any_context_forms(misses, search.invalid, valid_trees, author.AUTHOR_ROOTS + 7000,
                                          search.language)
               + around.missing_part_forms(misses + operators.spelled(near), search.invalid, valid_trees,
                                           author.AUTHOR_ROOTS + 8000)
               + around.missing_field_forms(misses, search.invalid, valid_trees, author.AUTHOR_ROOTS + 8400)
               + dropped.dropped_forms(calls + _requested_near(near), search.invalid, valid_trees,
                                       author.AUTHOR_ROOTS + 8450, search.language)
               + wrapped.wrapped_forms(calls, search.invalid, valid_trees, search.request, search.language,
                                       author.AUTHOR_ROOTS + 8470)
               + carrier.carrier_forms(misses, search.invalid, valid_trees, author.AUTHOR_ROOTS + 8500)
               + around.not_context_forms(misses, search.invalid, valid_trees, author.AUTHOR_ROOTS + 9000)
               + around.bounded_context_forms(misses, search.invalid, valid_trees, author.AUTHOR_ROOTS + 9500)
               + sequence.neighbour_forms(near, search.invalid, valid_trees, author.AUTHOR_ROOTS + 9800)
               + preceding.doc_comment_forms(near, search.invalid, valid_trees, author.AUTHOR_ROOTS + 9900,
                                             search.language)
               + directives.commented_forms(search.request, near, search.invalid, valid_trees, search.language,
                                            author.AUTHOR_ROOTS + 13_006)
               + anchor.anchored_forms(search.tried, search.invalid, valid_trees, author.AUTHOR_ROOTS + 10_900))


def _requested_near(near: list[tuple[cands.Candidate, Outcome]]) -> list[tuple[cands.Candidate, Outcome]]:
    """The near misses on the code the request names, fine in the valid examples too: told apart by where the
    result goes (dropped.py)."""
    return [m for m in near if m[0].form == cands.REQUESTED][:_REPAIR_ROOTS]


def suggest_rule(
    ws: Workspace,
    engine: Engine,
    language: str,
    invalid_examples: Sequence[str],
    valid_examples: Sequence[str] | None = None,
    path: str | None = None,
    message: str | None = None,
    severity: str | None = None,
    rule_id: str | None = None,
    fix_examples: Sequence[FixExample] | None = None,
    max_candidates: int | None = None,
    request: str | None = None,
    draft_rule: str | None = None,
) -> SuggestResult:
    """Verified rules that flag every invalid example and no valid one, best first; `explanation` if none.
    `request` (the developer's words) may ask for a path scope: "in library code", "only in tests".
    `draft_rule` is the caller's own rule for the request: offered first when ast-grep and the rule analyser prove
    it on the examples (drafted.py), with the generaliser's candidates after it."""
    lang = languages.require(language)
    if request is not None and not isinstance(request, str):
        raise BadInput("request must be text: what the rule is for, in words.")
    invalid = _texts(invalid_examples, "invalid_examples", ws.settings, required=True)
    valid = _texts(valid_examples, "valid_examples", ws.settings, required=False)
    pairs = _fix_pairs(fix_examples, ws.settings)
    sev, given_id, given_message, count = _options(severity, rule_id, message, max_candidates, ws.settings)
    draft = drafted.given(draft_rule, ws.settings)
    # A fix example's `before` is code the rule must flag: it is checked like the invalid examples.
    invalid += [p["before"] for p in pairs if p["before"] not in invalid]
    call = SuggestCall(lang, _file_name(lang, path), invalid, valid, pairs, request, sev, given_id, given_message,
                       count, scope.from_request(request))
    result: SuggestResult = {"success": False, "candidates": [], "warnings": []}
    same = explain.identical(invalid, valid)
    if same is not None:
        result["explanation"] = same
        return result
    bodies = _generalised(ws, engine, call, result)
    at, known_bodies = known.offer(ws, engine, call, result) if ws.settings.suggest_known_rules else (0, [])
    bodies = [*bodies[:at], *known_bodies, *bodies[at:]][:count]
    if draft is not None:
        offered = drafted.offer(ws, engine, draft, call, result)
        bodies = [offered, *bodies][:count] if offered is not None else bodies
    if result["success"]:
        _prove(ws, engine, lang, bodies, result, call.paths)
    return result


def _generalised(ws: Workspace, engine: Engine, call: SuggestCall, result: SuggestResult) -> list[dict[str, Any]]:
    """The generaliser's verified candidates put in `result` (or its explanation); their bodies, in order."""
    lang, file_name, invalid, valid, pairs = call.language, call.file_name, call.invalid, call.valid, call.pairs
    sev, given_id, given_message, count, request = call.severity, call.rule_id, call.message, call.count, call.request
    asked, paths = call.asked, call.paths
    trees = read_examples(engine, ws.root, lang, invalid)
    valid_trees = read_examples(engine, ws.root, lang, valid)
    gens = found.generalisations(trees, valid_trees)
    pivot = min(trees, key=lambda e: (len(e.code), e.index))
    search = _Search(engine, lang, file_name, trees, valid)
    search.request = request
    search.comparisons = operators.comparison_kinds(trees, lambda texts: read_examples(engine, ws.root, lang, texts))
    _search(search, gens, pivot, count, valid_trees)
    picked = _picked(search, count + _SPARE, valid_trees, request)
    in_files = _leave_out_in_file_tests(search, picked, paths)
    docs = [render.rule_doc(given_id or render.default_id(c), lang, sev, given_message or render.default_message(c),
                            c.body) for c in picked]
    findings = analysis.analyse_rules(ws, engine, docs, examples=[{"valid": valid, "invalid": invalid}] * len(docs))
    kept = [n for n, found in enumerate(findings) if not analysis.never_fires(found)][:count]
    if not kept:
        result["explanation"] = (
            explain.why_none(search.tried, trees, valid, bool(gens), valid_trees) if not picked else
            "Every rule that separated the examples was rejected by the rule analyser: "
            + analysis.refusal(findings[0]))
        return []
    for n in kept:
        cand, doc = picked[n], docs[n]
        rid = str(doc["id"])
        item: SuggestedRule = {"yaml": "", "rule_id": rid, "why": render.why(cand, len(invalid), len(valid)),
                               "checked": {"invalid": invalid, "valid": valid}, "form": render.form_name(cand),
                               "scope": render.scope(cand), "analysis": findings[n]}
        if pairs:
            _add_fix(engine, lang, file_name, cand, pairs, doc, item, result)
        if asked is not None:  # the examples carry no paths: verified without the scope, which is added now
            doc.update(asked[0])
            item["scope"] = f"{item['scope']}; {scope.note(*asked, in_files=id(cand) in in_files)}"
        item["yaml"] = render.dump(doc)
        result["candidates"].append(item)
    result["success"] = True
    result["warnings"] += carry.cautions(picked[kept[0]], result["candidates"][0]["rule_id"])
    return [picked[n].body for n in kept]


def _picked(search: _Search, count: int, valid_trees: list[Example], request: str | None) -> list[cands.Candidate]:
    """The best candidates, one per root, code placed in the construct the request names before code outside it
    (placed.py), those keeping the request's telling words first (asked.py); `any` of each
    example's own rule first when none separates or the best is a whole function or a literal `not`."""
    # The ranking, in the order applied: (0) `search.passing()` sorts by `Candidate.key` (generality tier, size,
    # form, level...); (1) `_listed` swaps a call or type by the names shown for the request's whole list of them
    # where that verifies (at its own key); (2) `placed.constructs_first`, (3) `asked.words_first`, (4)
    # `asked.named_first` lift what the request's words say (the construct it names, its telling words, none of
    # the literals it does not write) over key order; (5) `ranking.pick`, on constructs only: `inner_first`,
    # `keyed.elements_first`, `written.writes_first`, `decltypes.types_first`, `nested.held_first` put a part the
    # best candidate holds, writes or declares before it, then one per root; (6) `_union` goes first when nothing
    # passed or the best is a whole function or a literal `not`; (7) `requested.request_first` puts the rule on the
    # code the request names first, from all that passed. Later steps override earlier ones (the request's own
    # code over all, the request's words over the examples' shape) and (2) to (5) each read the top the steps
    # before left. None is in the key: each compares a candidate with the others (the best one, what it holds) or
    # with the request and the outcomes, which one candidate's key cannot see, so folding one in would change what
    # the later steps read.
    # The construct by the request's words one side writes (contrast.py) is placed by (7) alone.
    ranked = [c for c in _listed(search, request, valid_trees) if not c.contrast]
    listed_ = placed.constructs_first(ranked, search.tried, search.invalid, request, search.language)
    picked = ranking.pick(asked.named_first(asked.words_first(listed_, request, search.invalid, valid_trees),
                                            request, search.invalid), count)
    if not picked or picked[0].tier() >= union.LAST_TIER:
        picked = (_union(search, valid_trees) + picked)[:count]
    return requested.request_first(picked, search.passing(), request)


def _listed(search: _Search, request: str | None, valid_trees: list[Example]) -> list[cands.Candidate]:
    """The passing candidates, a call by the names shown said as the request's whole list of them in its place
    where that list verifies too (listed.py)."""
    pairs = listed.widened(search.passing(), request, valid_trees)
    if not pairs:
        return search.passing()
    search.run([w for _, w in pairs])
    passing = search.passing()
    narrow = [o for o, w in pairs if any(p.body == w.body for p in passing)]
    return [p for p in passing if not any(p is o for o in narrow)]


def _union(search: _Search, valid_trees: list[Example]) -> list[cands.Candidate]:
    """`any` of each invalid example's own best rule, each searched alone against all the valid examples, when
    they share nothing better; verified on all the examples (union.py)."""
    if len(search.invalid) < 2:
        return []
    parts: list[cands.Candidate] = []
    for tree in search.invalid:
        alone = _Search(search.engine, search.language, search.file_name, [tree], search.valid)
        _search(alone, found.generalisations([tree], valid_trees), tree, 1, valid_trees)
        alone.run(facts.keyword_statements(tree, valid_trees, author.AUTHOR_ROOTS + 12_500))
        best = union.best_part(ranking.inner_first(alone.passing()), valid_trees)
        if best is None:
            return []
        if not any(best.body == p.body for p in parts):
            parts.append(best)
    cand = union.joined(parts)
    search.run([cand])
    return [c for c in search.passing() if c is cand]


def _leave_out_in_file_tests(search: _Search, picked: list[cands.Candidate],
                             paths: dict[str, list[str]] | None) -> set[int]:
    """When the scope leaves out test code and the language writes tests inside library files (Rust's
    `#[cfg(test)] mod tests`), each picked rule also gets `not: inside` them, kept only where it still flags
    every invalid example and no valid one (one ast-grep call). The ids of the candidates that got it."""
    clause = scope.in_file_tests(search.language, paths or {})
    if clause is None or not picked:
        return set()
    bodies = [scope.with_clause(c.body, clause) for c in picked]
    outcomes = run_rules(search.engine, search.language, search.file_name, bodies, search.texts)
    done: set[int] = set()
    for cand, body, outcome in zip(picked, bodies, outcomes, strict=True):
        if outcome.separates(len(search.invalid)):
            cand.body = body
            done.add(id(cand))
    return done


def _add_fix(engine: Engine, lang: str, file_name: str, cand: cands.Candidate, pairs: list[FixExample],
             doc: dict[str, object], item: SuggestedRule, result: SuggestResult) -> None:
    """An inferred fix is never `safe` (issue 29, part 5; issue 30): `metadata.fixSafety: unsafe`, saying why."""
    if cand.form == cands.UNION:
        return  # `any` of several constructs: no one fix template fits them
    fix, note = fixes.infer(engine, lang, file_name, cand, pairs)
    if fix is not None:
        why_unsafe = fixes.unsafe_reason(fix, cand, pairs)
        doc["fix"] = fix
        # Inferred from a few examples: nothing proves it keeps behaviour elsewhere (docs/fixes.md).
        doc["metadata"] = {**(doc.get("metadata") or {}), "fixSafety": "unsafe"}  # type: ignore[dict-item]
        item["fix"], item["fixChecked"], item["fixSafety"], item["fixNote"] = fix, pairs, "unsafe", why_unsafe
    if note:
        result["warnings"].append(f"{item['rule_id']}: {note}")


def _prove(ws: Workspace, engine: Engine, lang: str, bodies: list[dict[str, Any]], result: SuggestResult,
           paths: dict[str, list[str]] | None) -> None:
    """Each candidate on the workspace's own files of the language (in the path scope), within the caps."""
    summary, per = proof.prove(engine, ws.root, lang, bodies, ws.settings, paths)
    result["proof"] = summary
    if summary["complete"] and summary["files"]:
        for item, found in zip(result["candidates"], per, strict=True):
            item["proof"] = found

