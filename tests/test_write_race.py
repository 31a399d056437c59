"""Fault catalogue, symlink-swap race: `rules/` is swapped for a symlink to a directory outside the root in a
tight loop (another process) while rules are written; a write must land inside the root or be refused."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sgtools.core.errors import BadInput, OutsideWorkspace
from sgtools.project.workspace import Workspace
from tests.faults import report

# renameat2(RENAME_EXCHANGE) swaps the real directory and a symlink atomically: `rules` is never missing, it is
# either the directory or the symlink to `outside`, flipping as fast as the other process can call it.
SWAPPER = textwrap.dedent("""
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    rules, link, outside, stop = (a.encode() for a in sys.argv[1:5])
    os.symlink(outside, link)
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    flips = 0
    while not os.path.exists(stop):
        if libc.renameat2(AT_FDCWD, rules, AT_FDCWD, link, RENAME_EXCHANGE) != 0:
            sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
        flips += 1
    if os.path.islink(rules):
        libc.renameat2(AT_FDCWD, rules, AT_FDCWD, link, RENAME_EXCHANGE)
    print(flips)
""")


@pytest.mark.slow
def test_catalogue_symlink_swap_race_never_escapes(ws: Workspace, tmp_path: Path) -> None:
    rules = ws.root / "rules"
    rules.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    stop = tmp_path / "stop"
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(rules), str(ws.root / "rules.link"),
                                str(outside), str(stop)], stdout=subprocess.PIPE, text=True)
    attempts = refused = written = 0
    crashed: list[str] = []
    try:
        time.sleep(0.1)
        while attempts < 1000:
            attempts += 1
            try:
                ws.write_text(f"rules/r{attempts}.yml", "id: r\n")
                written += 1
            except (OutsideWorkspace, BadInput):  # BadInput: the link flipped while resolve read it
                refused += 1
            except OSError as exc:  # neither written nor cleanly refused: a failure
                crashed.append(f"{attempts}: {exc}")
    finally:
        stop.touch()
        out, _ = swapper.communicate(timeout=30)
    assert swapper.returncode == 0, out
    escaped = sorted(os.listdir(outside))
    inside = {p.name for p in rules.iterdir()}
    assert refused > 0 and written > 0, "the swap never raced a write: the test proved nothing"
    assert len(inside) == written, "every write that succeeded is inside the root"
    print(f"\nsymlink race: {written} written inside, {refused} refused, {out.strip()} swaps")
    report("symlink-swap race (writes that escaped the root, or failed uncleanly)", attempts, escaped + crashed)
