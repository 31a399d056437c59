"""carry.py: an answer whose top rule is shaped by the examples alone says so, and one read from the request's code
words or written as a plain pattern does not (docs/suggest-rule.md, "How far a suggestion carries"). Real ast-grep."""

from __future__ import annotations

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest.service import suggest_rule


def _cautions(result: dict[str, object]) -> list[str]:
    return [w for w in result["warnings"] if "(the top rule)" in w]  # type: ignore[attr-defined]


def test_a_top_rule_that_copies_the_valid_examples_is_flagged_as_shaped_by_them(ws: Workspace,
                                                                                 engine: Engine) -> None:
    invalid = ['configure(mode="a", plugins=["alpha==1.2"])', 'configure(mode="b", plugins=["beta==3.4", "x"])']
    valid = ['configure(mode="a", plugins=["alpha>=1.2"])', 'configure(mode="b", plugins=["beta>=3"])']
    result = suggest_rule(ws, engine, "python", invalid, valid)
    assert result["success"]
    top = result["candidates"][0]
    cautions = _cautions(dict(result))
    assert len(cautions) == 1 and cautions[0].startswith(f"{top['rule_id']} (the top rule): its shape ({top['form']})")
    assert "test_rule" in cautions[0] and "examples alone" in cautions[0] and "`draft_rule`" in cautions[0]


def test_a_plain_pattern_or_the_request_s_own_code_carries_no_such_warning(ws: Workspace, engine: Engine) -> None:
    plain = suggest_rule(ws, engine, "ruby", ["total = line.to_f", "sum = price.amount.to_f"],
                         ["total = line.to_d", "sum = price.amount"])
    assert plain["success"] and plain["candidates"][0]["form"] == "pattern", plain["candidates"][0]["form"]
    requested = suggest_rule(ws, engine, "python", ["print(x)", "print('a', b)"], ["log.info(x)", "log.info('a', b)"],
                             request="no print() in our code, use the logger")
    assert requested["success"]
    assert _cautions(dict(plain)) == [] and _cautions(dict(requested)) == [], requested["candidates"][0]["form"]
