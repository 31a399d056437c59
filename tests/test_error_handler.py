"""The CLI's error handler: an unexpected exception is one stderr line naming a log file, the full traceback in that
file (user cache directory), and exit 3, never 1 (which means findings) nor Python's own traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.cli import exit_codes
from sgtools.cli.error_handler import LOG_NAME, run_guarded
from sgtools.core.errors import NotFound

# An internal error is a bug, and a bug cannot be caused for real on purpose: this child process replaces the doctor
# command's service with one that raises (the only injected part), then runs the real CLI entry point, so the real
# parser, settings check, handler, log writing and exit code are what the test sees.
INJECT_BUG = """
import sys
import sgtools.cli.doctor as doctor
def broken(*_args, **_kw):
    raise RuntimeError("injected bug: the\\nsecond line")
doctor.server_info = broken
from sgtools.cli import main
sys.exit(main(["doctor"]))
"""


def _run(tmp_path: Path, code: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGTOOLS_")}
    env["XDG_CACHE_HOME"] = str(cache)
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def test_an_internal_error_exits_3_with_one_line_and_a_log(tmp_path: Path) -> None:
    out = _run(tmp_path, INJECT_BUG, tmp_path / "cache")
    log = tmp_path / "cache" / "context-sherpa" / LOG_NAME
    assert out.returncode == exit_codes.EXIT_INTERNAL == 3, out.stderr
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert "internal error (RuntimeError: injected bug: the second line)" in out.stderr
    assert str(log) in out.stderr
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "in broken" in text
    assert "RuntimeError: injected bug" in text and "sgtools: " in text and "python: " in text


def test_an_unwritable_cache_still_exits_3_with_the_traceback_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the cache directory should be")
    out = _run(tmp_path, INJECT_BUG, tmp_path / "cache")
    assert out.returncode == 3, out.stderr
    assert "Traceback (most recent call last)" in out.stderr and "RuntimeError: injected bug" in out.stderr
    assert out.stderr.splitlines()[-1].startswith("sgtools ") and "writing" in out.stderr.splitlines()[-1]


def test_a_failing_stdout_is_an_internal_error_not_a_python_crash(tmp_path: Path) -> None:
    """A real fault, not injected: stdout on /dev/full fails every write. Exit 3 (not Python's 120 at shutdown)."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGTOOLS_")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    with open("/dev/full", "w") as full:
        out = subprocess.run([sys.executable, "-m", "sgtools", "community", "search", "error", "--json"],
                             cwd=tmp_path, env=env, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert out.returncode in (exit_codes.EXIT_INTERNAL, exit_codes.EXIT_ERROR), out.stderr  # 2 once it is `[io]`
    assert "Traceback" not in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr


def test_expected_errors_and_interrupts_keep_their_codes(capsys: pytest.CaptureFixture[str]) -> None:
    def missing() -> int:
        raise NotFound("No rule x. Run `sgtools rule list`.")

    def interrupted() -> int:
        raise KeyboardInterrupt

    assert run_guarded(missing) == exit_codes.EXIT_ERROR
    assert capsys.readouterr().err == "[not-found] No rule x. Run `sgtools rule list`.\n"
    assert run_guarded(interrupted) == exit_codes.EXIT_INTERRUPTED
    assert run_guarded(lambda: exit_codes.EXIT_FINDINGS) == 1
