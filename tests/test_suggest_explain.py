"""suggest_rule's "no rule" explanation (explain.py) when the only rules that separate the examples are never
proposed. Real ast-grep runs the rules over the examples; the candidate is the kind of near miss the search makes
from the examples' shape alone (shapes.py), marked as such, and never kept."""

from __future__ import annotations

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import explain
from sgtools.workflows.suggest.candidates import FIELD, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import read_examples
from sgtools.workflows.suggest.verify import run_rules


def test_a_rule_of_the_shape_alone_that_separates_is_explained_not_a_crash(ws: Workspace, engine: Engine) -> None:
    """Every candidate that flags all invalid examples also separates them, but only by their shape (never
    proposed): the answer says so (it raised IndexError on a blind set's request)."""
    invalid = read_examples(engine, ws.root, "python", ["print(a.b)", "log(c.d)"])
    valid = ["print(a)", "log(c)"]
    valid_trees = read_examples(engine, ws.root, "python", valid)
    body = {"rule": {"kind": "call", "has": {"field": "arguments", "has": {"kind": "attribute"}}}}
    [outcome] = run_rules(engine, "python", "x.py", [body], [e.code for e in invalid] + valid)
    assert all(outcome.hits[:2]) and not any(outcome.hits[2:])  # it separates them, for real
    shape = Candidate(body, Generalised.written(invalid[0].root, "call"), FIELD, 0)
    shape.shape = True
    said = explain.why_none([(shape, outcome)], invalid, valid, True, valid_trees)
    assert said.startswith("Only the examples' shape told them apart"), said
    assert "drop" not in said
