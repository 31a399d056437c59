"""engine/tempdirs: a process's private root goes with it, however the process ends.

Real processes in a private TMPDIR: one is SIGKILLed (no exit handlers run, as with SIGTERM's default action or an
MCP host's kill), the next process to make its root removes the one left behind, and never a live process's root.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from sgtools.engine import tempdirs

# Makes its root (with a rule check's private dir in it, as validate_rule does), says where, then waits.
HOLD = """
import sys, time
from sgtools.engine import tempdirs
with tempdirs.private_dir("rule-") as tmp:
    (tmp / "r.yml").write_text("id: x")
    print(tempdirs.tmp_root(), flush=True)
    time.sleep(120)
"""
MAKE = "from sgtools.engine import tempdirs; print(tempdirs.tmp_root(), flush=True)"


def _start(code: str, tmp: Path) -> tuple[subprocess.Popen[str], Path]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def test_a_killed_process_root_is_removed_by_the_next_one_and_a_live_one_kept(tmp_path: Path) -> None:
    killed, dead_root = _start(HOLD, tmp_path)
    alive, live_root = _start(HOLD, tmp_path)
    try:
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        assert dead_root.is_dir() and any(dead_root.glob("rule-*/r.yml")), "the kill left its root behind"
        nxt, new_root = _start(MAKE, tmp_path)
        assert nxt.wait(timeout=60) == 0
        assert not dead_root.exists(), "the next process did not remove the dead process's root"
        assert live_root.is_dir() and any(live_root.glob("rule-*/r.yml")), "a live process's root was removed"
        assert not new_root.exists(), "a process that exits normally removes its own root"
    finally:
        alive.kill()
        alive.wait(timeout=30)
    assert tempdirs.sweep(tmp_path) == [live_root]


def test_a_root_nobody_has_locked_yet_is_left_alone(tmp_path: Path) -> None:
    # Between mkdtemp and the owner's lock (or made by an older version): a live process may be about to use it.
    young = tmp_path / f"{tempdirs.ROOT_PREFIX}young"
    young.mkdir()
    other = tmp_path / "sgtools-rule-abc"  # not a root: another prefix is never touched
    other.mkdir()
    assert tempdirs.sweep(tmp_path) == []
    assert young.is_dir() and other.is_dir()


def test_a_sweep_killed_half_way_leaves_trash_the_next_one_removes(tmp_path: Path) -> None:
    # What a sweeper SIGKILLed inside its rmtree leaves: the dead root already renamed, partly deleted.
    trash = tmp_path / f"{tempdirs.TRASH_PREFIX}123-{tempdirs.ROOT_PREFIX}abc"
    (trash / "rule-x").mkdir(parents=True)
    (trash / "rule-x" / "r.yml").write_text("id: x")
    tempdirs.sweep(tmp_path)
    assert not trash.exists()


def test_this_process_root_survives_its_own_sweep() -> None:
    root = tempdirs.tmp_root()
    assert (root / tempdirs.OWNER_FILE).is_file()
    assert root not in tempdirs.sweep(root.parent)
    assert root.is_dir()
