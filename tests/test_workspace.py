"""Path confinement, atomic writes and the inter-process lock, on real files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sgtools.core.errors import BadInput, NotFound, OutsideWorkspace
from sgtools.project.workspace import Workspace, check_rule_id, resolve_root
from tests.conftest import snapshot_tree


def _listing(path: Path) -> set[str]:
    return {p.name for p in path.iterdir()}


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("../x", OutsideWorkspace),
        ("rules/../../x", OutsideWorkspace),
        ("/etc/passwd", OutsideWorkspace),
        ("rules/\x00evil", BadInput),
        ("a" * 300, BadInput),
        ("d/" * 2100, BadInput),
        ("", BadInput),
        ("/dev/null", OutsideWorkspace),
    ],
)
def test_escapes_are_refused(ws: Workspace, path: str, error: type[Exception]) -> None:
    outside_before = _listing(ws.root.parent)
    with pytest.raises(error):
        ws.write_text(path, "x")
    assert _listing(ws.root.parent) == outside_before
    assert snapshot_tree(ws.root) == {}


def test_symlink_leading_out_is_refused(ws: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws.root / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(OutsideWorkspace):
        ws.write_text("link/evil.yml", "x")
    with pytest.raises(OutsideWorkspace):
        ws.resolve("link")
    assert list(outside.iterdir()) == []


def test_symlinked_file_out_is_refused(ws: Workspace, tmp_path: Path) -> None:
    target = tmp_path / "secret.txt"
    target.write_text("keep")
    (ws.root / "innocent.yml").symlink_to(target)
    with pytest.raises(OutsideWorkspace):
        ws.write_text("innocent.yml", "overwritten")
    assert target.read_text() == "keep"


def test_symlink_inside_the_root_is_fine(ws: Workspace) -> None:
    (ws.root / "real").mkdir()
    (ws.root / "alias").symlink_to(ws.root / "real", target_is_directory=True)
    assert ws.resolve("alias/x.py") == ws.root / "real" / "x.py"


def test_absolute_path_inside_is_accepted_and_returned_relative(ws: Workspace) -> None:
    target = ws.resolve(str(ws.root / "src" / "a.py"))
    assert ws.relative(target) == "src/a.py"


def test_device_files_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(BadInput, match="regular file"):
        Workspace(tmp_path).resolve("pipe")


def test_must_exist(ws: Workspace) -> None:
    with pytest.raises(NotFound):
        ws.resolve("nope.py", must_exist=True)


def test_root_must_be_an_existing_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BadInput, match="does not exist"):
        resolve_root(tmp_path / "missing")
    monkeypatch.setenv("SGTOOLS_ROOT", str(tmp_path))
    assert resolve_root() == tmp_path.resolve()


@pytest.mark.parametrize("rid", ["../../x", "a/b", "", ".hidden", "x" * 129, "a b", "-lead", "..", "é"])
def test_bad_rule_ids(rid: str) -> None:
    with pytest.raises(BadInput):
        check_rule_id(rid)


@pytest.mark.parametrize("rid", ["no-eval", "A1", "go.unchecked_error", "x" * 128])
def test_good_rule_ids(rid: str) -> None:
    assert check_rule_id(rid) == rid


def test_atomic_write_keeps_mode_and_leaves_no_temp(ws: Workspace) -> None:
    path = ws.root / "script.sh"
    path.write_text("old")
    path.chmod(0o750)
    ws.write_text("script.sh", "new")
    assert path.read_text() == "new"
    assert path.stat().st_mode & 0o777 == 0o750
    assert _listing(ws.root) == {"script.sh"}


def test_failed_write_leaves_previous_file_intact(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk failure at rename time cannot be caused for real here, so os.replace is made to fail."""
    (ws.root / "rule.yml").write_text("previous")

    def boom(*_: object, **__: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        ws.write_text("rule.yml", "new")
    assert (ws.root / "rule.yml").read_text() == "previous"
    assert _listing(ws.root) == {"rule.yml"}


# The kernel kills the writer exactly half way: RLIMIT_FSIZE makes the write that crosses 512 KiB raise SIGXFSZ,
# whose default action ends the process, as a crash or an OOM kill would, with no chance to clean up. Deterministic
# (no sleep racing the write), and the fault is real, not mocked.
HALF = 512 * 1024
WRITER = textwrap.dedent(
    f"""
    import resource, signal, sys
    from sgtools.project.workspace import Workspace
    ws = Workspace(sys.argv[1])
    payload = sys.argv[2].encode() * ({HALF} * 2)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it by default; the kernel's action is to kill
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, ({HALF}, {HALF}))
    ws.write_bytes("data.bin", payload)
    """
)


def test_write_killed_half_way_leaves_previous_file(ws: Workspace) -> None:
    (ws.root / "data.bin").write_bytes(b"previous")
    proc = subprocess.run([sys.executable, "-c", WRITER, str(ws.root), "z"], capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGXFSZ, proc.stderr  # killed by the kernel, mid-write
    [partial] = [p for p in ws.root.iterdir() if p.name != "data.bin"]  # the temp file the kill left behind
    assert partial.name.startswith(".data.bin.") and partial.stat().st_size == HALF
    assert (ws.root / "data.bin").read_bytes() == b"previous"


COUNTER = textwrap.dedent(
    """
    import sys
    from sgtools.project.workspace import Workspace
    ws = Workspace(sys.argv[1])
    for _ in range(int(sys.argv[2])):
        with ws.lock():
            path = ws.root / "counter.txt"
            value = int(path.read_text()) if path.exists() else 0
            ws.write_text("counter.txt", str(value + 1))
    """
)


@pytest.mark.slow
def test_concurrent_writers_never_lose_an_update(ws: Workspace) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", COUNTER, str(ws.root), "40"]) for _ in range(4)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    assert (ws.root / "counter.txt").read_text() == "160"
    assert _listing(ws.root) == {"counter.txt"}


def test_threads_share_the_lock(ws: Workspace) -> None:
    import threading

    def bump() -> None:
        for _ in range(25):
            with ws.lock():
                path = ws.root / "n"
                value = int(path.read_text()) if path.exists() else 0
                ws.write_text("n", str(value + 1))

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (ws.root / "n").read_text() == "100"
