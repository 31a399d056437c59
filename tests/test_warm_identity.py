"""Identity: on the ast-grep-essentials corpus, scan_code answers exactly the same through the warm engine
(long-lived `ast-grep lsp`) as through spawned `ast-grep scan` — every diagnostic, position, label, fix-it and
verification verdict of every invalid and valid case."""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.scan import snippet
from tests.conftest import needs_corpus
from tests.test_corpus_scan import EXPECTED_INVALID, EXPECTED_VALID, _cases, _project

pytestmark = [needs_corpus, pytest.mark.slow]


@pytest.mark.timeout(1200)
def test_warm_and_spawn_agree_on_every_corpus_case(tmp_path: Path) -> None:
    ws, languages = _project(tmp_path / "essentials")
    spawn = Engine(settings=Settings.from_env({}))
    warm = Engine(settings=Settings.from_env({}).replace(warm_engine=1, warm_engine_max=16))
    warm.enable_warm()
    assert warm.warm is not None
    cases = [c for c in _cases() if c[0] in languages]
    assert Counter(kind for _, kind, _, _ in cases) == {"invalid": EXPECTED_INVALID, "valid": EXPECTED_VALID}

    def both(case: tuple[str, str, int, str]) -> tuple[str, str, str]:
        rule_id, kind, index, code = case
        a = snippet.scan_code(ws, spawn, code, language=languages[rule_id])
        b = snippet.scan_code(ws, warm, code, language=languages[rule_id])
        return f"{rule_id}/{kind}/{index}", json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True)

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes = list(pool.map(both, cases))
        stats = warm.warm.stats
    finally:
        warm.warm.close()
    differ = [key for key, a, b in outcomes if a != b]
    with_fixits = sum(1 for _, a, _ in outcomes if '"fixits": [{' in a)
    print(f"\nwarm vs spawn on {len(cases)} corpus cases: {len(differ)} differ; {with_fixits} with fix-its; "
          f"served warm {stats.warm_calls}, spawned {stats.spawn_calls} (labels or fallback), "
          f"processes started {stats.starts}, killed {stats.kills}")
    for key, a, b in outcomes:
        if a != b and key == differ[0]:
            print(" spawn:", a[:3000], "\n warm: ", b[:3000])
    assert not differ, differ[:20]
    assert stats.warm_calls >= 690  # whole answers from the warm path (698 of 703 when the label twins grew)
