"""Identity of pending changes (`scan_code` with `files`): on the ast-grep-essentials corpus, every invalid and
valid case laid out as a file of a pending change (up to CHANGE files of one language), the warm engine answers
exactly what the spawn path (the change scanned as a tree by `ast-grep scan`) answers: diagnostics,
positions, labels, fix-its and their verification."""

from __future__ import annotations

import json
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.languages import file_name_for, language_key
from sgtools.scan import overlay, snippet
from tests.conftest import needs_corpus
from tests.essentials import Essentials, cases

pytestmark = [needs_corpus, pytest.mark.slow]

# Files per change. Each spawned change is one `ast-grep scan` compiling the language's rules (~0.1 CPU s for
# Python's): changes of 5 files took 146 such scans, changes of 25 take 36. Under the 64-file limit of a call.
CHANGE = 25


@pytest.mark.timeout(1200)
def test_warm_and_spawn_overlays_agree_on_every_corpus_case(essentials: Essentials,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ws, languages = essentials.workspace(), essentials.languages
    cfg = project.load_config(ws)
    by_language: dict[str, list[str]] = defaultdict(list)
    for case in cases():
        if case.rule_id in languages:
            by_language[str(language_key(languages[case.rule_id], cfg))].append(case.code)
    changes = []
    for lang, codes in sorted(by_language.items()):
        name = file_name_for(lang, cfg)
        for start in range(0, len(codes), CHANGE):
            changes.append([{"path": f"src/{lang}/{start + i}/{name}", "code": code}
                            for i, code in enumerate(codes[start:start + CHANGE])])
    spawn = Engine(settings=Settings.from_env({}))
    warm = Engine(settings=Settings.from_env({}).replace(warm_engine=1, warm_engine_max=16, warm_engine_timeout=60.0))
    warm.enable_warm()
    assert warm.warm is not None
    spawned_files: list[int] = []  # files the warm engine left to a spawn (findings with labels it cannot give)
    real_scan_tree = overlay.scan_tree

    def scan_tree(engine: Engine, *args: Any, **kw: Any) -> list[dict[str, Any]]:
        if engine is warm:
            spawned_files.append(len(args[2]))
        return real_scan_tree(engine, *args, **kw)

    monkeypatch.setattr(overlay, "scan_tree", scan_tree)

    def both(files: list[dict[str, str]]) -> tuple[str, str, str]:
        a = snippet.scan_code(ws, spawn, files=files)
        b = snippet.scan_code(ws, warm, files=files)
        return files[0]["path"], json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True)

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes = list(pool.map(both, changes))
        stats = warm.warm.stats
    finally:
        warm.warm.close()
    differ = [key for key, a, b in outcomes if a != b]
    issues = sum(a.count('"ruleId"') for _, a, _ in outcomes)
    files = sum(map(len, changes))
    print(f"\nwarm vs spawn on {len(changes)} changes of up to {CHANGE} files ({files} files, ~{issues} findings): "
          f"{len(differ)} differ; {files - sum(spawned_files)} files answered warm; calls wholly warm "
          f"{stats.warm_calls}, with a spawn {stats.spawn_calls}")
    for key, a, b in outcomes:
        if a != b and key == differ[0]:
            print(" spawn:", a[:3000], "\n warm: ", b[:3000])
    assert not differ, differ[:20]
    assert not any('"truncated": true' in a for _, a, _ in outcomes)  # every finding of every file compared
    # As for snippets (tests/test_warm_identity.py): most invalid cases of this corpus come from rules with labels
    # the language server cannot give (scan/warmscan.py), and only those files are left to a spawn.
    assert files - sum(spawned_files) > 200
