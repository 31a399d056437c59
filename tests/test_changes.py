"""Changed files and lines from a real git repository; git runs through engine.run_tool."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sgtools.core.errors import BadInput, Timeout
from sgtools.engine.spawn import run_tool
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.scan import changes


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.org")
    git(root, "config", "user.name", "t")
    (root / "pkg" / "a.py").write_text("".join(f"line{i}\n" for i in range(1, 11)), encoding="utf-8")
    (root / "pkg" / "gone.py").write_text("x = 1\n", encoding="utf-8")
    (root / "notes.txt").write_text("hello\n", encoding="utf-8")
    (root / ".gitignore").write_text("ignored.py\n", encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_parse_diff_lines_and_quoted_names() -> None:
    diff = (
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -2,0 +3,2 @@\n+a\n+b\n@@ -9 +11 @@\n-c\n+d\n"
        "@@ -20,3 +22,0 @@\n-e\n"
        '--- a/"sp\\303\\251cial\\tname.py"\n+++ "b/sp\\303\\251cial\\tname.py"\n@@ -0,0 +1 @@\n+x\n'
        "--- a/del.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    )
    assert changes.parse_diff(diff) == {"x.py": {3, 4, 11}, "spécial\tname.py": {1}}


def test_changed_since_reports_modified_lines_and_untracked_files(repo: Path) -> None:
    text = (repo / "pkg" / "a.py").read_text(encoding="utf-8").replace("line4\n", "line4\nNEW\n")
    (repo / "pkg" / "a.py").write_text(text.replace("line9", "LINE9"), encoding="utf-8")
    (repo / "pkg" / "new.py").write_text("y = 2\n", encoding="utf-8")
    (repo / "ignored.py").write_text("z = 3\n", encoding="utf-8")
    (repo / "pkg" / "gone.py").unlink()
    ws = Workspace(repo)
    ch = changes.changed_since(ws, "HEAD")
    assert ch.files == {"pkg/a.py": {5, 10}, "pkg/new.py": None}
    assert ch.touches({"file": "pkg/a.py", "line": 5, "endLine": 5})
    assert ch.touches({"file": "pkg/a.py", "line": 3, "endLine": 6})  # a span that covers a changed line
    assert not ch.touches({"file": "pkg/a.py", "line": 4, "endLine": 4})
    assert ch.touches({"file": "pkg/new.py", "line": 1, "endLine": 1})
    assert not ch.touches({"file": "notes.txt", "line": 1, "endLine": 1})


def test_workspace_below_the_repository_top(repo: Path) -> None:
    (repo / "pkg" / "a.py").write_text("changed\n", encoding="utf-8")
    (repo / "pkg" / "fresh.py").write_text("n = 1\n", encoding="utf-8")
    (repo / "notes.txt").write_text("outside the workspace\n", encoding="utf-8")
    ch = changes.changed_since(Workspace(repo / "pkg"), "HEAD")
    assert set(ch.files) == {"a.py", "fresh.py"}


def test_changed_since_refuses_bad_revisions_and_non_repositories(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="no-such-branch"):
        changes.changed_since(Workspace(repo), "no-such-branch")
    with pytest.raises(BadInput):
        changes.changed_since(Workspace(repo), "--output=/tmp/x")
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(BadInput):
        changes.changed_since(Workspace(plain), "HEAD")


def test_candidate_files_follow_git_ignores_and_code_extensions(repo: Path, tmp_path: Path) -> None:
    (repo / "ignored.py").write_text("z = 3\n", encoding="utf-8")
    (repo / "pkg" / "new.py").write_text("y = 2\n", encoding="utf-8")
    ws = Workspace(repo)
    assert changes.candidate_files(ws, []) == ["pkg/a.py", "pkg/gone.py", "pkg/new.py"]
    assert changes.candidate_files(ws, ["ignored.py", "pkg"]) == ["ignored.py", "pkg/a.py", "pkg/gone.py",
                                                                   "pkg/new.py"]
    (repo / "sgconfig.yml").write_text("ruleDirs: []\nlanguageGlobs:\n  python: ['*.txt']\n", encoding="utf-8")
    assert "notes.txt" in changes.candidate_files(ws, [], project.load_config(ws))
    assert "notes.txt" not in changes.candidate_files(ws, [])
    plain = tmp_path / "plain"
    (plain / ".hidden").mkdir(parents=True)
    (plain / "src").mkdir()
    (plain / "src" / "m.go").write_text("package m\n", encoding="utf-8")
    (plain / ".hidden" / "h.go").write_text("package h\n", encoding="utf-8")
    (plain / "README").write_text("x\n", encoding="utf-8")
    assert changes.candidate_files(Workspace(plain), []) == ["src/m.go"]


def test_shards_partition_the_files() -> None:
    files = [f"src/m{i}.py" for i in range(200)]
    parts = [[f for f in files if changes.in_shard(f, k, 3)] for k in (1, 2, 3)]
    assert sorted(f for p in parts for f in p) == sorted(files)
    assert all(20 < len(p) < 120 for p in parts)
    assert changes.parse_shard("2/3") == (2, 3)
    for bad in ("0/3", "4/3", "x", "1/0"):
        with pytest.raises(BadInput):
            changes.parse_shard(bad)


def test_run_tool_deadline_and_missing_program(tmp_path: Path) -> None:
    result = run_tool(["git", "--version"], tmp_path, 30)
    assert result.returncode == 0 and result.stdout.startswith(b"git version")
    with pytest.raises(Timeout):
        run_tool(["sleep", "5"], tmp_path, 0.2)
    with pytest.raises(Exception, match="Could not start"):
        run_tool(["no-such-program-xyz"], tmp_path, 5)
