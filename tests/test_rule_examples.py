"""rules/examples.py is the one example checker: the rule store and test_rule give the same verdicts in the same
words, with the rule's globs left out (examples have no path) and an `off` rule checked as it matches when on."""

from __future__ import annotations

import pytest

from sgtools.core.errors import RuleInvalid
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules import validate
from sgtools.workflows import rule_testing as testing

RULE = "language: python\nseverity: {sev}\nmessage: no print\nfiles: ['src/**']\nrule: {{pattern: print($A)}}\n"


def _both(ws: Workspace, engine: Engine, rule: str, valid: list[str], invalid: list[str]) -> tuple[list[str],
                                                                                                    list[str]]:
    tested = testing.test_rule(ws, engine, rule, valid_examples=valid, invalid_examples=invalid)
    try:
        validate.validate_rule(ws, engine, "test-rule", rule, valid, invalid)
    except RuleInvalid as exc:
        assert exc.details["check"] == "examples"
        return [f["reason"] for f in tested["examples"]["failed"]], list(exc.details["failures"])
    return [f["reason"] for f in tested["examples"]["failed"]], []


@pytest.mark.parametrize("sev", ["warning", "off"])
@pytest.mark.slow
def test_store_and_test_rule_agree(initialized: Workspace, engine: Engine, sev: str) -> None:
    rule = RULE.format(sev=sev)
    from_test_rule, from_store = _both(initialized, engine, rule, ["x = 1\nprint(2)\n"], ["log(1)"])
    assert from_test_rule == from_store == [
        "valid_examples[0] is matched at line 2 (`print(2)`)", "invalid_examples[0] is not matched: log(1)"]
    assert _both(initialized, engine, rule, ["x = 1"], ["print(1)"]) == ([], [])  # globs do not hide the examples
