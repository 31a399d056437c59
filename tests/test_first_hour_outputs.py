"""Small things a new user trips over in the CLI's output: colour switches, SARIF rule names, truncated GitHub
annotations, multi-line fixes, an unknown language in community search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.present import github, text
from sgtools.present.report import Report

RULE = ("id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nrule: {pattern: eval($X)}\n"
        "fix: |-\n  try:\n      ast.literal_eval($X)\n  except ValueError:\n      raise\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "rules").mkdir()
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    (tmp_path / "rules" / "no-eval.yml").write_text(RULE)
    (tmp_path / "a.py").write_text("eval(x)\neval(y)\neval(z)\n")
    return tmp_path


@pytest.mark.parametrize(("env", "coloured"), [
    ({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False), ({}, False),
    ({"FORCE_COLOR": ""}, False)])
def test_force_color_and_no_color(project: Path, env: dict[str, str], coloured: bool,
                                  monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main(["scan", "--root", str(project)]) == 1  # stdout is captured: not a terminal
    assert ("\033[" in capsys.readouterr().out) is coloured


def test_sarif_rule_name_is_readable(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--root", str(project), "--format", "sarif"]) == 1
    rules = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["rules"]
    assert [(r["id"], r["name"]) for r in rules] == [("no-eval", "NoEval")]


def test_github_says_when_it_truncates(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--root", str(project), "--format", "github", "--max-results", "2"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert sum(ln.startswith("::error ") for ln in lines) == 2
    assert lines[-1].startswith("::warning title=sgtools%3A findings not shown::Only the first 2 of 3 findings")


def test_github_without_truncation_adds_nothing() -> None:
    report = Report(diagnostics=[], counts={"error": 0}, root=Path("/"))
    assert github.render(report) == ""


def test_multi_line_fix_is_shown_line_by_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "a.py").write_text("eval(x)\n")
    assert main(["scan", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert "          + try:\n          +     ast.literal_eval(x)\n          + except ValueError:\n" \
           "          +     raise\n" in out, out


def test_fix_block_caps_long_fixes() -> None:
    fix = {"edits": [{"newText": "\n".join(f"line{i}" for i in range(30))}]}
    block = text._fix_block(fix, text._Painter(False))
    assert len(block) == text.FIX_BLOCK_LINES + 1 and block[-1].strip() == "… 18 more lines"


def test_community_search_names_an_unknown_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["community", "search", "sql", "injection", "--language", "cobol"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("[bad-input] 'cobol' is not a language ast-grep knows.") and "python" in err


def test_community_search_with_a_known_language_and_no_match_is_not_an_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["community", "search", "zzzqqqxx", "--language", "python"]) == 0
    assert "No community rule matches" in capsys.readouterr().out
