"""The rule analyser (sgtools.rules.analysis) with the real ast-grep: self-match, causes, verified repairs."""

from __future__ import annotations

from typing import Any

import pytest

from sgtools.core import yamlio
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import analyse_rule, analyse_rules, at_least, never_fires
from sgtools.rules.analysis.runner import Batch, run

GO_PRINTLN = "id: no-println\nlanguage: go\nrule:\n  pattern: fmt.Println($$$ARGS)\n"


def _codes(found: list[dict]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in found]


def _fires(engine: Engine, rule_yaml: str, language_ext: str, code: str) -> bool:
    batch = Batch()
    batch.add_rule("r", yamlio.load_all(rule_yaml)[0])
    name = batch.add_file("code", language_ext, code)
    return run(engine, batch).fired("r", name)


def test_go_call_read_as_type_conversion_never_fires_and_gets_a_verified_repair(engine: Engine, ws: Workspace) -> None:
    found = analyse_rule(ws, engine, GO_PRINTLN)
    assert _codes(found) == [("pattern-never-matches", "error")]
    assert never_fires(found)
    assert "type_conversion_expression" in found[0]["message"] and "call_expression" in found[0]["message"]
    assert found[0]["path"] == "rule.pattern"
    repair = found[0]["repair"]
    # The repair is real: plain ast-grep reports a call with it, and did not with the draft.
    code = 'package main\n\nfunc main() {\n\tfmt.Println("x")\n}\n'
    assert _fires(engine, repair, "go", code)
    assert not _fires(engine, GO_PRINTLN, "go", code)


def test_same_cause_for_any_go_package_call_no_api_special_case(engine: Engine, ws: Workspace) -> None:
    found = analyse_rule(ws, engine, "id: x\nlanguage: go\nrule:\n  pattern: os.Exit($CODE)\n")
    assert _codes(found) == [("pattern-never-matches", "error")]
    assert "os.Exit($CODE)" in found[0]["repair"] and "fmt" not in found[0]["repair"]


def test_correct_patterns_have_no_findings(engine: Engine, ws: Workspace) -> None:
    rules = [
        "id: a\nlanguage: python\nrule:\n  pattern: print($$$A)\n",
        "id: b\nlanguage: golang\nrule:\n  pattern: $X == nil\n",
        "id: c\nlanguage: java\nrule:\n  pattern: System.out.println($A)\n",
        "id: d\nlanguage: javascript\nrule:\n  pattern: console.log($$$)\n",
        "id: e\nlanguage: go\nrule:\n  pattern:\n    context: 'func _() { fmt.Println($$$A) }'\n"
        "    selector: call_expression\n",
    ]
    assert analyse_rules(ws, engine, rules) == [[], [], [], [], []]


@pytest.mark.slow
def test_misread_fragment_explains_a_failed_example_with_a_context_repair(engine: Engine, ws: Workspace) -> None:
    draft = "id: x\nlanguage: javascript\nrule:\n  pattern: 'password: $VALUE'\n"
    # Alone, the reading as a labeled statement is real JavaScript: nothing at warning level.
    assert not at_least(analyse_rule(ws, engine, draft), "warning")
    code = 'const c = {password: "hunter2"};\n'
    found = analyse_rule(ws, engine, draft, {"invalid": [code], "valid": ["const c = {user: 1};\n"]})
    assert ("example-not-matched", "error") in _codes(found)
    failed = next(f for f in found if f["code"] == "example-not-matched")
    assert "labeled_statement" in failed["message"] and "pair" in failed["message"]
    assert _fires(engine, failed["repair"], "javascript", code)


@pytest.mark.slow
def test_examples_drive_the_repair_stop_by_end(engine: Engine, ws: Workspace) -> None:
    draft = ("id: x\nlanguage: python\nrule:\n  kind: function_definition\n  has:\n    pattern: eval($$$)\n")
    found = analyse_rule(ws, engine, draft, {"invalid": ["def f(x):\n    return eval(x)\n"],
                                             "valid": ["def f(x):\n    return x\n"]})
    assert ("example-not-matched", "error") in _codes(found)
    assert "stopBy: end" in found[0]["repair"]


@pytest.mark.slow
def test_unknown_kind_gets_the_nearest_real_kind(engine: Engine, ws: Workspace) -> None:
    found = analyse_rule(ws, engine, "id: x\nlanguage: go\nrule:\n  kind: go_stmt\n",
                         {"invalid": ["package main\nfunc f() {\n\tgo run()\n}\n"]})
    assert _codes(found)[0] == ("unknown-kind", "error")
    assert "go_statement" in found[0]["message"]
    assert "kind: go_statement" in found[0]["repair"]


def test_javascript_rule_with_typescript_syntax_gets_the_typescript_grammar(engine: Engine, ws: Workspace) -> None:
    found = analyse_rule(ws, engine, "id: x\nlanguage: javascript\nrule:\n  pattern: $E as any\n")
    assert found[0]["code"] == "wrong-language"
    assert "language: typescript" in found[0]["repair"]


def test_analysis_is_cached_by_rule_content(engine: Engine, ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed (a stopwatch fails under load): analysing the same rules again runs no ast-grep."""
    rules = [f"id: r{n}\nlanguage: python\nrule:\n  pattern: print{n}($$$A)\n" for n in range(20)]
    calls: list[list[str]] = []
    real_run = Engine.run

    def counted_run(self: Engine, args: list[str], **kw: Any) -> Any:
        calls.append(list(args))
        return real_run(self, args, **kw)

    monkeypatch.setattr(Engine, "run", counted_run)
    first = analyse_rules(ws, engine, rules)
    assert calls  # the cold run does ask ast-grep
    calls.clear()
    assert analyse_rules(ws, engine, rules) == first
    assert calls == []


def test_a_refusal_quotes_the_error_findings_only_within_its_bound() -> None:
    """What suggest_rule's answer quotes when it drops a candidate or a draft the analyser refuses."""
    from sgtools.rules.analysis import findings as found

    fs = [found.finding(found.UNKNOWN_KIND, found.ERROR, "rule.kind", "no such kind"),
          found.finding(found.UNANCHORED_REGEX, found.WARNING, "rule.regex", "unanchored"),
          found.finding(found.EXAMPLE_MATCHED, found.ERROR, "rule", "flags valid example 0")]
    assert found.refusal(fs) == "no such kind; flags valid example 0"
    long = [found.finding(found.RULE_REFUSED, found.ERROR, "rule", "x" * 1000)]
    assert found.refusal(long) == "x" * found.REFUSAL_CHARS
