"""The README's main job when the install fails: pip refuses the package ("requires a different Python") and exits
1, and the main job must not swallow that 1 as if it were the scan's findings. (What a working install gives a
newcomer, `sgtools init`, the bundled index, the data files, `sgtools doctor`, is checked in the fresh clone's own
install: e2e/test_fresh_clone.py.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from e2e.test_fresh_clone import REPO, SETUP_TIMEOUT, _bash, _env, readme_commands

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


@pytest.mark.timeout(SETUP_TIMEOUT)
def test_main_job_fails_when_the_install_fails(tmp_path: Path) -> None:
    main_job, _tests = readme_commands()
    parent = tmp_path / "empty"
    parent.mkdir()
    clone = parent / "context-sherpa"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(clone)], check=True, timeout=300)
    pyproject = clone / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11"' in text
    pyproject.write_text(text.replace('requires-python = ">=3.11"', 'requires-python = ">=99"'), encoding="utf-8")
    job = _bash(main_job, clone, _env(), SETUP_TIMEOUT)
    assert job.returncode != 0, job.stdout[-2000:] + job.stderr[-2000:]
    assert "requires a different Python" in job.stderr
    assert not (clone / ".venv" / "bin" / "sgtools").exists()
