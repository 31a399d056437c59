"""Published rule repositories of four different shapes, built here from what such repositories look like: each
is indexed, served from a directory and over a real HTTP server on 127.0.0.1, every rule imported into a fresh
project, and the project then passes a plain `ast-grep test` (snapshots included)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from sgtools.community import search, service, sources
from sgtools.community.build import build_index
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from tests.test_community_sources import Server

pytestmark = pytest.mark.slow


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def hidden_folder_repo(root: Path) -> list[str]:
    """A project that lints itself from `.sg/` (rules, tests, utils), one rule limited to its own sources."""
    write(root / "sgconfig.yml", "ruleDirs: [.sg/rules]\nutilDirs: [.sg/utils]\ntestConfigs:\n  - testDir: .sg/tests\n")
    write(root / ".sg" / "utils" / "README.md", "global utils live here\n")
    write(root / ".sg" / "rules" / "no-pdb.yml",
          "id: no-pdb\nlanguage: python\nseverity: error\nmessage: remove the debugger\n"
          "rule: {pattern: pdb.set_trace()}\nfiles: ['ddtrace/**/*.py']\n")
    write(root / ".sg" / "rules" / "no-assert-true.yml",
          "id: no-assert-true\nlanguage: python\nseverity: warning\nmessage: assert on a constant\n"
          "rule: {pattern: assert True}\nnote: |\n  Asserting a constant checks nothing.\n")
    write(root / ".sg" / "tests" / "no-pdb-test.yml", "id: no-pdb\nvalid: ['print(1)']\ninvalid: ['pdb.set_trace()']\n")
    write(root / ".sg" / "tests" / "no-assert-true-test.yml",
          "id: no-assert-true\nvalid: ['assert x']\ninvalid: ['assert True']\n")
    return ["no-pdb", "no-assert-true"]


def multi_document_repo(root: Path) -> list[str]:
    """Several rules per file, and their tests in one multi-document file too."""
    write(root / "rules" / "all.yml",
          "# house rules\nid: no-var\nlanguage: javascript\nseverity: warning\nmessage: use let or const\n"
          "rule: {kind: variable_declaration}\n---\n"
          "id: no-console-log\nlanguage: javascript\nseverity: info\nmessage: no console.log\n"
          "rule: {pattern: console.log($$$A)}\nfix: ''\n---\n"
          "id: no-unwrap\nlanguage: rust\nseverity: warning\nmessage: handle the error\n"
          "rule: {pattern: $X.unwrap()}\n")
    write(root / "tests" / "all-test.yml",
          "id: no-var\nvalid: ['let a = 1']\ninvalid: ['var a = 1']\n---\n"
          "id: no-console-log\nvalid: ['console.error(1)']\ninvalid: ['console.log(1)']\n---\n"
          "id: no-unwrap\nvalid: ['fn f() { a.expect(\"x\"); }']\ninvalid: ['fn f() { a.unwrap(); }']\n")
    return ["no-var", "no-console-log", "no-unwrap"]


def snapshot_repo(root: Path) -> list[str]:
    """Security rules with labels, constraints, metadata and shipped `ast-grep test` snapshots."""
    write(root / "LICENSE", "SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause\n")
    write(root / "rules" / "python" / "security" / "subprocess-shell-true.yml",
          "id: subprocess-shell-true\nlanguage: python\nseverity: error\n"
          "message: subprocess with shell=True runs a shell\nnote: '[CWE-78]: OS command injection'\n"
          "url: https://example.org/rules/subprocess-shell-true\n"
          "metadata: {cwe: CWE-78, category: security}\n"
          "rule:\n  pattern: $F($$$A, shell=True)\nconstraints:\n  F: {regex: '^subprocess\\.'}\n"
          "labels:\n  F:\n    style: secondary\n    message: this call\n")
    write(root / "rule-tests" / "subprocess-shell-true-test.yml",
          "id: subprocess-shell-true\nvalid: ['subprocess.run(c)']\ninvalid: ['subprocess.run(c, shell=True)']\n")
    write(root / "rule-tests" / "__snapshots__" / "subprocess-shell-true-snapshot.yml",
          "id: subprocess-shell-true\nsnapshots:\n  subprocess.run(c, shell=True):\n    labels:\n"
          "    - source: subprocess.run(c, shell=True)\n      style: primary\n      start: 0\n      end: 29\n")
    return ["subprocess-shell-true"]


def catalog_repo(root: Path) -> list[str]:
    """The ast-grep catalog's shapes: rewriters (with `language`), transform, local utils; a template config."""
    write(root / "sgconfig.yml", "ruleDirs: [__RULES_DIR__]\ntestConfigs:\n  - testDir: __TESTS_DIR__\n")
    write(root / "rules" / "recursive-rewrite-types.yml",
          "id: recursive-rewrite-types\nlanguage: typescript\nseverity: hint\nmessage: Optional to union\n"
          "rewriters:\n- id: rewrite-optional\n  language: typescript\n  rule: {pattern: 'Optional<$T>'}\n"
          "  fix: '$T | undefined'\n"
          "rule: {pattern: 'type $N = $V'}\n"
          "transform:\n  NEW: {rewrite: {source: $V, rewriters: [rewrite-optional]}}\n"
          "fix: 'type $N = $NEW'\n")
    write(root / "rules" / "no-await-in-loop.yml",
          "id: no-await-in-loop\nlanguage: typescript\nseverity: warning\nmessage: await in a loop runs serially\n"
          "utils:\n  is-loop: {any: [{kind: for_statement}, {kind: while_statement}]}\n"
          "rule:\n  kind: await_expression\n  inside: {matches: is-loop, stopBy: end}\n")
    write(root / "tests" / "recursive-rewrite-types-test.yml",
          "id: recursive-rewrite-types\nvalid: ['let a = 1']\ninvalid: ['type A = Optional<string>']\n")
    write(root / "tests" / "no-await-in-loop-test.yml",
          "id: no-await-in-loop\nvalid: ['await f()']\ninvalid: ['for (;;) { await f() }']\n")
    return ["recursive-rewrite-types", "no-await-in-loop"]


SHAPES = {"hidden-folder": hidden_folder_repo, "multi-document": multi_document_repo, "snapshots": snapshot_repo,
          "catalog": catalog_repo}


@pytest.fixture
def repos(tmp_path: Path) -> Iterator[tuple[Path, dict[str, list[str]]]]:
    base = tmp_path / "published"
    ids = {}
    for name, make in SHAPES.items():
        ids[name] = make(base / name)
        built = build_index(base / name, source=name)
        assert built["ruleCount"] == len(ids[name]) and not built["skipped"], (name, built)
    yield base, ids


def import_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locations: list[str],
               ids: dict[str, list[str]], label: str) -> int:
    monkeypatch.setenv(sources.SOURCES_ENV, ",".join(locations))
    search._memory.clear()
    (tmp_path / f"importer-{label}").mkdir()
    ws = Workspace(tmp_path / f"importer-{label}")
    project.initialize(ws)
    engine = Engine()
    imported = 0
    for shape, rule_ids in ids.items():
        for rid in rule_ids:
            result = service.import_community_rule(ws, engine, rid)
            assert result["success"] and result["testResult"] and result["testResult"]["passed"], (shape, result)
            imported += 1
    plain = subprocess.run([str(engine.binary), "test"], cwd=ws.root, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert f"{imported} passed" in plain.stdout
    return imported


def test_every_shape_indexes_imports_and_passes_plain_ast_grep_test(
        repos: tuple[Path, dict[str, list[str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base, ids = repos
    local = import_all(tmp_path, monkeypatch, [str(base / name) for name in SHAPES], ids, "local")
    server = Server(base)
    try:
        urls = [server.url(f"/r/{name}/index.json") for name in SHAPES]
        remote = import_all(tmp_path, monkeypatch, urls, ids, "http")
    finally:
        server.stop()
    print(f"\nrule repositories: {len(SHAPES)} shapes, {sum(map(len, ids.values()))} rules; imported {local} from "
          f"directories and {remote} over HTTP; plain `ast-grep test` passed in both projects")


def test_source_globs_are_said_at_import_and_can_be_dropped(
        repos: tuple[Path, dict[str, list[str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base, _ids = repos
    monkeypatch.setenv(sources.SOURCES_ENV, str(base / "hidden-folder"))
    search._memory.clear()
    (tmp_path / "p").mkdir()
    ws = Workspace(tmp_path / "p")
    project.initialize(ws)
    kept = service.import_community_rule(ws, Engine(), "no-pdb")
    assert any("ddtrace/**/*.py" in w and "globs=drop" in w for w in kept.get("warnings", []))
    assert "ddtrace" in (ws.root / "rules" / "no-pdb.yml").read_text()
    dropped = service.import_community_rule(ws, Engine(), "no-pdb", overwrite=True, globs="drop")
    assert any("dropped" in w for w in dropped.get("warnings", []))
    assert "ddtrace" not in (ws.root / "rules" / "no-pdb.yml").read_text()
