"""The ceiling docs/suggest-rule.md reports beside suggest_rule's intent figures: the rules an experienced author
wrote for dev12 to dev15 from only suggest_rule's input (tests/data/intent_expert.yml). Real ast-grep."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from tests import intent_catalogue as cat
from tests import intent_expert

EXPERTS = intent_expert.load()


def test_there_is_one_expert_rule_per_request_of_the_sets_it_covers() -> None:
    covered = {e.request.half for e in EXPERTS}
    assert covered == {"dev12", "dev13", "dev14", "dev15"}
    assert sorted(e.request.id for e in EXPERTS) == sorted(r.id for r in cat.load_all() if r.half in covered)


@pytest.mark.slow
def test_each_rule_separates_its_given_examples_and_the_ceiling_holds(engine: Engine) -> None:
    """Each rule does what its author checked on the input; the figure the docs give is a floor."""
    assert [e.request.id for e in EXPERTS if not intent_expert.on_examples(engine, e)] == []
    right = sum(intent_expert.right(engine, e) for e in EXPERTS)
    assert right >= 102, right
