"""A new user's first hour: clone the repository into an empty directory with nothing beside it (no ../shared),
run the README's two set-up commands as written, and check that they succeed, and that the main job fails loudly
when its install fails or its scan breaks (only `sgtools scan`'s exit 1, findings, is tolerated).

The test command is the README's verbatim with a smoke selection appended (SMOKE: the layout, the engine, the
CLI's scan and one MCP session over stdio), not the whole suite again: the suite itself is what the outer run is.
What the clone must show is that the install works and pytest, its plugins (`-n 2` needs pytest-xdist from the
test extra) and the tests' fixtures run there with nothing beside the clone. `SGTOOLS_IN_FRESH_CLONE=1` in its
environment makes this module skip there, so the clone does not clone itself again.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NESTED_ENV = "SGTOOLS_IN_FRESH_CLONE"
# Hang guards, not budgets: a venv and `pip install .` with its dependencies, then a scan of ~2,200 files, take
# 1-4 minutes on a shared 2-core VM; the smoke selection about a minute.
SETUP_TIMEOUT = 1800
TEST_TIMEOUT = 1800
# The MCP server is one story over stdio, not e2e/test_mcp_stdio.py's eleven servers (two thirds of the selection's
# time for one more fixture file's worth of proof; the outer run has them all).
SMOKE = ["tests/test_architecture.py", "tests/test_engine.py", "e2e/test_cli_scan.py",
         "e2e/test_mcp_stdio.py::test_whole_story_over_stdio", "e2e/test_fresh_clone.py"]

pytestmark = [
    pytest.mark.slow, pytest.mark.e2e,
    pytest.mark.skipif(os.environ.get(NESTED_ENV) == "1", reason="already inside the fresh-clone test run"),
]


def readme_commands() -> tuple[str, str]:
    """The two ```sh blocks of the README's "Set-up: two commands" section: the main job, then the tests."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    blocks = [b.strip() for b in re.findall(r"```sh\n(.*?)```", section, flags=re.S)]
    assert len(blocks) == 2 and all("\n" not in b for b in blocks), blocks
    return blocks[0], blocks[1]


def test_readme_commands_are_the_documented_ones() -> None:
    main_job, tests = readme_commands()
    assert main_job.startswith("python3 -m venv .venv && .venv/bin/pip install . && {")
    assert main_job.endswith("; test $? -le 1; }")  # only the scan's own exit 1 (findings) is tolerated
    assert tests.endswith(".venv/bin/python -m pytest -n 2")


def _env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("SGTOOLS_", "VIRTUAL_ENV", "PYTHONPATH", "PYTEST_", "PRE_COMMIT"))}
    return {**keep, **extra}


def _clone(tmp_path: Path) -> Path:
    """A clone of the current HEAD alone in an empty directory: `../shared` does not exist beside it."""
    parent = tmp_path / "empty"
    parent.mkdir()
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(parent / "context-sherpa")], check=True,
                   timeout=300)
    clone = parent / "context-sherpa"
    assert sorted(p.name for p in parent.iterdir()) == ["context-sherpa"]
    return clone


def _bash(command: str, cwd: Path, env: dict[str, str], timeout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.mark.timeout(SETUP_TIMEOUT * 2 + TEST_TIMEOUT)
def test_readme_commands_work_in_a_fresh_clone(tmp_path: Path) -> None:
    main_job, tests = readme_commands()
    clone = _clone(tmp_path)

    job = _bash(main_job, clone, _env(), SETUP_TIMEOUT)
    out = job.stdout + job.stderr
    assert job.returncode == 0, out[-4000:]
    assert "no sgconfig.yml: using" in job.stderr and ("problem" in job.stdout or "no problems" in job.stdout)
    # The main job scans a real tree: default excludes (virtualenvs) must not leave it nothing to check.
    checked = re.search(r"\((\d[\d,]*) files checked\)", job.stdout)
    assert checked and int(checked.group(1).replace(",", "")) > 100, job.stdout[-2000:]
    assert (clone / ".venv" / "bin" / "sgtools").is_file()

    # The scan breaking (exit 2: here, no engine) fails the main job: only exit 1 (findings) is tolerated. The
    # job is `venv && pip install && { scan; test $? -le 1; }`, and the first two just succeeded above, so the
    # job's exit is its braces' exit: they run alone here, verbatim, rather than a second venv and install.
    setup, scan = main_job.rsplit(" && ", 1)
    assert scan.startswith("{ .venv/bin/sgtools scan ") and setup.count(" && ") == 1, main_job
    broken = _bash(scan, clone, _env(SGTOOLS_AST_GREP=str(tmp_path / "no-such-ast-grep")), SETUP_TIMEOUT)
    assert broken.returncode != 0, broken.stdout[-2000:] + broken.stderr[-2000:]
    assert "no-such-ast-grep" in broken.stderr, broken.stderr[-2000:]  # it broke where it was meant to

    run = _bash(f"{tests} {' '.join(SMOKE)}", clone, _env(**{NESTED_ENV: "1"}), TEST_TIMEOUT)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    # pytest's closing line is the last of its stdout (stderr may end with pip's warnings from nested installs).
    closing = run.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", closing) and "failed" not in closing and "error" not in closing, closing
    passed = re.search(r"(\d+) passed", closing)
    assert passed and int(passed.group(1)) >= 50, closing  # the selection ran, not just collected


@pytest.mark.timeout(SETUP_TIMEOUT)
def test_main_job_fails_when_the_install_fails(tmp_path: Path) -> None:
    """The issue's case: pip refuses the package ("requires a different Python") and exits 1. The main job
    must not swallow that 1 as if it were the scan's findings."""
    main_job, _tests = readme_commands()
    clone = _clone(tmp_path)
    pyproject = clone / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11"' in text
    pyproject.write_text(text.replace('requires-python = ">=3.11"', 'requires-python = ">=99"'), encoding="utf-8")
    job = _bash(main_job, clone, _env(), SETUP_TIMEOUT)
    assert job.returncode != 0, job.stdout[-2000:] + job.stderr[-2000:]
    assert "requires a different Python" in job.stderr
    assert not (clone / ".venv" / "bin" / "sgtools").exists()
