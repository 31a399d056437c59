"""The analyser where users meet it: list_rules per rule, `sgtools rule lint` (exit 1 when a rule can never
fire), scans reporting a never-firing rule next to ruleErrors, server_info/doctor, and `force`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.core.errors import BadInput, RuleInvalid
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules import store
from sgtools.rules.analysis import analyse_rule
from sgtools.rules.listing import list_rules
from sgtools.scan.snippet import scan_code
from sgtools.workflows.doctor import server_info

BARE = "id: no-println\nlanguage: go\nseverity: warning\nmessage: m\nrule:\n  pattern: fmt.Println($$$ARGS)\n"
GOOD = "id: no-eval\nlanguage: python\nseverity: error\nmessage: m\nrule:\n  pattern: eval($X)\n"


def _write(ws: Workspace, name: str, text: str) -> None:
    (ws.root / "rules" / f"{name}.yml").write_text(text, encoding="utf-8")


def _lint(ws: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sgtools", "rule", "lint", "--root", str(ws.root), *args],
                          capture_output=True, text=True, timeout=120, check=False)


def test_add_refuses_a_rule_that_can_never_fire_and_force_saves_it(initialized: Workspace, engine: Engine) -> None:
    with pytest.raises(RuleInvalid) as err:
        store.add_or_update_rule(initialized, engine, "no-println", BARE)
    assert "can never fire" in err.value.message and "Verified repair" in err.value.message
    assert err.value.details["analysis"][0]["code"] == "pattern-never-matches"
    assert not (initialized.root / "rules" / "no-println.yml").exists()
    with pytest.raises(BadInput):
        store.add_or_update_rule(initialized, engine, "no-println", BARE, force="yes")  # type: ignore[arg-type]
    saved = store.add_or_update_rule(initialized, engine, "no-println", BARE, force=True)
    assert (initialized.root / "rules" / "no-println.yml").is_file()
    assert any("never fire" in w for w in saved["warnings"])


def test_list_rules_carries_each_rules_analysis(initialized: Workspace, engine: Engine) -> None:
    _write(initialized, "no-println", BARE)
    _write(initialized, "no-eval", GOOD)
    rules = {r["id"]: r for r in list_rules(initialized, engine)["rules"]}
    assert [f["code"] for f in rules["no-println"]["analysis"]] == ["pattern-never-matches"]
    assert rules["no-eval"]["analysis"] == []


def test_scan_reports_a_never_firing_rule_next_to_rule_errors(initialized: Workspace, engine: Engine) -> None:
    _write(initialized, "no-println", BARE)
    list_rules(initialized, engine)  # analyses the project; scans read the result, they never compute it
    result = scan_code(initialized, engine, 'package main\nfunc main() {\n\tfmt.Println("x")\n}\n', "go")
    assert result["issues"] == []
    assert [(a["ruleId"], a["code"]) for a in result["analysis"]] == [("no-println", "pattern-never-matches")]


def test_server_info_counts_rules_that_can_never_fire(initialized: Workspace, engine: Engine) -> None:
    _write(initialized, "no-println", BARE)
    _write(initialized, "no-eval", GOOD)
    info = server_info(initialized, engine)
    assert info["ruleAnalysis"] == {"analysed": 2, "neverFire": ["no-println"], "withWarnings": []}


@pytest.mark.slow
def test_rule_lint_exits_1_when_a_rule_can_never_fire(initialized: Workspace) -> None:
    _write(initialized, "no-println", BARE)
    _write(initialized, "no-eval", GOOD)
    done = _lint(initialized)
    assert done.returncode == 1, done.stderr
    assert "error[pattern-never-matches] no-println rule.pattern" in done.stdout
    assert "selector: call_expression" in done.stdout
    assert _lint(initialized, "no-eval").returncode == 0
    as_json = json.loads(_lint(initialized, "--json").stdout)
    assert as_json["neverFire"] == ["no-println"]
    assert _lint(initialized, "nope").returncode == 2


@pytest.mark.slow
def test_repository_rules_lint_clean() -> None:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "sgtools", "rule", "lint", "--root", str(root)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_misplaced_not_and_csharp_spelling_get_the_right_hint(initialized: Workspace, engine: Engine) -> None:
    misplaced = "id: x\nlanguage: python\nrule:\n  pattern: print($A)\nnot:\n  pattern: print(1)\n"
    with pytest.raises(RuleInvalid) as err:
        store.add_or_update_rule(initialized, engine, "x", misplaced)
    assert "move it under `rule:`" in err.value.message and "note" not in err.value.message
    with pytest.raises(RuleInvalid) as err:
        store.add_or_update_rule(initialized, engine, "x", "id: x\nlanguage: C#\nrule:\n  pattern: Foo()\n")
    assert "Did you mean csharp?" in err.value.message


def test_files_glob_with_dot_slash_gets_a_relative_repair(initialized: Workspace, engine: Engine) -> None:
    (initialized.root / "internal").mkdir()
    (initialized.root / "internal" / "a.go").write_text("package internal\n", encoding="utf-8")
    rule = ("id: x\nlanguage: go\nseverity: warning\nmessage: m\nfiles:\n  - ./internal/**/*.go\n"
            "rule:\n  kind: go_statement\n")
    found = analyse_rule(initialized, engine, rule)
    glob = next(f for f in found if f["code"] == "files-match-nothing")
    assert glob["severity"] == "warning" and "internal/**/*.go" in glob["repair"]
    assert "./internal" not in glob["repair"]


def test_typescript_rule_in_a_workspace_with_tsx_files_is_told(initialized: Workspace, engine: Engine) -> None:
    (initialized.root / "App.tsx").write_text("export const A = () => <div/>;\n", encoding="utf-8")
    found = analyse_rule(initialized, engine, "id: x\nlanguage: typescript\nrule:\n  pattern: console.log($$$)\n")
    assert [f["code"] for f in found] == ["tsx-not-covered"]


def test_scan_code_says_which_rules_its_path_leaves_out(initialized: Workspace, engine: Engine) -> None:
    _write(initialized, "no-eval", GOOD.replace("rule:", "files:\n  - src/**/*.py\nrule:"))
    result = scan_code(initialized, engine, "eval(x)\n", path="tools/build.py")
    assert result["issues"] == []
    assert any("no-eval" in n and "tools/build.py" in n for n in result.get("notes", [])), result
    inside = scan_code(initialized, engine, "eval(x)\n", path="src/app.py")
    assert [i["ruleId"] for i in inside["issues"]] == ["no-eval"] and "notes" not in inside


def test_test_rule_applies_the_same_structural_checks_as_add(initialized: Workspace, engine: Engine) -> None:
    from sgtools.workflows.rule_testing import test_rule

    res = test_rule(initialized, engine, "id: x\nlanguage: python\nrule:\n  anyy:\n    - pattern: print($A)\n",
                    invalid_examples=["print(2)"])
    assert res["success"] is False and "did you mean any?" in res["errors"][0]
    res = test_rule(initialized, engine, "id: x\nlanguage: python\nrule:\n  pattern: print($A)\nnot:\n  kind: x\n",
                    invalid_examples=["print(2)"])
    assert res["success"] is False and "move it under `rule:`" in res["errors"][0]


@pytest.mark.parametrize("analyse", ["add_or_update_rule", "test_rule"])
def test_a_scan_reports_an_analysis_made_after_it_remembered_none(initialized: Workspace, engine: Engine,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  analyse: str) -> None:
    """Scans remember that a rule has no analysis (a long-lived server asks for every rule on every call), but
    an analysis made in this process is reported by the very next scan, however long misses are remembered."""
    from sgtools.rules import analysis
    from sgtools.workflows.rule_testing import test_rule

    monkeypatch.setattr(analysis._cache, "_miss_ttl", 3600.0)
    _write(initialized, "no-println", BARE)
    go = 'package main\nfunc main() {\n\tfmt.Println("x")\n}\n'
    for _ in range(2):
        assert "analysis" not in scan_code(initialized, engine, go, "go")  # never analysed, now remembered so
    if analyse == "add_or_update_rule":
        store.add_or_update_rule(initialized, engine, "no-println", BARE, force=True)
    else:
        test_rule(initialized, engine, BARE, code=go, language="go")
    result = scan_code(initialized, engine, go, "go")
    assert [(a["ruleId"], a["code"]) for a in result["analysis"]] == [("no-println", "pattern-never-matches")]
