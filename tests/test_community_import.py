"""import_community_rule: digest-checked fetch, migration, validation and write through the rule store; conflicts;
and every ast-grep-essentials rule imported into a fresh project, where it flags its own invalid examples."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.community import service, sources
from sgtools.community.build import build_index
from sgtools.core import yamlio
from sgtools.core.bundled import bundled_dir
from sgtools.core.errors import BadInput, ConfigMissing, Conflict, NotFound, SgToolsError
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from tests.conftest import CORPUS, needs_corpus, snapshot_tree


def bundled_rule_with_tests() -> dict[str, object]:
    index = json.loads((bundled_dir() / "index.json").read_text())
    return next(r for r in index["rules"] if r["tests"])


def test_import_a_bundled_rule(initialized: Workspace, engine: Engine) -> None:
    entry = bundled_rule_with_tests()
    rid = str(entry["id"])
    result = service.import_community_rule(initialized, engine, rid)
    assert result["success"] and result["path"] == f"rules/{rid}.yml"
    assert result["testPath"] == f"rule-tests/{rid}-test.yml" and result["testResult"]["passed"]
    assert result["source"] == "context-sherpa" and result["license"] == "MIT"
    doc = yamlio.load_one((initialized.root / result["path"]).read_text())
    assert doc["id"] == rid
    assert doc["metadata"]["communityId"] == rid and doc["metadata"]["sha256"] == entry["sha256"]
    assert doc["metadata"]["source"] == "context-sherpa"
    tests = yamlio.load_one((initialized.root / result["testPath"]).read_text())
    details = service.get_community_rule_details(rid)["rule"]
    assert tests["valid"] == details["tests"]["valid"] and tests["invalid"] == details["tests"]["invalid"]
    report = engine.test(project.load_config(initialized).path, cwd=initialized.root)
    assert report.passed and report.statuses.get(rid, "").count(".") == len(tests["valid"]) + len(tests["invalid"])


def test_a_retried_import_repairs_a_half_state(initialized: Workspace, engine: Engine) -> None:
    """Issue 33.5: an import interrupted after its rule and test were written but before the snapshot (what a
    SIGKILL left before the snapshot joined the write) is repaired by importing again, without overwrite: the rule
    on disk holds exactly the bytes the import writes, so it is the same save, not a [conflict]. A stale snapshot
    (the previous version's) and a test file emptied since are put right as well."""
    rid = str(bundled_rule_with_tests()["id"])
    first = service.import_community_rule(initialized, engine, rid)
    rule = initialized.root / first["path"]
    test = initialized.root / str(first["testPath"])
    snap = initialized.root / "rule-tests" / "__snapshots__" / f"{rid}-snapshot.yml"
    rule_bytes, test_bytes, snap_bytes = rule.read_bytes(), test.read_bytes(), snap.read_bytes()
    cfg = project.load_config(initialized).path
    for half in ("no snapshot", "stale snapshot", "test edited"):
        if half == "no snapshot":
            snap.unlink()
        elif half == "stale snapshot":
            snap.write_text(f"id: {rid}\nsnapshots: {{}}\n")
        else:
            test.write_text(f"id: {rid}\nvalid: []\ninvalid: []\n")
        assert half == "test edited" or not engine.test(cfg, cwd=initialized.root, skip_snapshots=False).passed
        again = service.import_community_rule(initialized, engine, rid)
        assert again["success"] and again["testResult"]["passed"], half
        assert any("already saved" in w for w in again.get("warnings", [])), half
        assert (rule.read_bytes(), test.read_bytes(), snap.read_bytes()) == (rule_bytes, test_bytes, snap_bytes)
        assert engine.test(cfg, cwd=initialized.root, skip_snapshots=False).passed, half


def test_a_local_rule_is_never_overwritten_without_overwrite(initialized: Workspace, engine: Engine) -> None:
    rid = str(bundled_rule_with_tests()["id"])
    lang = rid.rsplit("-", 1)[1]
    mine = f"id: {rid}\nlanguage: {lang}\nseverity: info\nmessage: mine\nrule:\n  pattern: local_marker_xyz\n"
    (initialized.root / "rules" / "mine.yml").write_text(mine)  # same id, another file name
    before = snapshot_tree(initialized.root)
    with pytest.raises(Conflict, match="overwrite") as info:
        service.import_community_rule(initialized, engine, rid)
    assert "rules/mine.yml" in info.value.message
    assert snapshot_tree(initialized.root) == before
    result = service.import_community_rule(initialized, engine, rid, overwrite=True)
    assert result["path"] == "rules/mine.yml"  # replaced where it was, so the project keeps one rule with that id
    assert "local_marker_xyz" not in (initialized.root / "rules" / "mine.yml").read_text()


def test_unknown_and_invalid_ids(initialized: Workspace, engine: Engine) -> None:
    rid = str(bundled_rule_with_tests()["id"])
    typo = rid[:3] + rid[4:]  # one letter dropped
    before = snapshot_tree(initialized.root)
    with pytest.raises(NotFound) as info:
        service.import_community_rule(initialized, engine, typo)
    assert info.value.details["closest"][0] == rid and rid in info.value.message
    with pytest.raises(NotFound):
        service.get_community_rule_details(typo)
    for bad in ("../../etc/passwd", "", "a b"):
        with pytest.raises(BadInput):
            service.import_community_rule(initialized, engine, bad)
    assert snapshot_tree(initialized.root) == before


def test_import_needs_a_project(ws: Workspace, engine: Engine) -> None:
    rid = str(bundled_rule_with_tests()["id"])
    with pytest.raises(ConfigMissing):
        service.import_community_rule(ws, engine, rid)
    assert snapshot_tree(ws.root) == {}


def test_cli_search_show_import(initialized: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    rid = str(bundled_rule_with_tests()["id"])
    assert main(["community", "search", *rid.split("-"), "--limit", "3", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["matches"][0]["id"] == rid and found["success"] is True
    assert main(["community", "show", rid]) == 0
    assert f"id: {rid}" in capsys.readouterr().out
    assert main(["community", "import", rid, "--root", str(initialized.root)]) == 0
    assert "Imported" in capsys.readouterr().out
    assert main(["community", "import", rid, "--root", str(initialized.root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("[conflict]") and "overwrite" in err
    assert main(["community", "import", rid, "--overwrite", "--root", str(initialized.root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["success"] is True
    assert main(["community", "sources", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"][-1]["kind"] == "bundled"


@needs_corpus
@pytest.mark.slow
@pytest.mark.timeout(900)  # 184 imports, each parsing big YAML in pure Python: about 2.5 min on 2 cores
def test_every_essentials_rule_imports_into_a_fresh_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            engine: Engine) -> None:
    """build-index over a copy of the corpus, then import each rule, migrated, into its
    own new project. The rule store checks the rule's own valid/invalid cases and the import runs
    `ast-grep test`, so a success means the rule flags every one of its invalid examples and none of its valid."""
    # A copy in the temp dir, not a link: a local index's files reached through a link to outside its directory
    # are refused since issue 33.9 (f6cb797).
    shutil.copytree(CORPUS, tmp_path / "ess")
    built = build_index(tmp_path / "ess", tmp_path / "index.json")
    monkeypatch.setenv(sources.SOURCES_ENV, str(tmp_path / "index.json"))
    ids = [r["id"] for r in json.loads((tmp_path / "index.json").read_text())["rules"]]
    assert built["ruleCount"] == len(ids) == 184
    sources.load_sources()  # check the index once, before the workers share the parsed copy

    def one(rid: str) -> tuple[str, str | None, list[str]]:
        root = tmp_path / "projects" / rid
        root.mkdir(parents=True)
        ws = Workspace(root)
        project.initialize(ws)
        try:
            result = service.import_community_rule(ws, engine, rid)
        except SgToolsError as exc:
            return rid, exc.render(), []  # that it wrote nothing is checked below
        test = result["testResult"]
        if not test or not test["passed"] or not result["testPath"]:
            return rid, f"tests did not pass: {test}", result["migrationNotes"]
        return rid, None, result["migrationNotes"]

    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(one, ids))
    # Every one: the four with a real mistake in a util (a misspelt key, a misplaced `position`), once allowed to
    # be refused here, import since the migrator repairs them. This is the corpus-wide proof that each migrated
    # rule validates with its own examples (tests/test_corpus_validation.py validates a sample of them).
    failed = {rid: why for rid, why, _notes in outcomes if why}
    assert not failed, failed
    notes = {rid: n for rid, why, n in outcomes if not why}
    # Every imported essentials rule needed the `ast-grep-essentials: true` key moved; some needed util renames.
    assert all(any("ast-grep-essentials" in line for line in n) for n in notes.values())
    assert any(any("util" in line for line in n) for n in notes.values())


def test_importing_the_same_rule_again_parses_no_yaml_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  initialized: Workspace, engine: Engine) -> None:
    """A rule that needs migrating is parsed and dumped round trip twice on its first import (the migration, then
    the rule store); importing it again (overwrite) parses nothing: both are remembered by content, and the bytes
    written are the same."""
    repo = tmp_path / "repo"
    (repo / "rules").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "rules" / "no-eval-python.yml").write_text(
        "id: no-eval-python\nlanguage: python\nseverity: warning  # kept\nmessage: eval\n"
        "ast-grep-essentials: true\nrule:\n  pattern: eval($A)\n")
    (repo / "tests" / "no-eval-python-test.yml").write_text(
        "id: no-eval-python\nvalid:\n  - print(1)\ninvalid:\n  - eval(x)\n")
    build_index(repo, tmp_path / "index.json")
    monkeypatch.setenv(sources.SOURCES_ENV, str(tmp_path / "index.json"))
    parses: list[str] = []
    real = yamlio.load_rt

    def counting(text: str) -> object:
        parses.append(text)
        return real(text)
    monkeypatch.setattr(yamlio, "load_rt", counting)
    first = service.import_community_rule(initialized, engine, "no-eval-python")
    assert first["migrationNotes"] and len(parses) == 2
    rule = initialized.root / first["path"]
    written = rule.read_bytes()
    assert b"# kept" in written
    again = service.import_community_rule(initialized, engine, "no-eval-python", overwrite=True)
    assert len(parses) == 2
    assert again["migrationNotes"] == first["migrationNotes"] and rule.read_bytes() == written
