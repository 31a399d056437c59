"""Bounded input: every file or stdin the CLI or a hook reads stops at a cap and answers `[too-large]`, exit 2,
at once: `/dev/zero` as a file, an endless stdin, an sgconfig.yml that points at a device, a huge rule file in
a repository being indexed. Never a MemoryError, never an endless read."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.community.build import make_index
from sgtools.core import bounded, settings
from sgtools.core.errors import TooLarge
from sgtools.core.settings import Settings
from sgtools.project.workspace import Workspace

ZERO = "/dev/zero"
pytestmark = pytest.mark.skipif(not os.path.exists(ZERO), reason="needs /dev/zero")


@pytest.fixture
def endless_stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """stdin that never ends: /dev/zero itself (an endless pipe, as `yes |` would give, is tested below)."""
    with open(ZERO, "rb") as fh:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(fh))
        yield


def too_large(argv: list[str], capsys: pytest.CaptureFixture[str]) -> float:
    """Run the CLI in-process; it must exit 2 with a [too-large] line. Returns the seconds it took."""
    start = time.monotonic()
    code = main(argv)
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert code == 2 and "[too-large]" in err, (code, err)
    return took


@pytest.mark.parametrize("command", [["test"], ["add", "my-rule"]])
def test_rule_file_dev_zero(initialized: Workspace, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert too_large(["rule", *command, "--file", ZERO, "--root", str(initialized.root)], capsys) < 1.0


@pytest.mark.usefixtures("endless_stdin")
def test_rule_file_from_an_endless_stdin(initialized: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    assert too_large(["rule", "test", "--file", "-", "--root", str(initialized.root)], capsys) < 1.0


@pytest.mark.usefixtures("endless_stdin")
def test_claude_hook_with_an_endless_stdin(initialized: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    assert too_large(["hook", "claude", "--root", str(initialized.root)], capsys) < 1.0


def test_scan_baseline_dev_zero(initialized: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    assert too_large(["scan", "--baseline", ZERO, "--root", str(initialized.root), "--no-progress"], capsys) < 1.0


def test_sgconfig_pointing_at_a_device(ws: Workspace, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    os.symlink(ZERO, ws.root / "sgconfig.yml")  # a cloned repository is untrusted input
    monkeypatch.chdir(ws.root)
    assert too_large(["scan", "--no-progress"], capsys) < 1.0


def test_a_huge_rule_file_is_skipped_when_indexing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "_current", Settings(max_rule_bytes=1024))
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "big.yml").write_text("id: big\nlanguage: python\nrule:\n  pattern: x\n" + "#" * 2000)
    (tmp_path / "rules" / "ok.yml").write_text("id: ok\nlanguage: python\nmessage: m\nrule:\n  pattern: y\n")
    result = make_index(tmp_path, tmp_path / "index.json", source="t", license="MIT")
    assert [r["id"] for r in result.index["rules"]] == ["ok"]
    assert any("larger than 1024 bytes" in str(s) for s in result.skipped), result.skipped


def test_read_stream_stops_at_the_cap() -> None:
    class Endless(io.RawIOBase):
        reads = 0

        def readable(self) -> bool:
            return True

        def readinto(self, b: bytearray) -> int:  # type: ignore[override]
            self.reads += 1
            b[:] = b"y" * len(b)
            return len(b)

    stream = Endless()
    with pytest.raises(TooLarge, match=r"SGTOOLS_MAX_INPUT_BYTES"):
        bounded.read_stream(stream, "The input", "max_input_bytes")  # type: ignore[arg-type]
    assert stream.reads <= 65  # 64 MiB in 1 MiB reads, plus the one byte that proves it is too large
    assert bounded.read_stream(io.BytesIO(b"small"), "x", "max_input_bytes") == b"small"


def test_hook_in_a_real_process_with_an_endless_pipe(initialized: Workspace) -> None:
    """`yes | sgtools hook claude`: a pipe that never closes, through a real process."""
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "sgtools", "hook", "claude", "--root", str(initialized.root)],
                              stdin=yes.stdout, capture_output=True, text=True, timeout=60, check=False)
        took = time.monotonic() - start
    finally:
        yes.kill()
        yes.wait()
    assert proc.returncode == 2 and "[too-large]" in proc.stderr, proc.stderr
    assert took < 60  # a hang guard (the pipe never ends); the read itself stops at the cap


def test_a_file_past_max_file_bytes_keeps_its_findings_without_fix_its(initialized: Workspace,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from sgtools.engine.process import Engine
    from sgtools.scan.paths import scan_path

    (initialized.root / "rules/w.yml").write_text(
        "id: w\nlanguage: python\nseverity: info\nmessage: w\nrule:\n  pattern: wrap($A)\nfix: w($A)\n")
    (initialized.root / "small.py").write_text("wrap(1)\n")
    (initialized.root / "big.py").write_text("wrap(2)\n" + "# pad\n" * 400)
    monkeypatch.setattr(settings, "_current", Settings(max_file_bytes=1024))
    found = {d["file"]: d for d in scan_path(initialized, Engine())["issues"]}
    assert set(found) == {"big.py", "small.py"}
    assert found["big.py"]["fixits"] == [] and found["small.py"]["fixits"]
