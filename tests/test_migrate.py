"""`migrate_rule`: a pure function that brings rules written for older ast-grep up to 0.51."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from sgtools.community.migrate import migrate_rule
from sgtools.core import yamlio
from sgtools.engine.process import NO_CONFIG, Engine

OLD_RULE = """\
id: hardcoded-db-password
language: python
severity: warning  # reviewed
message: hard-coded password
ast-grep-essentials: true
legacy-tags: [security]
utils:
  $DB(..., password="...",...):
    kind: call
    has:
      stopBy: end
      kind: keyword_argument
      regex: ^password=
  is-connect:
    all:
      - matches: $DB(..., password="...",...)
      - inside:
          stopby: end
          kind: module
rule:
  any:
    - matches: $DB(..., password="...",...)
    - matches: is-connect
    - kind: expression_statement
      has:
        kind: call
        nthChild:
          position: 1
          pattern: $X
        matches: $DB(..., password="...",...)
"""


def load(text: str) -> Any:
    return yamlio.load_rt(text)


def test_old_rule_is_migrated_and_compiles(engine: Engine, tmp_path: Path) -> None:
    original = load(OLD_RULE)
    untouched = copy.deepcopy(original)
    doc, notes = migrate_rule(original)
    assert original == untouched  # pure: the input is not changed
    assert "ast-grep-essentials" not in doc and "legacy-tags" not in doc
    assert doc["metadata"] == {"ast-grep-essentials": True, "legacy-tags": ["security"]}
    assert list(doc["utils"]) == ["DB-password", "is-connect"]
    assert doc["utils"]["is-connect"]["all"][0]["matches"] == "DB-password"
    assert doc["utils"]["is-connect"]["all"][1]["inside"] == {"stopBy": "end", "kind": "module"}
    assert [a.get("matches") for a in doc["rule"]["any"][:2]] == ["DB-password", "is-connect"]
    assert doc["rule"]["any"][2]["has"]["matches"] == "DB-password"
    assert doc["rule"]["any"][2]["has"]["nthChild"] == {"position": 1}
    assert len(notes) == 6, notes
    text = yamlio.dump_rt(doc)
    assert "severity: warning  # reviewed\n" in text  # a ruamel document stays a ruamel document
    rule_file = tmp_path / "r.yml"
    rule_file.write_text(text)
    assert engine.check_rule(rule_file, config=NO_CONFIG, cwd=tmp_path).returncode == 0
    found = engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=rule_file,
                        stdin=b"db.connect(user='u', password='secret')\n")
    assert {m["text"] for m in found} == {"db.connect(user='u', password='secret')"}  # the call and its statement
    # ... where the rule as written does not even load.
    (tmp_path / "old.yml").write_text(OLD_RULE)
    assert engine.check_rule(tmp_path / "old.yml", config=NO_CONFIG, cwd=tmp_path).returncode == 8


def test_migration_is_idempotent() -> None:
    once, _ = migrate_rule(load(OLD_RULE))
    twice, notes = migrate_rule(once)
    assert notes == [] and twice == once
    assert yamlio.dump_rt(twice) == yamlio.dump_rt(once)


def test_a_current_rule_is_unchanged() -> None:
    rule = {"id": "x", "language": "python", "rule": {"pattern": "print($A)", "inside": {"kind": "module",
                                                                                        "stopBy": "end"}},
            "metadata": {"a": 1}}
    doc, notes = migrate_rule(rule)
    assert doc == rule and notes == []


def test_unknown_keys_join_existing_metadata_without_overwriting() -> None:
    doc, notes = migrate_rule({"id": "x", "language": "go", "rule": {"kind": "call_expression"},
                               "metadata": {"owner": "team-a"}, "owner": "team-b", "cwe": "CWE-1"})
    assert doc["metadata"] == {"owner": "team-a", "owner-legacy": "team-b", "cwe": "CWE-1"}
    assert len(notes) == 2


def test_metadata_that_is_not_a_mapping_is_kept_under_value() -> None:
    doc, notes = migrate_rule({"id": "x", "language": "go", "rule": {"kind": "x"}, "metadata": "free text",
                               "extra": 1})
    assert doc["metadata"] == {"value": "free text", "extra": 1}
    assert any("metadata.value" in n for n in notes)


def test_util_renames_never_collide() -> None:
    doc, _ = migrate_rule({
        "id": "x", "language": "python",
        "utils": {"a(b)": {"kind": "call"}, "a=b": {"kind": "call"}, "a-b": {"kind": "identifier"}},
        "rule": {"any": [{"matches": "a(b)"}, {"matches": "a=b"}, {"matches": "a-b"}]},
    })
    assert list(doc["utils"]) == ["a-b-2", "a-b-3", "a-b"]
    assert [r["matches"] for r in doc["rule"]["any"]] == ["a-b-2", "a-b-3", "a-b"]


def test_references_in_constraints_stop_by_and_of_rule_are_updated() -> None:
    doc, _ = migrate_rule({
        "id": "x", "language": "python",
        "utils": {"f(x)": {"kind": "call"}},
        "constraints": {"A": {"matches": "f(x)"}},
        "rule": {"pattern": "g($A)", "inside": {"kind": "module", "stopBy": {"matches": "f(x)"}},
                 "has": {"kind": "argument_list", "nthChild": {"position": 1, "ofRule": {"matches": "f(x)"}}}},
        "message": "matches: f(x) stays as text",
    })
    assert doc["constraints"]["A"]["matches"] == "f-x"
    assert doc["rule"]["inside"]["stopBy"]["matches"] == "f-x"
    assert doc["rule"]["has"]["nthChild"]["ofRule"]["matches"] == "f-x"
    assert doc["message"] == "matches: f(x) stays as text"


def test_rewriters_have_their_own_util_scope() -> None:
    doc, notes = migrate_rule({
        "id": "x", "language": "python", "rule": {"pattern": "$A"},
        "utils": {"top(1)": {"kind": "call"}},
        "rewriters": [{"id": "rw", "utils": {"local(2)": {"kind": "identifier"}},
                       "rule": {"any": [{"matches": "local(2)"}, {"matches": "top(1)"}]}, "fix": "y"}],
    })
    rewriter = doc["rewriters"][0]
    assert list(rewriter["utils"]) == ["local-2"]
    assert [r["matches"] for r in rewriter["rule"]["any"]] == ["local-2", "top-1"]
    assert any("rewriters[0]" in n for n in notes)


def test_unknown_key_in_a_plain_rule_object_is_left_for_validation() -> None:
    """ast-grep refuses it there (unlike in a relation), so dropping it would hide a real mistake."""
    doc, notes = migrate_rule({"id": "x", "language": "python", "rule": {"kind": "call", "foo": 1}})
    assert doc["rule"] == {"kind": "call", "foo": 1} and notes == []
    doc, notes = migrate_rule({"id": "x", "language": "python", "rule": {"Kind": "call"}})
    assert doc["rule"] == {"kind": "call"} and len(notes) == 1
