"""test_rule: compile, run on code and examples, explain failures; never writes in the workspace."""

from __future__ import annotations

import pytest

from sgtools.core.errors import BadInput, TooLarge
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.workflows import rule_testing as authoring
from tests.conftest import snapshot_tree

EVAL_RULE = "id: no-eval\nlanguage: python\nseverity: error\nmessage: eval of $X\nrule: {pattern: eval($X)}\n" \
            "fix: ast.literal_eval($X)\n"


def test_matches_and_examples_without_a_project(ws: Workspace, engine: Engine) -> None:
    before = snapshot_tree(ws.root)
    res = authoring.test_rule(ws, engine, EVAL_RULE, code="y = 1\nx = eval(y)\n",
                              valid_examples=["ast.literal_eval(s)", "evaluate(x)"],
                              invalid_examples=["eval('1')", "f(eval(a))"])
    assert res["success"] is True and res["errors"] == []
    assert res["examples"] == {"passed": 4, "failed": []}
    [d] = res["matches"]
    assert (d["ruleId"], d["line"], d["column"], d["message"]) == ("no-eval", 2, 5, "eval of y")
    assert [(f["kind"], f["verified"]) for f in d["fixits"]] == [("fix", True)]
    assert d["suppress"] == {"line": 2, "comment": "# ast-grep-ignore: no-eval"}
    assert any("no sgconfig.yml" in w for w in res["warnings"])
    assert snapshot_tree(ws.root) == before  # nothing written, not even sgconfig.yml


def test_failed_examples_are_named(ws: Workspace, engine: Engine) -> None:
    res = authoring.test_rule(ws, engine, EVAL_RULE, valid_examples=["eval(ok)"], invalid_examples=["exec(x)"])
    assert res["success"] is False
    assert res["examples"]["passed"] == 0
    failed = {(f["kind"], f["index"]) for f in res["examples"]["failed"]}
    assert failed == {("valid", 0), ("invalid", 0)}
    assert "matched at line 1" in res["examples"]["failed"][0]["reason"]


@pytest.mark.parametrize(("rule_yaml", "needle", "hint"), [
    ("language: python\nrule:\n  pattern: def $F(): $$$\n", "mapping values", "must be quoted"),
    ("language: python\nrule: {pattern: 'a +'}\n", "Rule must specify a set of AST kinds", "`kind`"),
    ("language: python\nrule: {pattern: '$A; $B'}\n", "Multiple AST nodes", "`context` and `selector`"),
    ("language: cobol\nrule: {pattern: x}\n", "'cobol' is not a language", "python"),
    ("language: python\nrule: {patern: x}\n", "patern", ""),
    ("language: python\nrule: {matches: nope}\n", "nope", "util"),
    ("language: python\nrule: {pattern: f($A)}\nfix: g($B)\n", "Undefined meta var", ""),
    ("language: python\nfiles: ['src/[a']\nrule: {pattern: f($A)}\n", "not a valid glob", "Fix or remove"),
])
def test_rejected_rules_explain_the_cause(ws: Workspace, engine: Engine, rule_yaml: str, needle: str,
                                          hint: str) -> None:
    res = authoring.test_rule(ws, engine, rule_yaml, code="x\n")
    assert res["success"] is False
    assert len(res["errors"]) == 1, res
    assert needle in res["errors"][0]
    assert hint in res["errors"][0]
    assert res["matches"] == []


@pytest.mark.slow
def test_pattern_that_parses_badly_gets_a_hint(ws: Workspace, engine: Engine) -> None:
    res = authoring.test_rule(ws, engine, "language: python\nrule: {pattern: 'def f(:'}\n",
                              invalid_examples=["def f(): pass"])
    assert res["success"] is False
    assert any("MISSING" in h and "context" in h for h in res["hints"]), res["hints"]


def test_language_parameter(ws: Workspace, engine: Engine) -> None:
    res = authoring.test_rule(ws, engine, "rule: {pattern: console.log($A)}\n", code="console.log(1)",
                              language="js")
    assert res["success"] is True and len(res["matches"]) == 1
    res = authoring.test_rule(ws, engine, EVAL_RULE, code="eval(1)", language="javascript")
    assert res["success"] is False and "language" in res["errors"][0]
    with pytest.raises(BadInput):
        authoring.test_rule(ws, engine, EVAL_RULE, language="klingon")


def test_global_utils_resolve_with_a_project(initialized: Workspace, engine: Engine) -> None:
    util = "id: is-exit\nlanguage: python\nrule: {pattern: exit($$$)}\n"
    (initialized.root / "utils" / "is-exit.yml").write_text(util)
    before = snapshot_tree(initialized.root)
    res = authoring.test_rule(initialized, engine, "id: no-exit\nlanguage: python\nrule: {matches: is-exit}\n",
                              code="exit(1)\n", invalid_examples=["exit()"], valid_examples=["quit()"])
    assert res["success"] is True, res
    assert [d["ruleId"] for d in res["matches"]] == ["no-exit"]
    assert res["warnings"] == []
    assert snapshot_tree(initialized.root) == before
    assert project.load_config(initialized)  # still a valid project


def test_unverifiable_fix_is_flagged(ws: Workspace, engine: Engine) -> None:
    res = authoring.test_rule(ws, engine, "language: python\nrule: {pattern: foo($A)}\nfix: 'foo($A'\n",
                              code="foo(1)\n")
    [fix] = [f for f in res["matches"][0]["fixits"] if f["kind"] == "fix"]
    assert fix["verified"] is False and fix["confidence"] <= 0.2


def test_severity_off_is_tested_as_hint(ws: Workspace, engine: Engine) -> None:
    res = authoring.test_rule(ws, engine, "language: python\nseverity: off\nrule: {pattern: foo()}\n", code="foo()")
    assert len(res["matches"]) == 1 and any("off" in w for w in res["warnings"])


def test_input_limits(ws: Workspace, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BadInput):
        authoring.test_rule(ws, engine, 42)  # type: ignore[arg-type]
    with pytest.raises(BadInput):
        authoring.test_rule(ws, engine, EVAL_RULE, code="a\x00")
    with pytest.raises(BadInput):
        authoring.test_rule(ws, engine, EVAL_RULE, valid_examples="eval(x)")
    monkeypatch.setattr(ws, "settings", Settings(max_examples=1))
    with pytest.raises(TooLarge):
        authoring.test_rule(ws, engine, EVAL_RULE, valid_examples=["a", "b"])


def test_globs_are_not_applied_to_examples_and_it_is_said(ws: Workspace, engine: Engine) -> None:
    res = authoring.test_rule(ws, engine, "language: python\nfiles: ['src/**']\nrule: {pattern: foo()}\n",
                              code="foo()", invalid_examples=["foo()"])
    assert res["success"] is True and len(res["matches"]) == 1
    assert any("files" in w for w in res["warnings"])


def test_go_call_pattern_read_as_type_conversion_gets_a_hint(ws: Workspace, engine: Engine) -> None:
    bare = "id: no-println\nlanguage: go\nrule: {pattern: fmt.Println($$$ARGS)}\n"
    res = authoring.test_rule(ws, engine, bare, code='func f() { fmt.Println("x") }')
    assert res["matches"] == []
    assert res["success"] is False  # it can never fire
    assert [f["code"] for f in res["analysis"]] == ["pattern-never-matches"]
    assert any("type_conversion_expression" in h and "selector: call_expression" in h for h in res["hints"])
    fixed = ("id: no-println\nlanguage: go\nrule:\n  pattern:\n    context: 'func _() { fmt.Println($$$ARGS) }'\n"
             "    selector: call_expression\n")
    res = authoring.test_rule(ws, engine, fixed, code='func f() { fmt.Println("x") }')
    assert len(res["matches"]) == 1 and res["hints"] == [] and res["success"] is True


@pytest.mark.slow
def test_go_hint_names_the_pattern_given_not_println(ws: Workspace, engine: Engine) -> None:
    res = authoring.test_rule(ws, engine, "id: no-exit\nlanguage: go\nrule: {pattern: os.Exit($CODE)}\n",
                              invalid_examples=["func f() {\n\tos.Exit(1)\n}"])
    assert res["success"] is False
    assert res["hints"] and not any("Println" in h for h in res["hints"])
    assert any("os.Exit($CODE)" in h for h in res["hints"])


@pytest.mark.slow
def test_java_expression_pattern_is_not_blamed_for_its_missing_semicolon(ws: Workspace, engine: Engine) -> None:
    rule = "id: no-sysout\nlanguage: java\nrule: {pattern: System.out.println($A)}\n"
    res = authoring.test_rule(ws, engine, rule, invalid_examples=["class A { void f() { log(1); } }"])
    assert res["success"] is False  # the example is wrong, not the pattern
    assert not any("MISSING" in h for h in res["hints"]), res["hints"]


def test_valid_example_that_matches_is_explained_as_too_broad(ws: Workspace, engine: Engine) -> None:
    rule = "id: no-eval\nlanguage: python\nrule:\n  kind: identifier\n  regex: eval|exec\n"
    res = authoring.test_rule(ws, engine, rule, invalid_examples=["eval(x)"], valid_examples=["cursor.execute(q)"])
    assert res["success"] is False
    assert any("too broad" in h and "^(eval|exec)$" in h for h in res["hints"]), res["hints"]
