"""MISSING tokens counted by the warm engine (scan/missing.py) equal the spawn path's CST-dump counts, and a
project holding every bundled Python rule starts no ast-grep process after its first scan_code call (issue 31:
fix-it verification's MISSING-token check used to spawn `ast-grep run --debug-query=cst` per text)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bin.bench_bundled import SNIPPETS, bundled_project
from sgtools.core.settings import Settings
from sgtools.engine import spawn as door
from sgtools.engine.process import Engine
from sgtools.engine.warm import WarmSpec
from sgtools.project.workspace import Workspace
from sgtools.scan import missing, snippet
from sgtools.scan.rulefiles import docs_file, missing_counter

# (language, file name, text): MISSING tokens (closing brackets, terminators), none, and texts this rule cannot
# count (a Python block left empty by error recovery is a named node with no text; Go's end of input).
TEXTS = [
    ("javascript", "a.js", "function f() { return 1 "), ("javascript", "a.js", "let x = (1 + 2;"),
    ("javascript", "a.js", "if (a { b(); }"), ("javascript", "a.js", "f(a.)"), ("javascript", "a.js", "x = 1;"),
    ("typescript", "a.ts", "const a: number = f(1, 2;\n"), ("java", "A.java", "class A { void f() { int x = 1 } }"),
    ("rust", "a.rs", "fn f() { let x = 1 }"), ("rust", "a.rs", "fn f( {}"),
    ("go", "a.go", "package main\nfunc f() { x := 1 \n"), ("go", "a.go", "package main\nfunc f( {}\n"),
    ("go", "a.go", "conn, err := grpc.Dial(address, grpc.WithInsecure())"),
    ("c", "a.c", "int main() { return 0 }\n"), ("python", "a.py", "print(1)\n"), ("python", "a.py", "x = [1, 2"),
    ("python", "a.py", "def f():\n    return (a\n"),
]


def test_root_kinds_are_the_parsers_roots(engine: Engine, tmp_path: Path) -> None:
    for language, kind in missing.ROOT_KINDS.items():
        tree, _ = engine.dump_tree("x", language, "cst", cwd=tmp_path)
        assert tree.splitlines()[0].split(" ")[0] == kind, language


def test_warm_counts_are_the_dump_counts(tmp_path: Path) -> None:
    eng = Engine(settings=Settings.from_env({}).replace(warm_engine=1, warm_engine_timeout=60.0))
    eng.enable_warm()
    assert eng.warm is not None
    spawned = missing_counter(eng, tmp_path)
    outcomes: Counter[str] = Counter()
    try:
        for language, name, text in TEXTS:
            doc = missing.missing_rule_doc(language)
            assert doc is not None
            spec = WarmSpec(str(eng.binary), json.dumps({"ruleDirs": ["rules"]}), (), docs_file([doc]), (), name,
                            language)
            found = missing.count(eng.warm.scan(spec, [text])[0]) if missing.countable(language, text) else None
            expected = spawned(language, text)
            if found is None:
                outcomes["left to the dump"] += 1
            else:
                assert found == expected, (language, text, found, expected)
                outcomes["missing" if found else "none"] += 1
    finally:
        eng.warm.close()
    assert outcomes == {"missing": 10, "none": 4, "left to the dump": 2}


def test_bundled_python_project_spawns_nothing_after_the_first_call(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every process the engine starts is counted (a spy on the one door, engine/spawn.py's `spawn`, which still
    starts the real process): after the first scan_code call, none, and every call is reported warm."""
    root, _multi = bundled_project(tmp_path, "python")
    ws = Workspace(root)
    eng = Engine(settings=Settings.from_env({}).replace(warm_engine=1, warm_engine_timeout=60.0))
    eng.enable_warm()
    assert eng.warm is not None
    started: list[str] = []
    real = door.spawn

    def spy(argv: Any, **kw: Any) -> Any:
        started.append(" ".join(map(str, argv[1:3])))
        return real(argv, **kw)

    monkeypatch.setattr("sgtools.engine.process.spawn", spy)  # what Engine.run calls
    findings, clean = SNIPPETS["python"]["findings"], SNIPPETS["python"]["clean"]
    broken = findings.replace("    return token, value\n", "    return (token, value\n")
    try:
        first = snippet.scan_code(ws, eng, findings, language="python")
        assert any(fx.get("edits") for d in first["issues"] for fx in d.get("fixits", []))
        started.clear()
        before = (eng.warm.stats.warm_calls, eng.warm.stats.spawn_calls)
        for code in [findings, clean, broken] * 5:
            snippet.scan_code(ws, eng, code, language="python")
        stats = eng.warm.stats
        warm, spawn = stats.warm_calls - before[0], stats.spawn_calls - before[1]
    finally:
        eng.warm.close()
    print(f"\nbundled Python project, 15 scan_code calls after the first: {len(started)} processes started, "
          f"served warm {warm}, spawned {spawn}")
    assert started == []
    assert (warm, spawn) == (15, 0)
