"""The published pre-commit hook (`.pre-commit-hooks.yaml`, id `sgtools-scan`) through real `pre-commit try-repo`.

try-repo installs the hook repository from a git commit into its own virtualenv, so the test commits a snapshot
of this working tree (every file git does not ignore) to a temporary repository and points try-repo at it.
The install needs the package's dependencies from the configured package index (a wheel cache here).
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

REPO = Path(__file__).resolve().parent.parent
SAMPLE = Path(__file__).resolve().parent / "sample_repo"
INSTALL_TIMEOUT = 900  # the first try-repo builds a virtualenv and installs the package with its dependencies

pytestmark = [pytest.mark.slow, pytest.mark.timeout(INSTALL_TIMEOUT)]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("hook-repo")
    listed = git(REPO, "ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    assert (dest / ".pre-commit-hooks.yaml").is_file()
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "snapshot of the working tree for pre-commit try-repo")
    return dest


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    dest = tmp_path / "project"
    shutil.copytree(SAMPLE, dest)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "base")
    return dest


def try_repo(project: Path, hook_repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGTOOLS_", "PRE_COMMIT"))}
    env.update({"PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"})
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "sgtools-scan",
                           "--color", "never", *args], cwd=project, capture_output=True, text=True, env=env,
                          timeout=INSTALL_TIMEOUT, check=False)


def test_all_files_fails_on_error_findings(project: Path, hook_repo: Path, pre_commit_home: Path) -> None:
    proc = try_repo(project, hook_repo, pre_commit_home, "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "sgtools scan (ast-grep rules)" in out and "Failed" in out
    assert "python/calc.py" in out and "[no-eval]" in out
    assert "js/debug.js" in out and "[no-debugger]" in out
    # pre-commit splits the files over parallel `sgtools scan` runs, so there is one summary per run
    assert "[no-var]" in out and "[go-println]" in out and "[prefer-logging]" in out and "[no-console-log]" in out


def test_staged_files_only(project: Path, hook_repo: Path, pre_commit_home: Path) -> None:
    clean = project / "python" / "clean.py"
    clean.write_text(clean.read_text(encoding="utf-8") + "\n\nvalue = eval('1')\n", encoding="utf-8")
    git(project, "add", "python/clean.py")
    proc = try_repo(project, hook_repo, pre_commit_home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "python/clean.py" in out and "[no-eval]" in out
    assert "js/debug.js" not in out and "python/calc.py" not in out


def test_passes_on_clean_code_and_skips_non_code(project: Path, hook_repo: Path, pre_commit_home: Path) -> None:
    (project / "python" / "more.py").write_text("def double(x: int) -> int:\n    return 2 * x\n", encoding="utf-8")
    git(project, "add", "python/more.py")
    proc = try_repo(project, hook_repo, pre_commit_home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout
    git(project, "commit", "-q", "-m", "more")

    (project / "README.md").write_text("# changed\n", encoding="utf-8")
    git(project, "add", "README.md")
    proc = try_repo(project, hook_repo, pre_commit_home)
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


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plain `git clone` of this repository's HEAD, as a user would have."""
    dest = tmp_path_factory.mktemp("clone") / "context-sherpa"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(dest)], check=True, timeout=300)
    return dest


def _run(command: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGTOOLS_", "PRE_COMMIT"))}
    env.update({"PRE_COMMIT_HOME": str(home), "NO_COLOR": "1",
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"})
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=INSTALL_TIMEOUT,
                          check=False)


def _stage(project: Path, name: str, text: str) -> None:
    (project / "python" / name).write_text(text, encoding="utf-8")
    git(project, "add", f"python/{name}")


def test_documented_try_repo_on_a_clone(project: Path, clone: Path, pre_commit_home: Path) -> None:
    try_cmd, _config = _documented()
    command = [sys.executable, "-m", "pre_commit", *shlex.split(try_cmd.replace(DOC_PATH, str(clone)))[1:],
               "--color", "never"]
    _stage(project, "bad.py", "value = eval('1')\n")
    failed = _run(command, project, pre_commit_home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "python/bad.py" in failed.stdout and "[no-eval]" in failed.stdout
    git(project, "commit", "-q", "--no-verify", "-m", "bad")
    git(project, "rm", "-q", "python/bad.py")
    _stage(project, "good.py", "def double(x: int) -> int:\n    return 2 * x\n")
    passed = _run(command, project, pre_commit_home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


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
