"""The CLI in a sub-folder of a project finds the project's sgconfig.yml the way `ast-grep scan` does (walking up,
stopping at the repository root), scans that sub-folder, and names files relative to the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.cli import main

RULE = "id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nrule: {pattern: eval($X)}\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "rules").mkdir()
    (root / "src").mkdir()
    (root / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    (root / "rules" / "no-eval.yml").write_text(RULE)
    (root / "src" / "app.py").write_text("value = eval(data)\n")
    (root / "top.py").write_text("other = eval(data)\n")
    return root


def test_scan_in_a_sub_folder_uses_the_config_above(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo / "src")
    assert main(["scan", "--format", "github"]) == 1  # the project's error rule fired
    out, err = capsys.readouterr()
    assert "::error file=src/app.py,line=1" in out and "title=no-eval" in out
    assert "top.py" not in out  # like ast-grep: the folder it was run in, not the whole project
    assert "bundled" not in err


def test_scan_in_a_sub_folder_names_project_paths_in_text(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo / "src")
    assert main(["scan", "app.py"]) == 1
    assert capsys.readouterr().out.startswith("src/app.py\n")


def test_the_walk_stops_at_the_repository_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\n")  # outside the repository: never used
    inner = tmp_path / "checkout"
    (inner / ".git").mkdir(parents=True)
    (inner / "lib").mkdir()
    (inner / "lib" / "ok.py").write_text("x = 1\n")
    monkeypatch.chdir(inner / "lib")
    assert main(["scan"]) == 0
    assert "no sgconfig.yml: using" in capsys.readouterr().err


def test_explicit_root_wins(repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo / "src")
    assert main(["scan", "--root", str(repo), "--format", "github"]) == 1
    out = capsys.readouterr().out
    assert "file=src/app.py" in out and "file=top.py" in out  # --root: the whole project


def test_doctor_in_a_sub_folder_names_the_config_it_found(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo / "src")
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert f"config         {repo.resolve() / 'sgconfig.yml'} (found above {(repo / 'src').resolve()})" in out
    assert "rules          1 loaded" in out and "init" not in out


def test_doctor_never_suggests_init_below_a_project(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--root", str(repo / "src")]) == 0
    out = capsys.readouterr().out
    assert "sgtools init" not in out
    assert f"the project above uses {repo.resolve() / 'sgconfig.yml'}" in out


def test_doctor_without_any_config_says_what_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".git").mkdir()
    assert main(["doctor", "--root", str(tmp_path)]) == 0  # no config is not a broken installation
    out = capsys.readouterr().out
    assert "bundled community rules (run `sgtools init`" in out and "problem" not in out


def test_doctor_exits_non_zero_when_it_prints_a_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules\n")  # not valid YAML
    assert main(["doctor", "--root", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "problem        [rule-invalid]" in out


def test_init_in_a_sub_folder_creates_no_second_config(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo / "src")
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert not (repo / "src" / "sgconfig.yml").exists()
    assert f"Project: {repo.resolve()} (its sgconfig.yml was found above {(repo / 'src').resolve()}" in out
