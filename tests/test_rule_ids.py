"""A rule id is checked with a full match wherever it enters: `$` alone lets "abc\\n" through (and writes
`rules/abc\\n.yml`)."""

from __future__ import annotations

import pytest

from sgtools.community import service
from sgtools.community.index import check_relpath, validate_index
from sgtools.core.errors import BadInput
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace, check_rule_id
from sgtools.rules import listing, store, validate
from tests.conftest import snapshot_tree
from tests.test_community_index import _good_index

RULE = "language: python\nseverity: error\nmessage: no eval\nrule: {pattern: eval($X)}\n"
TRAILING = ["abc\n", "abc\r\n", "abc\n\n", "\nabc", "ab\nc", "abc\x00"]


@pytest.mark.parametrize("rule_id", TRAILING)
def test_every_entry_refuses_an_id_with_a_newline(initialized: Workspace, engine: Engine, rule_id: str) -> None:
    before = snapshot_tree(initialized.root)
    with pytest.raises(BadInput, match="is not valid"):
        check_rule_id(rule_id)
    with pytest.raises(BadInput, match="is not valid"):
        store.add_or_update_rule(initialized, engine, rule_id, RULE)
    with pytest.raises(BadInput, match="is not valid"):
        validate.validate_rule(initialized, engine, rule_id, RULE)
    with pytest.raises(BadInput, match="is not valid"):
        store.remove_rule(initialized, engine, rule_id)
    with pytest.raises(BadInput, match="is not valid"):
        listing.explain_rule(initialized, engine, rule_id)
    with pytest.raises(BadInput, match="is not valid"):
        service.import_community_rule(initialized, engine, rule_id)
    assert snapshot_tree(initialized.root) == before


def test_index_ids_and_paths_are_full_matches() -> None:
    data = _good_index()
    data["rules"][0]["id"] += "\n"
    with pytest.raises(BadInput):
        validate_index(data, "src", schema=False)
    with pytest.raises(BadInput):
        check_relpath("rules/a.yml\n/b.yml", "src")
    with pytest.raises(BadInput):
        check_relpath("rules\n/a.yml", "src")


def test_a_plain_id_still_passes(initialized: Workspace, engine: Engine) -> None:
    assert check_rule_id("no-eval.v2_x") == "no-eval.v2_x"
    store.add_or_update_rule(initialized, engine, "no-eval", RULE, invalid_examples=["eval(x)"])
    assert (initialized.root / "rules" / "no-eval.yml").is_file()
