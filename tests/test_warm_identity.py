"""The ast-grep-essentials corpus through `scan_code`, spawned and warm, every case once each way.

Spawned (`ast-grep scan` per call, as an agent's call without the warm engine): every invalid case is reported by
its rule and no valid one is, and every fix-it is verified and removes its diagnostic. Warm (the long-lived
`ast-grep lsp`): exactly the same answer as spawned on every case, every diagnostic, position, label, fix-it and
verification verdict. One test, so the 703 spawned answers serve both claims (they were two tests, each spawning
all of them). The corpus project is conftest's `essentials` fixture, migrated once per session (tests/essentials.py).
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from sgtools.core import yamlio
from sgtools.core.settings import Settings
from sgtools.edit.text import apply_edits
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.scan import rulefiles, snippet
from tests.conftest import CORPUS, needs_corpus
from tests.essentials import EXPECTED_INVALID, EXPECTED_RULES, EXPECTED_VALID, Case, Essentials, cases

pytestmark = [needs_corpus, pytest.mark.slow]

# Cases whose outcome differs from the corpus' expectation, each with the reason. Keys are
# "<rule id>/<valid|invalid>/<index>". None are known today: the corpus passes completely.
KNOWN_EXCEPTIONS: dict[str, str] = {}


def _verdict(case: Case, result: dict[str, Any]) -> str | None:
    hit = any(d["ruleId"] == case.rule_id for d in result["issues"])
    if case.kind == "invalid" and not hit:
        return "invalid case not reported"
    if case.kind == "valid" and hit:
        return "valid case reported"
    return None


@pytest.mark.timeout(1200)
def test_essentials_corpus_spawned_and_warm(essentials: Essentials) -> None:
    ws, languages = essentials.workspace(), essentials.languages
    spawn = Engine(settings=Settings.from_env({}))
    ruleset = rulefiles.cached_ruleset(ws, project.load_config(ws), spawn)
    assert ruleset.errors == [], ruleset.error_dicts()[:5]
    assert len(ruleset.rules) == EXPECTED_RULES
    every = cases()
    assert Counter(c.kind for c in every) == {"invalid": EXPECTED_INVALID, "valid": EXPECTED_VALID}
    missing = sorted({c.rule_id for c in every} - set(languages))
    assert missing == [], f"test cases of rules the corpus does not hold: {missing}"

    warm = Engine(settings=Settings.from_env({}).replace(warm_engine=1, warm_engine_max=16, warm_engine_timeout=60.0))
    warm.enable_warm()
    assert warm.warm is not None

    def both(case: Case) -> tuple[dict[str, Any], dict[str, Any]]:
        a = snippet.scan_code(ws, spawn, case.code, language=languages[case.rule_id])
        b = snippet.scan_code(ws, warm, case.code, language=languages[case.rule_id])
        return dict(a), dict(b)

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes = list(pool.map(both, every))
        stats = warm.warm.stats
    finally:
        warm.warm.close()
    spawned = [a for a, _ in outcomes]

    # 1. Spawned: the corpus' own verdicts.
    failures = {c.key: why for c, res in zip(every, spawned, strict=True) if (why := _verdict(c, res))}
    kinds = Counter(c.kind for c in every if c.key not in failures)
    print(f"\nessentials corpus: {len(languages)} rules; invalid cases reported {kinds['invalid']}/{EXPECTED_INVALID}; "
          f"valid cases quiet {kinds['valid']}/{EXPECTED_VALID}; exceptions {len(failures)}")
    for key, why in sorted(failures.items()):
        print(f"  {key}: {why} (known: {KNOWN_EXCEPTIONS.get(key, 'NO')})")
    assert not {k: v for k, v in failures.items() if k not in KNOWN_EXCEPTIONS}
    assert not sorted(set(KNOWN_EXCEPTIONS) - set(failures)), "known exceptions that now pass; remove them"
    _fixits_verified_and_remove_their_finding(essentials, spawn, every, spawned)

    # 2. Warm: the same answers.
    dumped = [(c.key, json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True)) for c, (a, b)
              in zip(every, outcomes, strict=True)]
    differ = [key for key, a, b in dumped if a != b]
    with_fixits = sum(1 for _, a, _ in dumped if '"fixits": [{' in a)
    print(f"warm vs spawn on {len(every)} corpus cases: {len(differ)} differ; {with_fixits} with fix-its; "
          f"served warm {stats.warm_calls}, spawned {stats.spawn_calls} (labels or fallback), "
          f"processes started {stats.starts}, killed {stats.kills}")
    for key, a, b in dumped:
        if differ and key == differ[0]:
            print(" spawn:", a[:3000], "\n warm: ", b[:3000])
    assert not differ, differ[:20]
    assert stats.warm_calls >= 690  # whole answers from the warm path (698 of 703 when the label twins grew)


def _fixits_verified_and_remove_their_finding(essentials: Essentials, engine: Engine, every: list[Case],
                                              spawned: list[dict[str, Any]]) -> None:
    """Verified fix-its really remove their diagnostic: apply every one and scan the edited snippet again. Since
    issue 30 a suppression is no fix-it: the 20 this once asked for were mostly suppressions. The corpus has one
    rule with a `fix` (fix-format-security-error-cpp, 3 invalid cases): each of its cases yields one fix-it, and
    every fix-it of the corpus is verified (none lost its verification to a limit or a language it lacks)."""
    ws, languages = essentials.workspace(), essentials.languages
    # As bytes: parsed once per process by content digest (the essentials build parsed them already).
    with_fix = {str(d["id"]) for src in (CORPUS / "rules").rglob("*.yml")
                for d in yamlio.load_all_cached(src.read_bytes()) if isinstance(d, dict) and d.get("fix")}
    samples: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = []
    per_bucket: Counter[tuple[str, str]] = Counter()
    unverified = []
    for case, res in zip(every, spawned, strict=True):
        for d in res.get("issues", []):
            for fx in d["fixits"]:
                if not fx["verified"]:
                    unverified.append((d["ruleId"], (fx.get("verification") or {}).get("reason")))
                    continue
                per_bucket[(languages[case.rule_id].lower(), fx["kind"])] += 1
                samples.append((case.code, languages[case.rule_id], d, fx))
    assert unverified == []
    fixable = sum(1 for c in every if c.kind == "invalid" and c.rule_id in with_fix)
    assert len(samples) == fixable and fixable >= 3, (per_bucket, fixable)

    def recheck(sample: tuple[str, str, dict[str, Any], dict[str, Any]]) -> str | None:
        code, language, d, fx = sample
        new = apply_edits(code, fx["edits"])
        edit = fx["edits"][0]
        lo, hi = edit["byteStart"], edit["byteStart"] + len(edit["newText"].encode("utf-8"))
        again = snippet.scan_code(ws, engine, new, language=language)["issues"]
        left = [x for x in again if x["ruleId"] == d["ruleId"] and x["byteStart"] <= hi and x["byteEnd"] >= lo]
        return None if not left else f"{d['ruleId']} {fx['kind']} still reported after applying it"

    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for p in pool.map(recheck, samples) if p]
    print(f"  re-checked {len(samples)} verified fix-its: {dict(per_bucket)}")
    assert not problems, problems
