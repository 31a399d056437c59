"""The published pre-commit hook (`.pre-commit-hooks.yaml`, id `sgtools-scan`) through real pre-commit.

Every test uses one hook repository: a `git clone` of this repository, as docs/ci.md's `/path/to/context-sherpa`,
with this working tree's changes (every file git does not ignore) committed on top, so an uncommitted change is
what the hook runs. Installing the hook builds a virtualenv and installs the package with its dependencies from
the configured package index (a wheel cache here), which is the cost of this module; so it is done as few times
as the claims allow:

- `pre-commit try-repo` always installs into a fresh store of its own (a temporary directory; PRE_COMMIT_HOME is
  not read), so it runs once, for docs/ci.md's try-repo command on a staged finding: the hook installed from the
  clone and run by try-repo fails the commit, naming the finding. That it passes clean code is the same hook run
  with the very config try-repo writes (test_passes_on_clean_code_and_skips_non_code), without a second install.
- The hook's behaviour (all files, staged files only, clean code, non-code) runs through `pre-commit run --config`
  with the config try-repo writes for it (`repo: <clone>, rev: <HEAD>, hooks: [sgtools-scan]`), and docs/ci.md's
  `.pre-commit-config.yaml` + `pre-commit install` through a real `git commit`: both share one PRE_COMMIT_HOME,
  where the hook's environment is installed once (the same repo and rev). Under `-n 2` the module's tests run on
  one worker (ONE_WORKER_FILES in the root conftest.py), so that home is not built again on the other.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from e2e.conftest import clone_with_changes, git

REPO = Path(__file__).resolve().parent.parent
SAMPLE = Path(__file__).resolve().parent / "sample_repo"
INSTALL_TIMEOUT = 900  # a hang guard: an install builds a virtualenv and installs the package with its dependencies

pytestmark = [pytest.mark.slow, pytest.mark.timeout(INSTALL_TIMEOUT)]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plain `git clone` of this repository, as a user would have, with the working tree's changes on top."""
    dest = clone_with_changes(tmp_path_factory.mktemp("clone") / "context-sherpa")
    assert (dest / ".pre-commit-hooks.yaml").is_file()
    return dest


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def hook_config(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The config `pre-commit try-repo CLONE sgtools-scan` writes and runs (pre_commit/commands/try_repo.py)."""
    config = tmp_path_factory.mktemp("hook-config") / ".pre-commit-config.yaml"
    rev = git(clone, "rev-parse", "HEAD").strip()
    config.write_text(f"repos:\n- repo: {clone}\n  rev: {rev}\n  hooks:\n  - id: sgtools-scan\n", encoding="utf-8")
    return config


@pytest.fixture
def project(tmp_path: Path) -> Path:
    dest = tmp_path / "project"
    shutil.copytree(SAMPLE, dest)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "base")
    return dest


def _env(home: Path) -> dict[str, str]:
    """The hook environment's `pip install .` does not compile the installed modules to bytecode (the hook's
    `sgtools scan` imports a few of them, as fast from source: ~0.2 s either way): 18.6 -> 14.5 CPU s an install.
    pip reads a `--no-...` switch from the environment inverted: PIP_NO_COMPILE=0 is `--no-compile`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGTOOLS_", "PRE_COMMIT", "PIP_NO_COMPILE"))}
    env.update({"PRE_COMMIT_HOME": str(home), "NO_COLOR": "1", "PIP_NO_COMPILE": "0",
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"})
    return env


def _run(command: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=_env(home), timeout=INSTALL_TIMEOUT,
                          check=False)


def run_hook(project: Path, config: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`pre-commit run` with try-repo's config for the hook, its environment in the shared PRE_COMMIT_HOME."""
    return _run([sys.executable, "-m", "pre_commit", "run", "--config", str(config), "--color", "never", *args],
                project, home)


def test_all_files_fails_on_error_findings(project: Path, hook_config: Path, pre_commit_home: Path) -> None:
    proc = run_hook(project, hook_config, pre_commit_home, "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "sgtools scan (ast-grep rules)" in out and "Failed" in out
    assert "python/calc.py" in out and "[no-eval]" in out
    assert "js/debug.js" in out and "[no-debugger]" in out
    # pre-commit splits the files over parallel `sgtools scan` runs, so there is one summary per run
    assert "[no-var]" in out and "[go-println]" in out and "[prefer-logging]" in out and "[no-console-log]" in out


def test_staged_files_only(project: Path, hook_config: Path, pre_commit_home: Path) -> None:
    clean = project / "python" / "clean.py"
    clean.write_text(clean.read_text(encoding="utf-8") + "\n\nvalue = eval('1')\n", encoding="utf-8")
    git(project, "add", "python/clean.py")
    proc = run_hook(project, hook_config, pre_commit_home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "python/clean.py" in out and "[no-eval]" in out
    assert "js/debug.js" not in out and "python/calc.py" not in out


def test_passes_on_clean_code_and_skips_non_code(project: Path, hook_config: Path, pre_commit_home: Path) -> None:
    (project / "python" / "more.py").write_text("def double(x: int) -> int:\n    return 2 * x\n", encoding="utf-8")
    git(project, "add", "python/more.py")
    proc = run_hook(project, hook_config, pre_commit_home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout
    git(project, "commit", "-q", "-m", "more")

    (project / "README.md").write_text("# changed\n", encoding="utf-8")
    git(project, "add", "README.md")
    proc = run_hook(project, hook_config, pre_commit_home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(no files to check)Skipped" in proc.stdout


# ---- what docs/ci.md tells a user to do, against a real clone of this repository --------------------------------

DOCS = REPO / "docs" / "ci.md"
DOC_PATH = "/path/to/context-sherpa"


def _documented() -> tuple[str, str]:
    """docs/ci.md's try-repo command and its config snippet (the second ```sh block of the pre-commit section)."""
    section = DOCS.read_text(encoding="utf-8").split("## pre-commit", 1)[1].split("\n## ", 1)[0]
    blocks = [b.strip() for b in re.findall(r"```sh\n(.*?)```", section, flags=re.S)]
    assert len(blocks) == 2 and blocks[0].startswith(f"pre-commit try-repo {DOC_PATH} "), blocks
    return blocks[0].split("#", 1)[0].strip(), blocks[1]


def _stage(project: Path, name: str, text: str) -> None:
    (project / "python" / name).write_text(text, encoding="utf-8")
    git(project, "add", f"python/{name}")


def test_documented_try_repo_on_a_clone(project: Path, clone: Path, pre_commit_home: Path) -> None:
    try_cmd, _config = _documented()
    command = [sys.executable, "-m", "pre_commit", *shlex.split(try_cmd.replace(DOC_PATH, str(clone)))[1:],
               "--color", "never"]
    _stage(project, "bad.py", "value = eval('1')\n")
    _stage(project, "good.py", "def double(x: int) -> int:\n    return 2 * x\n")
    failed = _run(command, project, pre_commit_home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "sgtools scan (ast-grep rules)" in failed.stdout and "Failed" in failed.stdout
    assert "python/bad.py" in failed.stdout and "[no-eval]" in failed.stdout
    assert "python/good.py" not in failed.stdout  # staged with it, and clean: only the finding fails the commit


def test_documented_config_on_a_clone(project: Path, clone: Path, pre_commit_home: Path) -> None:
    _try_cmd, config = _documented()
    script = config.replace(DOC_PATH, str(clone)).replace("pre-commit install", f"{sys.executable} -m pre_commit "
                                                           "install")
    made = _run(["bash", "-c", script], project, pre_commit_home)
    assert made.returncode == 0, made.stderr
    rev = git(clone, "rev-parse", "HEAD").strip()
    assert f"rev: {rev}" in (project / ".pre-commit-config.yaml").read_text()
    _stage(project, "bad.py", "value = eval('1')\n")
    commit = _run(["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "commit", "-q", "-m", "bad"],
                  project, pre_commit_home)
    assert commit.returncode != 0, commit.stdout + commit.stderr  # the installed hook refused the commit
    assert "[no-eval]" in commit.stdout + commit.stderr
    git(project, "rm", "-q", "--cached", "python/bad.py")
    _stage(project, "good.py", "def double(x: int) -> int:\n    return 2 * x\n")
    ok_commit = _run(["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", "commit", "-q", "-m", "good"],
                     project, pre_commit_home)
    assert ok_commit.returncode == 0, ok_commit.stdout + ok_commit.stderr
