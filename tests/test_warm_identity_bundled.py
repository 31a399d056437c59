"""Identity on every bundled rule's test cases (community_index/rule-tests): in a project holding all bundled
rules of the case's language, scan_code answers exactly the same through the warm engine (long-lived
`ast-grep lsp`, labels from the rules' label twins) as through spawned `ast-grep scan` (every diagnostic,
position, label, fix-it and verification verdict), and every call after the first is served warm (issue 31:
at least 95%; the bundled rules hold no rule the warm path must leave to a spawn)."""

from __future__ import annotations

import json
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bin.bench_bundled import BUNDLED, SNIPPETS, bundled_project
from sgtools.core import yamlio
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan import snippet

pytestmark = pytest.mark.slow

TESTS = BUNDLED.parent / "rule-tests"


def _cases() -> dict[str, list[tuple[str, str]]]:
    """{language folder: [(case key, code)]} over every bundled rule's valid and invalid cases."""
    folder = {p.stem: p.parent.name for p in BUNDLED.glob("*/*.yml")}
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for path in sorted(TESTS.glob("*-test.yml")):
        doc = yamlio.load_one(path.read_text(encoding="utf-8"))
        for kind in ("invalid", "valid"):
            for i, code in enumerate(doc.get(kind) or []):
                out[folder[str(doc["id"])]].append((f"{doc['id']}/{kind}/{i}", str(code)))
    return out


@pytest.mark.timeout(1800)
def test_warm_and_spawn_agree_on_every_bundled_rule_case(tmp_path: Path) -> None:
    cases = _cases()
    assert sum(len(c) for c in cases.values()) >= 1431
    spawn = Engine(settings=Settings.from_env({}))
    warm = Engine(settings=Settings.from_env({}).replace(warm_engine=1, warm_engine_max=4, warm_engine_timeout=60.0))
    warm.enable_warm()
    assert warm.warm is not None
    differ: list[str] = []
    served = {"warm": 0, "spawn": 0}
    reasons: set[str] = set()
    try:
        for language, todo in sorted(cases.items()):
            root, _multi = bundled_project(tmp_path, language)
            ws = Workspace(root)
            first = SNIPPETS.get(language, {}).get("findings") or todo[0][1]
            snippet.scan_code(ws, warm, first, language=language)  # starts the process: not counted
            before = (warm.warm.stats.warm_calls, warm.warm.stats.spawn_calls)

            def both(case: tuple[str, str], ws: Workspace = ws, lang: str = language) -> tuple[str, bool]:
                key, code = case
                a = snippet.scan_code(ws, spawn, code, language=lang)
                b = snippet.scan_code(ws, warm, code, language=lang)
                return key, json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)

            with ThreadPoolExecutor(max_workers=2) as pool:
                differ.extend(key for key, same in pool.map(both, todo) if not same)
            stats = warm.warm.stats
            served["warm"] += stats.warm_calls - before[0]
            served["spawn"] += stats.spawn_calls - before[1]
            if stats.last_reason:
                reasons.add(stats.last_reason)
    finally:
        warm.warm.close()
    total = served["warm"] + served["spawn"]
    print(f"\nwarm vs spawn on {total} bundled rule cases: {len(differ)} differ; served warm {served['warm']}, "
          f"spawned {served['spawn']} ({sorted(reasons)[:3]})")
    assert not differ, differ[:20]
    assert served["spawn"] == 0, sorted(reasons)
