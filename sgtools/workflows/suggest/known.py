"""Rules an ast-grep author already wrote for requests developers often make, tried on the examples first.
Why: most requests are not new ("no fmt.Println in library code", "requests.get needs a timeout"), and a rule
written for the request, with its other spellings and near misses in mind, holds on code the examples do not show
where a rule generalised from two examples is too literal or too broad (docs/suggest-rule.md). A known rule is
offered only when ast-grep proves it on the caller's examples, as a caller's draft is.
The rules live in `known_rules/<language>.yml`, each with the code it must flag and the near misses it must not
(tests/test_suggest_known.py proves every one with the real binary).
"""
from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from sgtools.contracts.suggest import SuggestResult
from sgtools.core import yamlio
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import offered, proof, scope, worded
from sgtools.workflows.suggest.call import SuggestCall
from sgtools.workflows.suggest.verify import run_rules

# The body keys kept from a known rule (as for a draft: id, message, severity and scope are the call's).
BODY_KEYS = ("rule", "constraints", "utils", "transform")
# A language's rules also tried for the languages whose grammar extends it: the proof drops what does not parse.
ALSO_FOR = {"typescript": ("javascript",), "tsx": ("typescript", "javascript"), "cpp": ("c",)}


@dataclass(frozen=True)
class KnownRule:
    """One rule of the library: what it flags in a line, the words a request for it uses, its body, its tests."""
    id: str
    language: str
    says: str
    words: tuple[str, ...]
    body: dict[str, Any]
    flags: tuple[str, ...]
    passes: tuple[str, ...]
    needs: proof.Clauses  # words code it flags must hold (proof.clauses): an example lacking one is not tried


def _read(language: str) -> list[KnownRule]:
    resource = resources.files(__package__).joinpath("known_rules", f"{language}.yml")
    if not resource.is_file():
        return []
    docs = yamlio.load_one(resource.read_text(encoding="utf-8")) or []
    out = []
    for doc in docs:
        out.append(KnownRule(
            id=str(doc["id"]), language=language, says=str(doc["says"]),
            words=tuple(_word(w) for w in doc.get("words") or ()),
            body={k: doc[k] for k in BODY_KEYS if k in doc},
            flags=_cases(language, doc, "flags"), passes=_cases(language, doc, "passes"),
            needs=proof.clauses(doc.get("rule"))))
    return out


def _word(word: object) -> str:
    """A request word as its writer typed it: YAML reads a bare `null`, `true`, `false` as values, not words."""
    if word is None or isinstance(word, bool):
        return {None: "null", True: "true", False: "false"}[word]
    return str(word).lower()


def _cases(language: str, doc: dict[str, Any], key: str) -> tuple[str, ...]:
    """A rule's cases, each code text; a case YAML read as something else (`from: data` unquoted is a mapping) would
    be tested as its printed form, so it is refused here (tests/test_suggest_known.py reads every file)."""
    cases = doc.get(key) or []
    bad = [c for c in cases if not isinstance(c, str)]
    if bad:
        raise ValueError(f"known_rules/{language}.yml, {doc.get('id')}: a `{key}` case is not text ({bad[0]!r}): "
                         "quote it")
    return tuple(cases)


@functools.cache
def own(language: str) -> tuple[KnownRule, ...]:
    """The rules written for `language` itself (what its file holds)."""
    return tuple(_read(language))


def for_language(language: str) -> tuple[KnownRule, ...]:
    """The rules to try on `language`'s examples: its own, then those of the languages its grammar extends."""
    return own(language) + tuple(r for other in ALSO_FOR.get(language, ()) for r in own(other))


def languages() -> Sequence[str]:
    """The languages with a file of known rules."""
    folder = resources.files(__package__).joinpath("known_rules")
    return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".yml"))


# How many known rules one answer offers: the best two leave room for the generaliser's different shapes.
MAX_OFFERED = 2
_WORD = re.compile(r"[a-z0-9_]{3,}")  # a word of the request or a rule: a name part, not "in" or "a"


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - worded.COMMON_WORDS


def telling(rule: KnownRule, request: str | None) -> int:
    """How many of the request's words the rule is written for (its words, what it says, its id)."""
    if not request:
        return 0
    return len(_words(request) & (_words(" ".join(rule.words)) | _words(rule.says) | _words(rule.id)))


@dataclass(frozen=True)
class Fit:
    """A known rule that separates the call's examples, with the body that does (the scope's in-file test clause
    added where the scope leaves out test code and the language writes tests inside library files)."""
    rule: KnownRule
    body: dict[str, Any]
    in_files: bool


# Rules ast-grep refused for a language whose grammar extends theirs (a TypeScript-only kind under tsx), by
# language: tried once per process, then left out.
_REFUSED: dict[str, set[str]] = {}


def proven(engine: Engine, call: SuggestCall) -> list[Fit]:
    """The known rules for the call's language that ast-grep finds flag every invalid example and no valid one,
    those the request's words name first, then the narrower first (an ast-grep call for all, one more to weigh
    them when several fit)."""
    refused = _REFUSED.setdefault(call.language, set())
    rules = [r for r in for_language(call.language) if (r.id not in refused or r.language == call.language)
             and all(proof.may_match(r.needs, text) for text in call.invalid)]
    clause = scope.in_file_tests(call.language, call.paths or {})
    tried = [r.body for r in rules] + ([scope.with_clause(r.body, clause) for r in rules] if clause else [])
    outcomes = run_rules(engine, call.language, call.file_name, tried, [*call.invalid, *call.valid])
    fits: list[tuple[int, int, Fit]] = []
    for n, rule in enumerate(rules):
        if outcomes[n].refused and rule.language != call.language:
            refused.add(rule.id)
        if clause and outcomes[len(rules) + n].separates(len(call.invalid)):
            fits.append((-telling(rule, call.request), n, Fit(rule, tried[len(rules) + n], True)))
        elif outcomes[n].separates(len(call.invalid)):
            fits.append((-telling(rule, call.request), n, Fit(rule, rule.body, False)))
    breadth = _breadth(engine, call, [f for *_, f in fits]) if len(fits) > 1 else [0] * len(fits)
    order = sorted(range(len(fits)), key=lambda k: (fits[k][0], breadth[k], fits[k][1]))
    return [fits[k][2] for k in order]


# The cases of the fitting rules that are weighed to tell a narrower rule from a broader one, at most.
_MAX_BREADTH_CASES = 60


def _breadth(engine: Engine, call: SuggestCall, fits: list[Fit]) -> list[int]:
    """How many of the fitting rules' own cases (the code each must flag) each rule flags: of two rules that both
    fit the examples, the narrower one is the smaller claim about code nobody has shown (`no-unsafe-block` before
    `no-unsafe`, which also flags `unsafe fn`); the developer can still take the broader one, offered next. The
    same rules always weigh the same: kept per language and rules."""
    key = (call.language, call.file_name, tuple((f.rule.language, f.rule.id, f.in_files) for f in fits))
    if key not in _WEIGHED:
        cases = list(dict.fromkeys(t for f in fits for t in f.rule.flags))[:_MAX_BREADTH_CASES]
        outcomes = run_rules(engine, call.language, call.file_name, [f.body for f in fits], cases)
        if len(_WEIGHED) >= _MAX_WEIGHED:
            _WEIGHED.clear()
        _WEIGHED[key] = [sum(1 for hit in o.hits if hit) for o in outcomes]
    return _WEIGHED[key]


_WEIGHED: dict[tuple[str, str, tuple[tuple[str, str, bool], ...]], list[int]] = {}
_MAX_WEIGHED = 4096  # sets of fitting rules weighed and kept (a few integers each)


def offer(ws: Workspace, engine: Engine, call: SuggestCall,
          result: SuggestResult) -> tuple[int, list[dict[str, Any]]]:
    """The proven known rules put in `result`: where they were put and their bodies. First, unless the request's
    words name none of them (they were written for other requests) or the caller's fix examples gave the
    generaliser's top rule a verified fix: then after that rule."""
    items, bodies, named = [], [], 0
    for fit in proven(engine, call):
        rule = fit.rule
        why = (f"A rule written for requests like this one ({rule.says}); ast-grep checked it flags all "
               f"{len(call.invalid)} invalid example(s) and none of the {len(call.valid)} valid one(s).")
        made = offered.item(ws, engine, call, fit.body, rule.id, call.request or rule.says,
                            f"a known rule (`{rule.id}`), proven on the examples", why,
                            f"flags {rule.says}; read where it fires on this project (`proof`) before saving",
                            in_files=fit.in_files)
        if isinstance(made, str):
            continue  # the analyser refuses it on these examples: the generaliser's candidates stand
        named += telling(rule, call.request)
        items.append(made)
        bodies.append(fit.body)
        if len(items) == MAX_OFFERED:
            break
    if not items:
        return 0, []
    if call.pairs:
        result["warnings"].append("No fix is inferred for a known rule; the generaliser's candidates carry one "
                                  "where it verified.")
    top = result["candidates"][0] if result["candidates"] else None
    # After the generaliser's top rule when the request's words name no known rule offered (written for another
    # request), or when the caller gave fix examples and that rule carries the fix they verify (a known rule has none).
    at = 1 if top is not None and ((not named and _words(call.request or "")) or (call.pairs and "fix" in top)) else 0
    offered.put_first(result, items, call.count, after=at)
    return at, bodies
