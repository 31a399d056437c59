"""Fault catalogue, concurrency: two `sgtools trust` at once, for two projects sharing one trust store, must both
be remembered (the store is updated under a file lock with an atomic replace; a thread lock alone lost one in
2-12 of 20 rounds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.faults import report

CONFIG = "ruleDirs: [rules]\ncustomLanguages:\n  marker:\n    libraryPath: lib/marker.so\n    extensions: [mk]\n"

# Each process says it is ready, waits for the go file, then runs the real CLI entry point in-process (no start-up
# jitter between the two, so their read-modify-writes overlap as often as they can).
RUNNER = textwrap.dedent("""
    import os, sys, time
    go, root = sys.argv[1], sys.argv[2]
    from sgtools.cli import main  # everything imported before the start line
    from sgtools.cli import trust as _cli_trust
    from sgtools.engine import trust
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.0005)
    sys.exit(main(["trust", "--root", root]))
""")


def _project(root: Path, n: int) -> None:
    (root / "rules").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "sgconfig.yml").write_text(CONFIG)
    (root / "lib" / "marker.so").write_bytes(os.urandom(64) + bytes([n]))  # hashed, never loaded by `trust`


@pytest.mark.slow
def test_catalogue_two_concurrent_trust_calls_lose_nothing(tmp_path: Path) -> None:
    roots = [tmp_path / "a", tmp_path / "b"]
    for i, root in enumerate(roots):
        _project(root, i)
    config_home = tmp_path / "config"
    env = {**os.environ, "XDG_CONFIG_HOME": str(config_home)}
    store = config_home / "context-sherpa" / "trusted-parsers.json"
    failures: list[str] = []
    for n in range(20):
        store.unlink(missing_ok=True)
        go = tmp_path / f"go{n}"
        procs = [subprocess.Popen([sys.executable, "-c", RUNNER, str(go), str(root)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for root in roots]
        for p in procs:  # both imported and waiting (a fixed sleep was 20 s a run, and too short on a loaded machine)
            assert p.stdout is not None and p.stdout.readline() == "ready\n", f"round {n}: a runner did not start"
        go.touch()
        for p in procs:
            _out, err = p.communicate(timeout=60)
            if p.returncode != 0:
                failures.append(f"round {n}: exit {p.returncode}: {err[-200:]}")
        libs = json.loads(store.read_text())["libraries"] if store.is_file() else {}
        missing = [str(r) for r in roots if str((r / "lib" / "marker.so").resolve()) not in libs]
        if missing:
            failures.append(f"round {n}: lost {missing}")
    report("concurrency: two `sgtools trust` at once (20 rounds)", 20, failures)
