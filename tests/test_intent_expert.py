"""The ceilings docs/suggest-rule.md reports beside suggest_rule's intent figures: the rules experienced authors
wrote from only suggest_rule's input, with any fact they knew (tests/data/intent_expert.yml, dev12 to dev15) and with
no fact about an API the input does not show (tests/data/intent_expert_plain.yml, dev12 to dev25). Real ast-grep."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.engine.process import Engine
from tests import intent_catalogue as cat
from tests import intent_expert

FILES = {"expert": (intent_expert.EXPERT_PATH, 131), "plain": (intent_expert.PLAIN_PATH, 288)}
COVERED = {"expert": {"dev12", "dev13", "dev14", "dev15", "test"},
           "plain": {"dev12", "dev13", "dev14", "dev15", "dev16", "dev17", "dev18", "dev19", "dev20", "dev21", "dev22",
                     "dev23", "dev24", "dev25", "test"}}


@pytest.mark.parametrize("name", list(FILES))
def test_there_is_one_rule_per_request_of_the_sets_it_covers(name: str) -> None:
    experts = intent_expert.load(FILES[name][0])
    covered = {e.request.half for e in experts}
    assert covered == COVERED[name]
    assert sorted(e.request.id for e in experts) == sorted(r.id for r in cat.load_all() if r.half in covered)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FILES))
def test_each_rule_separates_its_given_examples_and_the_ceiling_holds(engine: Engine, name: str) -> None:
    """Each rule does what its author checked on the input; the figure the docs give is a floor."""
    path, floor = FILES[name]
    experts = intent_expert.load(Path(path))
    assert [e.request.id for e in experts if not intent_expert.on_examples(engine, e)] == []
    right = sum(intent_expert.right(engine, e) for e in experts)
    assert right >= floor, right
