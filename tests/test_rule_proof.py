"""Proof before a rule is saved (issue 28, part 4): a new or changed rule needs an invalid example it flags,
saved as its test; without one it is refused with `[rule-unproven]` unless forced, and forced rules are listed
as unproven by list_rules, doctor and server_info. The catalogue of realistic broken first drafts
(tests/analysis_catalogue.py: has/inside without stopBy, patterns ast-grep reads as another construct in Go,
JS/TS, Java, C, C#...) runs through the real store: none is saved silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.cli import main as cli_main
from sgtools.core.errors import RuleInvalid, RuleUnproven, SgToolsError
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules import listing, store
from sgtools.workflows.doctor import server_info
from tests.analysis_catalogue import BROKEN, CORRECT
from tests.conftest import snapshot_tree

NO_PRINT = "language: python\nseverity: warning\nmessage: no print\nrule:\n  pattern: print($$$A)\n"


def test_a_new_rule_without_an_invalid_example_is_refused_and_nothing_is_written(initialized: Workspace,
                                                                                 engine: Engine) -> None:
    before = snapshot_tree(initialized.root)
    for valid in (None, ["log(1)"]):  # valid examples alone prove nothing fires
        with pytest.raises(RuleUnproven) as err:
            store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, valid)
        assert err.value.render().startswith("[rule-unproven]")
        assert "invalid_examples" in err.value.message and "force: true" in err.value.message
    assert snapshot_tree(initialized.root) == before


def test_proof_is_saved_as_the_test_and_the_rule_is_proven(initialized: Workspace, engine: Engine) -> None:
    result = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, None, ["print(1)"])
    assert result["unproven"] is False and result["testResult"] is not None and result["testResult"]["passed"]
    assert "UNPROVEN" not in result["message"]
    assert (initialized.root / "rule-tests/no-print-test.yml").is_file()
    assert [r["unproven"] for r in listing.list_rules(initialized, engine)["rules"]] == [False]
    assert server_info(initialized, engine)["unprovenRules"] == []
    # Re-saving the same rule needs no new proof.
    again = (initialized.root / "rules/no-print.yml").read_text()
    assert store.add_or_update_rule(initialized, engine, "no-print", again)["unproven"] is False


def test_a_changed_rule_is_proven_by_its_tests_invalid_cases_only_when_they_still_fire(
        initialized: Workspace, engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A changed rule given no new invalid example: its saved test's invalid cases, run against the new version
    before anything is written, are the proof when the new version flags every one of them; a change that no
    longer flags one is refused [rule-unproven] naming it (nothing written), and force saves it UNPROVEN."""
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, ["log(1)"], ["print(1)", "print(a, b)"])
    rule_path = initialized.root / "rules/no-print.yml"
    test_text = (initialized.root / "rule-tests/no-print-test.yml").read_text()
    changed = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT.replace("warning", "error"))
    assert changed["unproven"] is False and changed["testResult"] is not None and changed["testResult"]["passed"]
    assert "Proven by its tests' invalid cases" in changed["message"] and "error" in rule_path.read_text()
    assert (initialized.root / "rule-tests/no-print-test.yml").read_text() == test_text  # its test, unchanged
    narrowed = NO_PRINT.replace("print($$$A)", "print($A, $B)")  # no longer flags print(1)
    before = snapshot_tree(initialized.root)
    with pytest.raises(RuleUnproven) as err:
        store.add_or_update_rule(initialized, engine, "no-print", narrowed)
    assert "no longer flags its tests' invalid case: 'print(1)'" in err.value.message
    assert "invalid_examples" in err.value.message and "force: true" in err.value.message
    assert snapshot_tree(initialized.root) == before
    forced = store.add_or_update_rule(initialized, engine, "no-print", narrowed, force=True)
    assert forced["unproven"] is True and "UNPROVEN" in forced["message"]
    # the CLI the same way: a change its tests prove is saved without --invalid
    rule_file = tmp_path / "r.yml"
    rule_file.write_text(NO_PRINT.replace("warning", "info"))
    assert cli_main(["rule", "add", "no-print", "--file", str(rule_file), "--root", str(initialized.root)]) == 0
    assert "Proven by its tests' invalid cases" in capsys.readouterr().out


def test_force_saves_it_says_unproven_and_every_listing_names_it(initialized: Workspace, engine: Engine) -> None:
    result = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    assert result["success"] and result["unproven"] is True and "UNPROVEN" in result["message"]
    assert [r["unproven"] for r in listing.list_rules(initialized, engine)["rules"]] == [True]
    assert server_info(initialized, engine)["unprovenRules"] == ["no-print"]


def test_an_existing_rule_without_tests_is_listed_as_unproven_not_refused(
        initialized: Workspace, engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    (initialized.root / "rules/legacy.yml").write_text("id: legacy\n" + NO_PRINT)
    (initialized.root / "rule-tests/legacy-test.yml").write_text("id: legacy\nvalid: ['log(1)']\n")  # no invalid
    root = str(initialized.root)
    assert cli_main(["doctor", "--root", root]) == 0  # listed, not an error
    out = capsys.readouterr().out
    assert "unproven       1 rule(s)" in out and "legacy" in out
    assert cli_main(["rule", "list", "--root", root]) == 0
    assert "[tests unproven]" in capsys.readouterr().out
    assert listing.list_rules(initialized, engine)["ruleErrors"] == []  # never refused: it loads and runs


def test_cli_rule_add_names_invalid_and_force(initialized: Workspace, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    rule_file = tmp_path / "r.yml"
    rule_file.write_text(NO_PRINT)
    root = str(initialized.root)
    before = snapshot_tree(initialized.root)
    assert cli_main(["rule", "add", "no-print", "--file", str(rule_file), "--root", root]) == 2
    err = capsys.readouterr().err
    assert err.startswith("[rule-unproven]") and "--invalid" in err and "--force" in err
    assert snapshot_tree(initialized.root) == before
    assert cli_main(["rule", "add", "no-print", "--file", str(rule_file), "--force", "--root", root]) == 0
    assert "UNPROVEN" in capsys.readouterr().out
    assert cli_main(["rule", "add", "no-print", "--file", str(rule_file), "--invalid", "print(1)",
                     "--root", root]) == 0
    assert "UNPROVEN" not in capsys.readouterr().out


def _outcome(ws: Workspace, engine: Engine, rule_id: str, yaml_text: str, valid: list[str] | None,
             invalid: list[str] | None) -> str:
    """'refused', 'flagged' (saved with warnings) or 'silent' (saved without a word)."""
    try:
        result = store.add_or_update_rule(ws, engine, rule_id, yaml_text, valid, invalid)
    except (RuleInvalid, RuleUnproven):
        return "refused"
    except SgToolsError as exc:
        raise AssertionError(f"{rule_id}: {exc.render()}") from None
    return "flagged" if result["warnings"] or result["unproven"] else "silent"


@pytest.mark.slow
def test_broken_drafts_without_examples_are_never_saved_silently(initialized: Workspace, engine: Engine) -> None:
    before = snapshot_tree(initialized.root)
    outcomes = {d.name: _outcome(initialized, engine, d.name, d.yaml(), None, None) for d in BROKEN}
    print(f"\n{len(BROKEN)} broken drafts without examples: "
          f"{sum(o == 'refused' for o in outcomes.values())} refused, saved silently: "
          f"{sum(o == 'silent' for o in outcomes.values())}")
    assert [n for n, o in outcomes.items() if o != "refused"] == []
    assert snapshot_tree(initialized.root) == before


@pytest.mark.slow
def test_broken_drafts_with_their_examples_are_refused_and_correct_ones_saved(initialized: Workspace,
                                                                              engine: Engine) -> None:
    outcomes = {d.name: _outcome(initialized, engine, d.name, d.yaml(), d.valid, d.invalid) for d in BROKEN}
    silent = [n for n, o in outcomes.items() if o == "silent"]
    print(f"\n{len(BROKEN)} broken drafts with examples: {sum(o == 'refused' for o in outcomes.values())} refused, "
          f"{sum(o == 'flagged' for o in outcomes.values())} saved with a warning, saved silently: {len(silent)}")
    assert silent == []
    for d in CORRECT:
        result = store.add_or_update_rule(initialized, engine, d.name, d.yaml(), d.valid, d.invalid)
        assert result["warnings"] == [] and result["unproven"] is False, (d.name, result["message"])
        assert result["testResult"] is not None and result["testResult"]["passed"], d.name
