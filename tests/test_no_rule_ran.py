"""A scan in which no rule ran is never a success, in any output format, whatever --allow-rule-errors says; and a
scan some of whose rules did not load says so on its first line. Real CLI processes on real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.present.report import Report
from sgtools.present.text import render

GOOD = "id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nrule: {pattern: eval($X)}\n"
BROKEN = "id: broken\nlanguage: python\nrule: {pattern: eval($X}\n"


def sgtools(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sgtools", *args, "--root", str(root)], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    assert sgtools(tmp_path, "init").returncode == 0
    (tmp_path / "a.py").write_text("eval(x)\n")
    return tmp_path


@pytest.mark.parametrize("state", ["empty rules folder", "only broken rules", "all rules off", "no file of theirs"])
def test_no_rule_ran_fails_in_every_format(project: Path, state: str) -> None:
    if state == "only broken rules":
        (project / "rules" / "broken.yml").write_text(BROKEN)
    elif state == "all rules off":
        (project / "rules" / "no-eval.yml").write_text(GOOD.replace("severity: error", "severity: off"))
    elif state == "no file of theirs":
        (project / "rules" / "no-eval.yml").write_text(GOOD.replace("python", "go"))
    text = sgtools(project, "scan", "--allow-rule-errors")
    assert text.returncode == 2, text.stdout + text.stderr
    assert text.stdout.splitlines()[0].startswith("✖ No rule ran, so nothing was checked: ")
    assert "✔" not in text.stdout and "no problems" not in text.stdout
    data = json.loads(sgtools(project, "scan", "--json").stdout)
    assert data["success"] is False and data["rulesRun"] == 0 and data["noRuleRan"]
    sarif = json.loads(sgtools(project, "scan", "--format", "sarif").stdout)
    invocation = sarif["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolConfigurationNotifications"][0]["message"]["text"].startswith("No rule ran")
    github = sgtools(project, "scan", "--format", "github")
    assert github.returncode == 2 and github.stdout.startswith("::error title=sgtools%3A no rule ran::")


def test_named_files_without_code_of_a_rule_are_nothing_to_check(project: Path) -> None:
    (project / "rules" / "no-eval.yml").write_text(GOOD)
    (project / "docs").mkdir()
    (project / "docs" / "notes.md").write_text("eval(x)\n")
    res = sgtools(project, "scan", str(project / "docs"))  # a folder named, as pre-commit names files
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.strip() == "nothing to check: no file in scope is in the language of a rule (0 files checked)."


def test_some_rules_not_loaded_is_the_first_line(project: Path) -> None:
    (project / "rules" / "no-eval.yml").write_text(GOOD)
    (project / "rules" / "broken.yml").write_text(BROKEN)
    res = sgtools(project, "scan", "--allow-rule-errors")
    assert res.returncode == 1
    assert res.stdout.splitlines()[0] == "1 of 2 rules did not run: its rule file could not be loaded (see stderr)."
    (project / "a.py").write_text("x = 1\n")
    clean = sgtools(project, "scan", "--allow-rule-errors")
    assert clean.returncode == 0 and clean.stdout.splitlines()[0].startswith("1 of 2 rules did not run")
    assert "✔ no problems found (1 file checked)" in clean.stdout


def test_zero_files_never_sits_beside_a_check_mark() -> None:
    zero = {"error": 0, "warning": 0, "info": 0, "hint": 0}
    out = render(Report(diagnostics=[], counts=zero, root=Path("/x"), files_checked=0))  # type: ignore[arg-type]
    assert "✔" not in out and "0 files checked" in out
