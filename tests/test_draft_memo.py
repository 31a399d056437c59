"""A draft rule's round-trip parse and dump are remembered by content (rules/draft.py `read_draft`): the same
draft validated again, in this process or a new one, is not parsed again, and gives the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from sgtools.core import yamlio
from sgtools.core.errors import RuleInvalid
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules import draft, store, validate

DRAFT = """\
# Prefer the logger: print() output is lost in production.
language: python
severity: warning   # a comment the canonical text keeps
message: 'print of $A'
rule:
  pattern: print($A)
"""


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every round-trip parse, counted (the real parser still runs), from an empty memory (each test has its own
    cache directory already)."""
    monkeypatch.setattr(draft._canonical, "_memory", {})
    seen: list[str] = []
    real = yamlio.load_rt

    def counting(text: str) -> Any:
        seen.append(text)
        return real(text)
    monkeypatch.setattr(yamlio, "load_rt", counting)
    return seen


def test_the_same_draft_is_parsed_once_and_gives_the_same_bytes(initialized: Workspace, engine: Engine,
                                                                 parses: list[str]) -> None:
    first = validate.validate_rule(initialized, engine, "no-print", DRAFT, invalid_examples=["print(1)"])
    assert len(parses) == 1
    first["rule"]["message"] = "changed by the caller"  # the remembered data is not the caller's
    again = validate.validate_rule(initialized, engine, "no-print", DRAFT, invalid_examples=["print(1)"])
    assert len(parses) == 1
    draft._canonical._memory.clear()  # a new process: the entry is read from the cache directory
    third = validate.validate_rule(initialized, engine, "no-print", DRAFT, invalid_examples=["print(1)"])
    assert len(parses) == 1
    assert again["yaml"] == third["yaml"] == first["yaml"]
    assert "# a comment the canonical text keeps" in first["yaml"]
    assert again["rule"] == third["rule"] and again["rule"]["message"] == "print of $A"
    assert again["rule"]["id"] == "no-print"


def test_metadata_and_id_are_part_of_the_key(initialized: Workspace, engine: Engine, parses: list[str]) -> None:
    validate.validate_rule(initialized, engine, "no-print", DRAFT)
    written = store.add_or_update_rule(initialized, engine, "no-print", DRAFT, invalid_examples=["print(1)"],
                                      metadata={"source": "here"})
    assert len(parses) == 2
    text = (initialized.root / written["path"]).read_text(encoding="utf-8")
    assert "\nid: no-print\n" in text and text.endswith("metadata:\n  source: here\n")
    other = validate.validate_rule(initialized, engine, "no-print-2", DRAFT)
    assert len(parses) == 3 and other["rule"]["id"] == "no-print-2"


def test_a_refused_draft_is_not_parsed_round_trip(initialized: Workspace, engine: Engine, parses: list[str]) -> None:
    """A draft the schema, id or language check refuses is read by the safe loader only (the round-trip parse
    is for the canonical text), and not remembered: refused again the same way."""
    wrong_id = "id: other\n" + DRAFT
    for _ in range(2):
        with pytest.raises(RuleInvalid, match="rule_id is `no-print`"):
            validate.validate_rule(initialized, engine, "no-print", wrong_id)
    with pytest.raises(RuleInvalid, match="structure is invalid"):
        validate.validate_rule(initialized, engine, "no-print", DRAFT + "nosuchkey: 1\n")
    with pytest.raises(RuleInvalid, match="language"):
        validate.validate_rule(initialized, engine, "no-print", DRAFT.replace("python", "klingon"))
    assert parses == []
    with pytest.raises(RuleInvalid, match="not valid YAML"):  # what the safe loader refuses, the round trip words
        validate.validate_rule(initialized, engine, "no-print", DRAFT + "rule: [\n")
    assert len(parses) == 1


def test_the_round_trip_parse_decides_where_the_loaders_differ(initialized: Workspace, engine: Engine,
                                                               parses: list[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the safe loader's data is not the round-trip parse's (here made so: it reads another language), the
    checks run again on the round-trip data and its verdict and data are the answer."""
    real = yamlio.load_all
    monkeypatch.setattr(yamlio, "load_all", lambda text: [{**real(text)[0], "language": "javascript"}])
    result = validate.validate_rule(initialized, engine, "no-print", DRAFT, invalid_examples=["print(1)"])
    assert result["valid"] and result["rule"]["language"] == "python" and len(parses) == 1
    monkeypatch.setattr(yamlio, "load_all", lambda text: [{**real(text)[0], "language": "python"}])
    with pytest.raises(RuleInvalid, match="language"):
        validate.validate_rule(initialized, engine, "no-print-2", DRAFT.replace("python", "klingon"))
