"""scan_code with `files` answered by the warm engine (the MCP server's long-lived ast-grep): exactly the answer
of the spawn path (a private copy of the tree scanned by `ast-grep scan`, itself equal to a scan of the files on
disk, tests/test_overlay.py), with `files`/`ignores` globs and `languageGlobs` applied per path, and never stale
after a rule edit. Rules whose labels the server cannot give stay on the spawn path."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import pytest

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.scan.fallback import scan_code

RULES = """\
id: no-print-src
language: python
severity: warning
message: print in library code
files: ["src/**/*.py", "src/**/*.pyx"]
rule: {pattern: print($$$A)}
fix: log($$$A)
---
id: no-eval
language: python
severity: error
message: eval of $X
ignores: ["tests/**"]
rule: {pattern: eval($X)}
fix: ast.literal_eval($X)
---
id: open-in-function
language: python
severity: info
message: open inside a function
rule:
  pattern: open($P)
  inside: {kind: function_definition, stopBy: end}
---
id: no-console
language: javascript
severity: warning
message: console.log left in
files: ["web/**"]
rule: {pattern: console.log($$$A)}
fix: logger.debug($$$A)
"""
CHANGE = [
    {"path": "src/app.py", "code": "import ast\nprint('日本😀')\r\nx = eval(data)\ndef f():\n    return open(p)\n"},
    {"path": "src/fast.pyx", "code": "print(1)\n"},
    {"path": "tests/test_app.py", "code": "print(2)\ny = eval(data)\n"},
    {"path": "web/main.js", "code": "console.log('x', 1);\nconst a = 1;\n"},
    {"path": "tools/build.js", "code": "console.log('not in web');\n"},
]


@pytest.fixture
def proj(ws: Workspace) -> Workspace:
    project.initialize(ws)
    cfg = ws.root / "sgconfig.yml"
    cfg.write_text(cfg.read_text(encoding="utf-8") + "languageGlobs:\n  python: ['*.pyx']\n", encoding="utf-8")
    (ws.root / "rules" / "rules.yml").write_text(RULES, encoding="utf-8")
    # Files written less than 2 s ago are stamped by content too (scan/rulefiles.py `_stamp`), so the warm
    # engine's key changes once they age: under load that came between two calls of one test (a new process,
    # 7 starts instead of 4; a SIGSTOPped process never asked). Dated back, they are stamped one way throughout.
    old = time.time() - 60
    for path in (cfg, ws.root / "rules" / "rules.yml", *(ws.root / "utils").iterdir()):
        os.utime(path, (old, old))
    return ws


def _both(ws: Workspace, warm: Engine, files: list[dict[str, str]]) -> tuple[dict[str, Any], dict[str, Any]]:
    got = scan_code(ws, warm, files=files)
    want = scan_code(ws, Engine(settings=Settings.from_env({})), files=files)
    return got, want


def test_the_warm_engine_answers_an_overlay_exactly_as_the_spawn_path(proj: Workspace, warm: Engine) -> None:
    assert warm.warm is not None
    got, want = _both(proj, warm, [*CHANGE, {"path": "lib/x.go", "code": "package x\n"}])  # Go: no rules
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert warm.warm.stats.last == "warm" and warm.warm.stats.warm_calls == 1, warm.warm.stats
    # python and javascript (each round has two documents or more: one process per lane), each shared by the
    # scan and the fix-it verification
    assert warm.warm.stats.starts == 2 * warm.settings.warm_engine_lanes == 4
    assert {(d["file"], d["ruleId"]) for d in got["issues"]} == {
        ("src/app.py", "no-print-src"), ("src/app.py", "no-eval"), ("src/app.py", "open-in-function"),
        ("src/fast.pyx", "no-print-src"), ("web/main.js", "no-console")}  # globs and languageGlobs applied
    assert any(d["labels"] for d in got["issues"] if d["ruleId"] == "open-in-function")  # the `inside` label
    assert all(fx["verified"] for d in got["issues"] for fx in d["fixits"])


def test_a_rule_edit_is_never_answered_stale(proj: Workspace, warm: Engine) -> None:
    rules = proj.root / "rules" / "rules.yml"
    for n in range(3):
        rules.write_text(RULES.replace("eval of $X", f"eval of $X, edit {n}"), encoding="utf-8")
        got, want = _both(proj, warm, CHANGE[:1])
        assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
        assert any(d["message"] == f"eval of data, edit {n}" for d in got["issues"])


def test_what_the_server_cannot_label_is_spawned(proj: Workspace, warm: Engine,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the files whose findings need labels the server cannot give are scanned by a spawn."""
    from sgtools.scan import overlay

    assert warm.warm is not None
    spawned: list[list[str]] = []
    real_scan_tree = overlay.scan_tree

    def scan_tree(engine: Engine, *args: Any, **kw: Any) -> list[dict[str, Any]]:
        if engine is warm:
            spawned.append([f.key for f in args[2]])
        return real_scan_tree(engine, *args, **kw)

    monkeypatch.setattr(overlay, "scan_tree", scan_tree)
    # a global util with constraints of its own: the label twin cannot see through it (scan/warmscan.py)
    (proj.root / "utils" / "is-print.yml").write_text("id: is-print\nlanguage: python\nrule: {pattern: print($A)}\n"
                                                      "constraints: {A: {regex: '.'}}\n")
    rules = proj.root / "rules" / "rules.yml"
    rules.write_text(RULES.replace("rule: {pattern: print($$$A)}\nfix: log($$$A)",
                                   "rule: {matches: is-print}"), encoding="utf-8")
    got, want = _both(proj, warm, CHANGE)
    assert ("src/fast.pyx", "no-print-src") in {(d["file"], d["ruleId"]) for d in got["issues"]}
    assert got == want and warm.warm.stats.last == "spawn" and "labels" in str(warm.warm.stats.last_reason)
    assert spawned == [["src/app.py", "src/fast.pyx"]]  # tests/ is outside no-print-src's files: answered warm


def test_one_round_trip_per_language_for_the_fixes_and_no_file_scanned_twice(proj: Workspace, warm: Engine,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan's matches are the verification's baseline (the originals are not re-scanned with the copies),
    and the quick fixes of every document of a round are asked in one round trip."""
    from sgtools.engine.lsp import LspSession
    from sgtools.engine.warm import WarmEngine

    scans: list[list[str]] = []
    fix_calls: list[int] = []
    real_scan, real_fixes = WarmEngine.scan, LspSession.quick_fixes
    monkeypatch.setattr(WarmEngine, "scan", lambda self, spec, texts, fixes_for=frozenset(), skip="", checks=True:
                        scans.append(list(texts)) or real_scan(self, spec, texts, fixes_for, skip, checks))
    monkeypatch.setattr(LspSession, "quick_fixes", lambda self, wanted, deadline:
                        fix_calls.append(len(wanted)) or real_fixes(self, wanted, deadline))
    two = [{"path": "src/a.py", "code": "x = eval(a)\nprint(1)\n"}, {"path": "src/b.py", "code": "y = eval(b)\n"}]
    got, want = _both(proj, warm, two)
    assert got == want and all(fx["verified"] for d in got["issues"] for fx in d["fixits"])
    assert scans[0] == [f["code"] for f in two] and len(scans) == 2, scans  # the scan, then the copies
    assert not {f["code"] for f in two} & set(scans[1])  # the originals are not scanned again
    # three fixable findings in two documents, one on each lane: one round trip per lane, at the same time
    assert sorted(fix_calls) == [1, 2], fix_calls


def test_a_killed_or_hung_engine_still_gets_the_same_answer(proj: Workspace) -> None:
    """Faults as for snippets (tests/test_warm_faults.py): SIGKILL between calls restarts the process; a stopped
    one is killed at the deadline and that call is answered by the spawn path; the next is warm again."""
    import os
    import signal
    import time

    from tests.test_warm_engine import gone

    # The deadline is a hang guard (60 s) for the calls that must be served warm: at 1 s a loaded machine's slow
    # restart tripped it and the call went to the spawn path. Only the stopped process's call runs under 1 s.
    e = Engine(settings=Settings.from_env({}).replace(warm_engine=1, warm_engine_timeout=60.0))
    e.enable_warm()
    assert e.warm is not None
    guard = e.warm.settings
    python = CHANGE[:3]
    try:
        got, want = _both(proj, e, python)
        assert got == want and e.warm.stats.last == "warm"
        pids = e.warm.pids()
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        assert _both(proj, e, python)[0] == want and e.warm.stats.last == "warm" and all(map(gone, pids))
        pids = e.warm.pids()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)  # alive and silent: the deadline (1 s here) must catch it
        e.warm.settings = guard.replace(warm_engine_timeout=1.0)
        t = time.monotonic()
        assert _both(proj, e, python)[0] == want
        assert time.monotonic() - t < 60 and e.warm.stats.last == "spawn" and all(map(gone, pids))
        e.warm.settings = guard
        assert _both(proj, e, python)[0] == want and e.warm.stats.last == "warm"
    finally:
        e.warm.close()
