"""The rule store on real projects with the real binary: round trips, updates, multi-document files, removal,
and many processes writing at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.cli import main as cli_main
from sgtools.core import yamlio
from sgtools.core.errors import ConfigMissing, Conflict, NotFound, RuleInvalid
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.rules import listing, locate, store, validate
from tests.conftest import REPO, snapshot_tree

NO_PRINT = """\
# Prefer the logger: print() output is lost in production.
language: python
severity: warning
message: print of $A
rule:
  pattern: print($A)
fix: logger.info($A)
"""

SOURCE = "import logging\nlogger = logging.getLogger()\nprint('a')\nlogger.info('b')\nvalue = eval('1 + 1')\n"


def ids_found(engine: Engine, ws: Workspace) -> set[str]:
    """What a plain `ast-grep scan` of the project reports on the source file: the ground truth."""
    cfg = project.load_config(ws)
    return {m["ruleId"] for m in engine.scan(config=cfg.path, cwd=ws.root, paths=["src/app.py"])}


@pytest.fixture
def proj(initialized: Workspace) -> Workspace:
    (initialized.root / "src").mkdir()
    (initialized.root / "src" / "app.py").write_text(SOURCE)
    return initialized


def test_round_trip_agrees_with_plain_scan(proj: Workspace, engine: Engine) -> None:
    assert ids_found(engine, proj) == set()

    added = store.add_or_update_rule(proj, engine, "no-print", NO_PRINT, ["logger.info(1)"], ["print(1)"])
    assert added["success"] and added["created"]
    assert added["path"] == "rules/no-print.yml"
    assert added["testPath"] == "rule-tests/no-print-test.yml"
    assert added["testResult"]["passed"], added["testResult"]
    assert ids_found(engine, proj) == {"no-print"}
    text = (proj.root / "rules/no-print.yml").read_text()
    assert text.startswith("# Prefer the logger") and "id: no-print\n" in text
    assert yamlio.load_one((proj.root / "rule-tests/no-print-test.yml").read_text()) == {
        "id": "no-print", "valid": ["logger.info(1)"], "invalid": ["print(1)"]}

    listed = listing.list_rules(proj, engine)
    assert listed == {"rules": [{"id": "no-print", "language": "python", "severity": "warning",
                                 "message": "print of $A", "path": "rules/no-print.yml", "hasFix": True,
                                 "hasTests": True, "unproven": False, "analysis": []}], "ruleErrors": []}

    info = listing.explain_rule(proj, engine, "no-print")
    assert info["fix"] == "logger.info($A)" and info["source"] == "project"
    assert info["examples"] == {"valid": ["logger.info(1)"], "invalid": ["print(1)"]}
    assert info["yaml"] == text

    # Update: a second rule in the same id, now about eval, keeping a comment written in the new YAML.
    updated_yaml = "language: python\nseverity: error  # eval is never needed here\nrule:\n  pattern: eval($X)\n"
    # No new proof (forced): the old tests stay.
    updated = store.add_or_update_rule(proj, engine, "no-print", updated_yaml, force=True)
    assert updated["success"] and not updated["created"]
    assert "# eval is never needed here" in (proj.root / "rules/no-print.yml").read_text()
    # Without new examples the old tests stay and now fail: the result says so instead of hiding it.
    assert updated["testResult"]["passed"] is False
    assert ids_found(engine, proj) == {"no-print"}  # now from the eval line
    cfg = project.load_config(proj)
    hits = engine.scan(config=cfg.path, cwd=proj.root, paths=["src/app.py"])
    assert [h["text"] for h in hits] == ["eval('1 + 1')"]

    removed = store.remove_rule(proj, engine, "no-print")
    # The snapshot written when the tests passed goes with the rule.
    assert sorted(removed["removed"]) == ["rule-tests/__snapshots__/no-print-snapshot.yml",
                                          "rule-tests/no-print-test.yml", "rules/no-print.yml"]
    assert ids_found(engine, proj) == set()
    assert listing.list_rules(proj, engine)["rules"] == []


def test_canonical_yaml_is_idempotent(initialized: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    first = (initialized.root / "rules/no-print.yml").read_bytes()
    assert yamlio.dump_rt(yamlio.load_rt(first.decode())).encode() == first
    store.add_or_update_rule(initialized, engine, "no-print", first.decode())  # unchanged: no new proof needed
    assert (initialized.root / "rules/no-print.yml").read_bytes() == first


def test_examples_are_written_and_tested_by_ast_grep(initialized: Workspace, engine: Engine) -> None:
    multi = "def f():\n    print(1)\n"
    result = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, ["x = 1"], [multi, "print(2)"])
    assert result["testResult"]["passed"]
    data = yamlio.load_one((initialized.root / "rule-tests/no-print-test.yml").read_text())
    assert data["invalid"] == [multi, "print(2)"]


def test_config_missing_names_the_init_tool(ws: Workspace, engine: Engine) -> None:
    with pytest.raises(ConfigMissing, match="initialize_ast_grep"):
        store.add_or_update_rule(ws, engine, "no-print", NO_PRINT)
    assert list(ws.root.iterdir()) == []


def test_validate_rule_writes_nothing_and_normalises(initialized: Workspace, engine: Engine) -> None:
    before = snapshot_tree(initialized.root)
    result = validate.validate_rule(initialized, engine, "no-print", NO_PRINT, ["x"], ["print(1)"])
    assert result["valid"] is True
    assert result["rule"]["id"] == "no-print" and result["rule"]["rule"] == {"pattern": "print($A)"}
    assert snapshot_tree(initialized.root) == before


def test_validate_rule_without_project_checks_in_isolation(ws: Workspace, engine: Engine) -> None:
    result = validate.validate_rule(ws, engine, "no-print", NO_PRINT)
    assert result["valid"] and any("no sgconfig.yml" in w for w in result["warnings"])
    assert list(ws.root.iterdir()) == []


def test_overwrite_false_conflicts(initialized: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    before = snapshot_tree(initialized.root)
    with pytest.raises(Conflict, match="overwrite"):
        store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, overwrite=False)
    assert snapshot_tree(initialized.root) == before


def test_metadata_is_merged_and_reported_as_source(initialized: Workspace, engine: Engine) -> None:
    yaml_text = NO_PRINT + "metadata:\n  category: style\n"
    store.add_or_update_rule(initialized, engine, "no-print", yaml_text,
                                 force=True, metadata={"source": "community:test", "sha256": "abc"})
    info = listing.explain_rule(initialized, engine, "no-print")
    assert info["source"] == "community:test"
    assert info["metadata"] == {"category": "style", "source": "community:test", "sha256": "abc"}
    # ast-grep accepts the merged metadata (it reports it with --include-metadata).
    cfg = project.load_config(initialized)
    out = engine.run(["scan", "-c", str(cfg.path), "--json=compact", "--include-metadata", "--stdin", "-r",
                      str(initialized.root / "rules/no-print.yml")], cwd=initialized.root, stdin=b"print(1)")
    assert json.loads(out.stdout)[0]["metadata"]["source"] == "community:test"


def test_rule_in_another_file_is_updated_where_it_lives(initialized: Workspace, engine: Engine) -> None:
    sub = initialized.root / "rules" / "python"
    sub.mkdir()
    (sub / "legacy-name.yml").write_text("id: no-print\nlanguage: python\nrule: {pattern: print($A)}\n")
    result = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    assert result["path"] == "rules/python/legacy-name.yml" and not result["created"]
    assert not (initialized.root / "rules/no-print.yml").exists()
    assert "severity: warning" in (sub / "legacy-name.yml").read_text()


def test_multi_document_file_edits_touch_only_that_document(initialized: Workspace, engine: Engine) -> None:
    multi = initialized.root / "rules" / "bundle.yml"
    multi.write_text(
        "# bundle header\nid: first\nlanguage: python\nrule: {pattern: print($A)}\n"
        "---\n# the second rule\nid: second\nlanguage: python\nrule: {pattern: eval($A)}\n"
        "---\nid: third\nlanguage: python\nrule: {pattern: exec($A)}\n"
    )
    store.add_or_update_rule(initialized, engine, "second", "language: python\nseverity: error\n"
                                 "rule: {pattern: eval($A)}\n", force=True)
    text = multi.read_text()
    assert text.startswith("# bundle header\nid: first\n")
    assert "id: second\nlanguage: python\nseverity: error\n" in text and text.endswith("rule: {pattern: exec($A)}\n")
    assert [r["id"] for r in listing.list_rules(initialized, engine)["rules"]] == ["first", "second", "third"]
    assert listing.explain_rule(initialized, engine, "third")["yaml"] == (
        "id: third\nlanguage: python\nrule: {pattern: exec($A)}\n")

    result = store.remove_rule(initialized, engine, "second")
    assert result["removed"] == ["rules/bundle.yml"]
    assert multi.read_text() == ("# bundle header\nid: first\nlanguage: python\nrule: {pattern: print($A)}\n"
                                 "---\nid: third\nlanguage: python\nrule: {pattern: exec($A)}\n")
    cfg = project.load_config(initialized)
    assert engine.check_project(cfg.path, cwd=initialized.root).returncode == 0


def test_remove_takes_tests_and_snapshots_from_every_test_dir(initialized: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, ["x"], ["print(1)"])
    snaps = initialized.root / "rule-tests" / "__snapshots__"
    snaps.mkdir(exist_ok=True)  # the store already wrote a snapshot when the cases passed
    (snaps / "no-print-snapshot.yml").write_text("id: no-print\nsnapshots: {}\n")
    (initialized.root / "rule-tests" / "extra.yml").write_text("id: no-print\nvalid: [y]\ninvalid: []\n")
    (initialized.root / "rule-tests" / "other-test.yml").write_text("id: other\nvalid: [y]\ninvalid: []\n")
    (initialized.root / "rule-tests" / "sub").mkdir()
    (initialized.root / "rule-tests" / "sub" / "x.yml").write_text("id: no-print\nvalid: [1]\ninvalid: []\n")
    result = store.remove_rule(initialized, engine, "no-print")
    assert sorted(result["removed"]) == ["rule-tests/__snapshots__/no-print-snapshot.yml", "rule-tests/extra.yml",
                                         "rule-tests/no-print-test.yml", "rule-tests/sub/x.yml", "rules/no-print.yml"]
    assert (initialized.root / "rule-tests" / "other-test.yml").exists()


def test_remove_unknown_names_closest_ids(initialized: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    before = snapshot_tree(initialized.root)
    with pytest.raises(NotFound, match="Did you mean no-print"):
        store.remove_rule(initialized, engine, "no-prnt")
    with pytest.raises(NotFound, match="Did you mean no-print"):
        listing.explain_rule(initialized, engine, "no-prints")
    assert snapshot_tree(initialized.root) == before


def test_broken_rule_file_elsewhere_is_reported_not_hiding_others(initialized: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    (initialized.root / "rules" / "broken.yml").write_text("id: broken\nlanguage: python\nrule: {patern: x}\n")
    listed = listing.list_rules(initialized, engine)
    assert [r["id"] for r in listed["rules"]] == ["no-print"]
    assert [e["path"] for e in listed["ruleErrors"]] == ["rules/broken.yml"]
    # Adding another good rule still works, tests and snapshot included: they run in a private copy that holds
    # this rule alone (rules/snapshot.py), so the broken file elsewhere no longer stops them.
    added = store.add_or_update_rule(initialized, engine, "no-eval", "language: python\nrule: {pattern: eval($X)}",
                                         ["x"], ["eval(1)"])
    assert added["success"] and added["testResult"]["passed"] is True
    assert (initialized.root / "rule-tests" / "__snapshots__" / "no-eval-snapshot.yml").is_file()


def test_global_util_resolves_through_the_project(initialized: Workspace, engine: Engine) -> None:
    (initialized.root / "utils" / "is-print.yml").write_text("id: is-print\nlanguage: python\n"
                                                             "rule: {pattern: print($$$)}\n")
    rule = "language: python\nseverity: error\nrule: {matches: is-print}\n"
    result = store.add_or_update_rule(initialized, engine, "uses-util", rule, ["log(1)"], ["print(1)"])
    assert result["testResult"]["passed"]
    with pytest.raises(RuleInvalid, match="is-print2"):
        validate.validate_rule(initialized, engine, "uses-util2", "language: python\nrule: {matches: is-print2}\n")


def test_language_list_filter_accepts_aliases(initialized: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    store.add_or_update_rule(initialized, engine, "no-var",
                                 "language: JavaScript\nrule: {kind: variable_declaration}", force=True)
    assert [r["id"] for r in listing.list_rules(initialized, engine, "py")["rules"]] == ["no-print"]
    assert [r["id"] for r in listing.list_rules(initialized, engine, "js")["rules"]] == ["no-var"]


# ---- the command line -------------------------------------------------------------------------------


def test_cli_json_is_the_service_dict(proj: Workspace, engine: Engine, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    rule_file = tmp_path / "rule.yml"
    rule_file.write_text(NO_PRINT)
    root = str(proj.root)
    assert cli_main(["rule", "add", "no-print", "--file", str(rule_file), "--invalid", "print(1)", "--valid", "x",
                     "--root", root, "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["path"] == "rules/no-print.yml" and added["testResult"]["passed"]
    assert cli_main(["rule", "list", "--root", root, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == listing.list_rules(proj, engine)
    assert cli_main(["rule", "show", "no-print", "--root", root, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == listing.explain_rule(proj, engine, "no-print")
    assert cli_main(["explain", "no-print", "--root", root]) == 0
    assert "print of $A" in capsys.readouterr().out
    assert cli_main(["rule", "add", "no-print", "--file", str(rule_file), "--no-overwrite", "--root", root]) == 2
    assert capsys.readouterr().err.startswith("[conflict]")
    assert cli_main(["rule", "remove", "no-print", "--root", root, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["removed"] == [
        "rules/no-print.yml", "rule-tests/no-print-test.yml", "rule-tests/__snapshots__/no-print-snapshot.yml"]
    assert cli_main(["rule", "remove", "no-print", "--root", root]) == 2
    assert capsys.readouterr().err.startswith("[not-found]")


def test_cli_rule_test_calls_authoring(initialized: Workspace, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sgtools.workflows.rule_testing", reason="test_rule is not written yet")
    rule_file = tmp_path / "rule.yml"
    rule_file.write_text(NO_PRINT.replace("language", "id: no-print\nlanguage", 1))
    code = cli_main(["rule", "test", "--file", str(rule_file), "--code", "print(1)", "--root",
                     str(initialized.root), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["success"] and len(result["matches"]) == 1


# ---- many processes at once ---------------------------------------------------------------------------


@pytest.mark.slow
def test_twenty_processes_add_and_remove_at_once(initialized: Workspace, engine: Engine, tmp_path: Path) -> None:
    for i in range(6):
        store.add_or_update_rule(initialized, engine, f"old-{i}",
                                     f"language: python\nrule: {{pattern: old{i}($A)}}", ["x"], [f"old{i}(1)"])
    rule_dir = tmp_path / "incoming"
    rule_dir.mkdir()
    procs = []
    # Correctness under contention is the point here, not the lock timeout: give a loaded machine room.
    env = {**os.environ, "PYTHONPATH": str(REPO), "SGTOOLS_LOCK_TIMEOUT": "240"}
    for i in range(14):
        f = rule_dir / f"new-{i}.yml"
        f.write_text(f"language: python\nseverity: warning\nrule: {{pattern: new{i}($A)}}\n")
        args = ["rule", "add", f"new-{i}", "--file", str(f), "--invalid", f"new{i}(1)", "--valid", "x"]
        procs.append(args)
    procs += [["rule", "remove", f"old-{i}"] for i in range(6)]
    started = [subprocess.Popen([sys.executable, "-m", "sgtools", *a, "--root", str(initialized.root), "--json"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for a in procs]
    for p in started:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
        assert json.loads(out)["success"]
    rules = listing.list_rules(initialized, engine)
    assert rules["ruleErrors"] == []
    assert sorted(r["id"] for r in rules["rules"]) == sorted(f"new-{i}" for i in range(14))
    assert all(r["hasTests"] for r in rules["rules"])
    files = sorted(p.name for p in (initialized.root / "rules").iterdir())
    assert files == sorted([".gitkeep", *(f"new-{i}.yml" for i in range(14))])  # no temp files left behind
    tests = sorted(p.name for p in (initialized.root / "rule-tests").iterdir()
                   if p.name not in ("__snapshots__", ".gitkeep"))
    assert tests == sorted(f"new-{i}-test.yml" for i in range(14))
    snapshots = sorted(p.name for p in (initialized.root / "rule-tests" / "__snapshots__").iterdir())
    assert snapshots == sorted(f"new-{i}-snapshot.yml" for i in range(14))  # the removed rules' snapshots went too
    cfg = project.load_config(initialized)
    assert engine.check_project(cfg.path, cwd=initialized.root).returncode == 0
    report = engine.test(cfg.path, cwd=initialized.root)
    assert report.passed and len(report.statuses) == 14


def test_severity_off_is_accepted_with_a_warning(initialized: Workspace, engine: Engine) -> None:
    """ast-grep 0.51 matches an `off` rule given with -r, but neither `scan` nor `test` runs it in a project."""
    result = store.add_or_update_rule(initialized, engine, "quiet", NO_PRINT.replace("warning", "off"),
                                          ["x"], ["print(1)"])
    assert any("severity is `off`" in w for w in result["warnings"])
    assert result["testResult"]["summary"].startswith("test result: ok. 0 passed")


class CountingEngine(Engine):
    """The real engine, counting its ast-grep processes (instrumentation, not a mock)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def run(self, args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls.append(args[0])
        return super().run(args, **kwargs)


def test_a_validation_costs_a_few_engine_calls(initialized: Workspace) -> None:
    for i in range(30):  # a project with rules: validation must not re-scan or re-check all of them
        rule = f"id: r{i}\nlanguage: python\nrule: {{pattern: f{i}()}}\n"
        (initialized.root / "rules" / f"r{i}.yml").write_text(rule)
    counting = CountingEngine()
    validate.validate_rule(initialized, counting, "no-print", NO_PRINT)
    # compile once, then the analysis: one batched scan and one parse of the pattern's instance
    assert counting.calls == ["scan", "scan", "run"]
    counting.calls.clear()
    store.add_or_update_rule(initialized, counting, "no-print", NO_PRINT, ["x"], ["print(1)"])
    # compile, both examples in one batched scan (rules/examples.py), the analysis with the examples, and one
    # `ast-grep test --update-all`: the cases checked and the rule's snapshot written
    assert counting.calls == ["scan", "scan", "scan", "run", "test"]


def test_empty_example_lists_write_no_test_file(initialized: Workspace, engine: Engine) -> None:
    result = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, [], [], force=True)
    assert result["testPath"] is None and result["testResult"] is None
    assert [p.name for p in (initialized.root / "rule-tests").iterdir()] == [".gitkeep"]


def test_remove_keeps_other_tests_in_a_shared_test_file(initialized: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    store.add_or_update_rule(initialized, engine, "no-eval", "language: python\nrule: {pattern: eval($X)}\n",
                             force=True)
    shared = initialized.root / "rule-tests" / "all-test.yml"
    shared.write_text("id: no-print\nvalid: [x]\ninvalid: ['print(1)']\n---\nid: no-eval\nvalid: [x]\n"
                      "invalid: ['eval(1)']\n")
    assert store.remove_rule(initialized, engine, "no-print")["removed"] == ["rules/no-print.yml",
                                                                              "rule-tests/all-test.yml"]
    assert shared.read_text() == "id: no-eval\nvalid: [x]\ninvalid: ['eval(1)']\n"
    report = engine.test(project.load_config(initialized).path, cwd=initialized.root)
    assert report.passed and list(report.statuses) == ["no-eval"]


def test_unicode_rule_and_examples(proj: Workspace, engine: Engine) -> None:
    rule = "language: python\nseverity: info\nmessage: 'Ausgabe über print() 😀'\nrule: {pattern: print($A)}\n"
    result = store.add_or_update_rule(proj, engine, "no-print", rule, ["x = 'héllo'"], ["print('héllo😀')"])
    assert result["testResult"]["passed"]
    assert listing.explain_rule(proj, engine, "no-print")["message"] == "Ausgabe über print() 😀"
    assert yamlio.load_one((proj.root / "rule-tests/no-print-test.yml").read_text(encoding="utf-8"))["invalid"] == [
        "print('héllo😀')"]
    assert ids_found(engine, proj) == {"no-print"}


def test_in_place_edit_of_same_size_is_seen_at_once(initialized: Workspace, engine: Engine) -> None:
    """The id cache is keyed by content: an editor's in-place save within one mtime tick still counts."""
    path = initialized.root / "rules" / "hand.yml"
    path.write_text("id: aaaa\nlanguage: python\nrule: {pattern: print($A)}\n")
    assert listing.explain_rule(initialized, engine, "aaaa")["path"] == "rules/hand.yml"
    with path.open("r+") as fh:  # same inode, same size
        fh.write("id: bbbb")
    assert listing.explain_rule(initialized, engine, "bbbb")["path"] == "rules/hand.yml"
    with pytest.raises(NotFound):
        store.remove_rule(initialized, engine, "aaaa")


def test_remove_takes_an_unreadable_test_file_named_after_the_rule(initialized: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    broken = initialized.root / "rule-tests" / "no-print-test.yml"
    broken.write_text("id: no-print\nvalid: [unclosed\n")
    assert sorted(store.remove_rule(initialized, engine, "no-print")["removed"]) == [
        "rule-tests/no-print-test.yml", "rules/no-print.yml"]


def test_a_written_rule_and_its_tests_are_primed_under_the_key_the_next_lookup_uses(proj: Workspace,
                                                                                    engine: Engine) -> None:
    store.add_or_update_rule(proj, engine, "no-print", NO_PRINT, ["logger.info(1)"], ["print(1)"])
    rule_path, test_path = proj.root / "rules/no-print.yml", proj.root / "rule-tests/no-print-test.yml"
    assert locate._ids_cache[locate._content_key("rules", rule_path, rule_path.read_bytes())] == ["no-print"]
    assert locate._ids_cache[locate._content_key("tests", test_path, test_path.read_bytes())] == ["no-print"]


def test_a_rule_added_with_examples_passes_a_plain_ast_grep_test(initialized: Workspace, engine: Engine) -> None:
    """Plain `ast-grep test` also checks snapshots: the store writes the rule's snapshot once its cases pass."""
    import subprocess

    added = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, valid_examples=["logger.info(1)"],
                                     invalid_examples=["print(1)"])
    assert added["testResult"]["passed"]
    assert (initialized.root / "rule-tests" / "__snapshots__" / "no-print-snapshot.yml").is_file()
    plain = subprocess.run([str(engine.binary), "test"], cwd=initialized.root, capture_output=True, text=True,
                           timeout=60)
    assert plain.returncode == 0, plain.stdout + plain.stderr


def test_failing_tests_leave_the_snapshots_as_they_were(initialized: Workspace, engine: Engine) -> None:
    """`ast-grep test --update-all` writes a snapshot even when a case fails: the store puts it back."""
    tests = initialized.root / "rule-tests"
    (tests / "no-print-test.yml").write_text("id: no-print\nvalid: ['print(2)']\ninvalid: ['print(1)']\n")
    # the existing cases are run
    result = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    assert result["testResult"]["passed"] is False
    assert not (tests / "__snapshots__").exists()  # not left behind, empty or not
    snaps = tests / "__snapshots__"
    snaps.mkdir()
    (snaps / "no-print-snapshot.yml").write_text("id: no-print\nsnapshots: {}\n")
    (snaps / "other-snapshot.yml").write_text("id: other\nsnapshots: {}\n")
    before = snapshot_tree(initialized.root / "rule-tests")
    again = store.add_or_update_rule(initialized, engine, "no-print", NO_PRINT, force=True)
    assert again["testResult"]["passed"] is False
    assert snapshot_tree(initialized.root / "rule-tests") == before
