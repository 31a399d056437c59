"""`initialize`, config loading and rule health, with the real binary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.core.errors import ConfigMissing, OutsideWorkspace, RuleInvalid
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.rules.ruleset import load_ruleset
from sgtools.workflows.doctor import server_info
from tests.conftest import snapshot_tree

EXPECTED_CONFIG = "ruleDirs:\n- rules\nutilDirs:\n- utils\ntestConfigs:\n- testDir: rule-tests\n"


def test_initialize_creates_the_spec_layout(ws: Workspace, engine: Engine) -> None:
    result = project.initialize(ws)
    assert result.created == ["sgconfig.yml", "rules", "utils", "rule-tests"]
    assert result.existing == []
    assert (ws.root / "sgconfig.yml").read_text() == EXPECTED_CONFIG
    assert all((ws.root / d).is_dir() for d in ("rules", "utils", "rule-tests"))
    assert engine.check_project(ws.root / "sgconfig.yml", cwd=ws.root).returncode == 0


def test_second_initialize_changes_no_byte(ws: Workspace) -> None:
    project.initialize(ws)
    before = snapshot_tree(ws.root)
    mtime = (ws.root / "sgconfig.yml").stat().st_mtime_ns
    again = project.initialize(ws)
    assert again.created == []
    assert set(again.existing) == {"sgconfig.yml", "rules", "utils", "rule-tests"}
    assert snapshot_tree(ws.root) == before
    assert (ws.root / "sgconfig.yml").stat().st_mtime_ns == mtime


def test_existing_config_is_kept_and_its_missing_dirs_created(ws: Workspace) -> None:
    custom = "ruleDirs: [checks/rules]\ntestConfigs:\n  - testDir: checks/tests\n# my comment\n"
    (ws.root / "sgconfig.yml").write_text(custom)
    result = project.initialize(ws)
    assert (ws.root / "sgconfig.yml").read_text() == custom
    assert result.created == ["checks/rules", "checks/tests"]
    assert result.existing == ["sgconfig.yml"]
    cfg = project.load_config(ws)
    assert cfg.first_rule_dir == ws.root / "checks" / "rules"


def test_config_naming_a_dir_outside_the_root_is_refused(ws: Workspace, tmp_path: Path) -> None:
    (ws.root / "sgconfig.yml").write_text("ruleDirs: [../elsewhere]\n")
    with pytest.raises(OutsideWorkspace):
        project.initialize(ws)
    assert not (tmp_path / "elsewhere").exists()


def test_missing_config_names_initialize(ws: Workspace) -> None:
    with pytest.raises(ConfigMissing, match="initialize_ast_grep"):
        project.load_config(ws)


def test_malformed_config(ws: Workspace) -> None:
    (ws.root / "sgconfig.yml").write_text("ruleDirs: [\n")
    with pytest.raises(RuleInvalid, match="line"):
        project.load_config(ws)


def test_a_broken_rule_file_is_reported_and_hides_nothing(initialized: Workspace, engine: Engine) -> None:
    rules = initialized.root / "rules"
    (rules / "good.yml").write_text("id: good\nlanguage: python\nrule: {pattern: print($A)}\n")
    (rules / "bad.yml").write_text("id: bad\nlanguage: python\nrule: {patern: print($A)}\n")
    (rules / "dup.yml").write_text("id: good\nlanguage: python\nrule: {pattern: eval($A)}\n")
    (rules / "junk.yml").write_text("id: [unclosed\n")
    ruleset = load_ruleset(initialized, project.load_config(initialized), engine)
    assert [r.id for r in ruleset.rules] == ["good"]
    problems = {e.path: e.message for e in ruleset.errors}
    # Files are taken in path order, so the second definition of `good` (rules/good.yml) is the duplicate.
    assert set(problems) == {"rules/bad.yml", "rules/good.yml", "rules/junk.yml"}
    assert ruleset.rules[0].path.name == "dup.yml"
    assert "patern" in problems["rules/bad.yml"]
    assert "duplicate" in problems["rules/good.yml"] and "rules/dup.yml" in problems["rules/good.yml"]
    assert "line" in problems["rules/junk.yml"]


def test_server_info(initialized: Workspace, engine: Engine) -> None:
    (initialized.root / "rules" / "r.yml").write_text("id: r\nlanguage: go\nrule: {pattern: fmt.Println($$$)}\n")
    info = server_info(initialized, engine)
    assert info["astGrepVersion"].startswith("0.51")
    assert info["config"] == "sgconfig.yml"
    assert info["ruleCount"] == 1 and info["ruleErrors"] == []
    assert "python" in info["languages"]


def test_cli_init_and_doctor(tmp_path: Path) -> None:
    def sgtools(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "sgtools", *args, "--root", str(tmp_path)],
                              capture_output=True, text=True, timeout=60)

    first = sgtools("init", "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["created"] == ["sgconfig.yml", "rules", "utils", "rule-tests"]
    doctor = sgtools("doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert json.loads(doctor.stdout)["ruleCount"] == 0
    (tmp_path / "rules" / "bad.yml").write_text("id: bad\nlanguage: cobol\nrule: {pattern: x}\n")
    doctor = sgtools("doctor")
    assert doctor.returncode == 2
    assert "rules/bad.yml" in doctor.stdout
