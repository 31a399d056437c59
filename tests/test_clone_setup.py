"""A project set up by the tool survives git: a fresh clone (no empty folders) scans as the original does.

Git keeps no empty folder. Before, `sgtools init` wrote `utilDirs: [utils]` and an empty `utils/`, a clone had no
`utils/`, ast-grep refused every rule (exit 6) and `sgtools scan` exited 2; a rule check cached while the folder
existed made the same scan `[engine-failed]`. Real git, real ast-grep, real processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.engine.process import Engine, find_binary
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.rules import listing
from sgtools.scan import paths, snippet
from sgtools.workflows.doctor import server_info

NO_EVAL = """\
id: no-eval
language: python
severity: error
message: eval is dangerous
rule: {pattern: eval($X)}
"""
SRC_ONLY = """\
id: src-only
language: python
severity: error
message: print in src
files: [src/**]
rule: {pattern: print($$$A)}
"""

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def sgtools(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sgtools", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def committed_clone(src: Path, dst: Path) -> Path:
    git(src, "init", "-q")
    git(src, "add", "-A")
    git(src, "commit", "-qm", "set up with sgtools")
    git(dst.parent, "clone", "-q", str(src), str(dst))
    return dst


def test_init_writes_placeholders_git_keeps(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    assert sgtools(src, "init").returncode == 0
    for d in ("rules", "utils", "rule-tests"):
        assert (src / d / project.PLACEHOLDER).is_file()
    clone = committed_clone(src, tmp_path / "clone")
    assert all((clone / d).is_dir() for d in ("rules", "utils", "rule-tests"))
    # plain ast-grep, which knows nothing of us, runs in the clone too
    (clone / "rules" / "no-eval.yml").write_text(NO_EVAL)
    (clone / "a.py").write_text("eval(x)\n")
    plain = subprocess.run([str(find_binary()), "scan"], cwd=clone, capture_output=True, text=True)
    assert plain.returncode == 1, plain.stderr
    again = sgtools(clone, "init", "--json")  # nothing missing: nothing written
    assert json.loads(again.stdout)["created"] == []


@pytest.fixture
def old_project(tmp_path: Path) -> Path:
    """A project made by an earlier version: `utilDirs: [utils]`, an empty utils/, rules committed; cloned."""
    src = tmp_path / "src"
    (src / "rules").mkdir(parents=True)
    (src / "utils").mkdir()  # empty: git drops it
    (src / "sgconfig.yml").write_text("ruleDirs:\n- rules\nutilDirs:\n- utils\ntestConfigs:\n- testDir: rule-tests\n")
    (src / "rules" / "no-eval.yml").write_text(NO_EVAL)
    (src / "rules" / "src-only.yml").write_text(SRC_ONLY)
    (src / "src").mkdir()
    (src / "src" / "a.py").write_text("eval(x)\nprint(1)\n")
    (src / "b.py").write_text("print(2)\n")
    clone = committed_clone(src, tmp_path / "clone")
    assert not (clone / "utils").exists() and not (clone / "rule-tests").exists()
    return clone


def test_an_old_project_scans_after_a_clone_with_one_note(old_project: Path) -> None:
    for fmt in ("text", "github"):
        res = sgtools(old_project, "scan", "--format", fmt)
        assert res.returncode == 1, res.stdout + res.stderr
        assert "no-eval" in res.stdout and "src-only" in res.stdout
        assert res.stderr.count("`utils` (utilDirs)") == 1 and "Run `sgtools init`" in res.stderr
        assert "not used" not in res.stderr
    # `files: [src/**]` still decides what src-only checks (b.py's print is outside it)
    data = json.loads(sgtools(old_project, "scan", "--json").stdout)
    assert sorted((d["ruleId"], d["file"]) for d in data["issues"]) == [("no-eval", "src/a.py"),
                                                                        ("src-only", "src/a.py")]
    doctor = sgtools(old_project, "doctor")
    assert doctor.returncode == 0, doctor.stdout
    assert doctor.stdout.count("`utils` (utilDirs), `rule-tests` (testConfigs)") == 1
    assert sgtools(old_project, "init").returncode == 0  # the one command the note names
    assert (old_project / "utils" / project.PLACEHOLDER).is_file()
    assert "utilDirs" not in sgtools(old_project, "scan").stderr


def test_a_check_cached_before_the_folder_went_is_not_an_engine_failure(old_project: Path) -> None:
    (old_project / "utils").mkdir()
    assert sgtools(old_project, "scan").returncode == 1  # the rule checks are cached with utils/ present
    shutil.rmtree(old_project / "utils")
    res = sgtools(old_project, "scan")
    assert res.returncode == 1 and "[engine-failed]" not in res.stderr, res.stderr


def test_every_mcp_service_works_in_the_clone(old_project: Path) -> None:
    ws, engine = Workspace(old_project), Engine()
    code = snippet.scan_code(ws, engine, "eval(x)\n", language="python")
    assert [d["ruleId"] for d in code["issues"]] == ["no-eval"]
    assert any("`utils` (utilDirs)" in n for n in code["notes"])
    whole = paths.scan_path(ws, engine)
    assert whole["rulesRun"] == 2 and not whole["ruleErrors"]
    assert sum("`utils` (utilDirs)" in n for n in whole["notes"]) == 1
    assert {r["id"] for r in listing.list_rules(ws, engine)["rules"]} == {"no-eval", "src-only"}
    info = server_info(ws, engine)
    assert info["problems"] == [] and len(info.get("notes", [])) == 1
