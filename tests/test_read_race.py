"""Fault catalogue, read-side symlink swaps: a folder of the workspace is exchanged with a symlink to a folder
outside the root in a tight loop (another process, renameat2 RENAME_EXCHANGE) while `find_code` and
`scan_path` read. No result may carry an outside file's text, and none may be `[engine-failed]`: a clean
refusal or a result without the moved matches (noted) is right."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sgtools.core.errors import SgToolsError
from sgtools.edit.structural import find_code
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan.paths import PathScan, scan_path
from tests.faults import report
from tests.test_write_race import SWAPPER

SECRET = "SECRET_OUTSIDE_TEXT"
CALLS = 1000
BUDGET_S = 240.0


@pytest.mark.slow
def test_catalogue_read_side_symlink_swaps_never_leak(ws: Workspace, engine: Engine, tmp_path: Path) -> None:
    (ws.root / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    (ws.root / "rules").mkdir()
    (ws.root / "rules" / "p.yml").write_text("id: p\nlanguage: python\nseverity: warning\nmessage: print $A\n"
                                             "rule: {pattern: print($A)}\n")
    sub = ws.root / "src" / "sub"
    sub.mkdir(parents=True)
    for i in range(5):
        (sub / f"in{i}.py").write_text(f"print('inside {i}')\n")
        (ws.root / "src" / f"top{i}.py").write_text(f"print('top {i}')\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    for i in range(5):  # the same names as inside, and others: both kinds of leak are looked for
        (outside / f"in{i}.py").write_text(f"print('{SECRET} {i}')\n")
        (outside / f"secret{i}.py").write_text(f"print('{SECRET} other {i}')\n")
    stop = tmp_path / "stop"
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(sub), str(ws.root / "src" / "sub.link"),
                                str(outside), str(stop)], stdout=subprocess.PIPE, text=True)
    failures: list[str] = []
    calls = refused = matched = 0
    start = time.monotonic()
    try:
        time.sleep(0.1)
        while calls < CALLS and time.monotonic() - start < BUDGET_S:
            calls += 1
            try:
                if calls % 5 < 3:
                    result: object = find_code(ws, engine, "print($A)", "python", paths=["src"])
                    matched += len(result["matches"])  # type: ignore[index]
                else:
                    result = scan_path(ws, engine, PathScan(verify_fixits=False), paths=["src"])
                    matched += len(result["issues"])  # type: ignore[index]
            except SgToolsError as exc:
                if exc.code == "engine-failed" or SECRET in str(exc):
                    failures.append(f"call {calls}: [{exc.code}] {exc}")
                else:
                    refused += 1
                continue
            except Exception as exc:
                failures.append(f"call {calls}: {type(exc).__name__}: {exc}")
                continue
            if SECRET in json.dumps(result):
                failures.append(f"call {calls}: outside text leaked")
    finally:
        stop.touch()
        flips, _ = swapper.communicate(timeout=30)
    print(f"\n{calls} reads in {time.monotonic() - start:.0f} s, {int(flips or 0)} swaps, {refused} clean refusals, "
          f"{matched} matches returned")
    assert int(flips or 0) > calls, "the swapper did not keep up: the race did not run"
    report(f"read-side symlink swaps ({calls} find_code/scan_path calls)", calls, failures)
