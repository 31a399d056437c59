"""index.json v1: build-index over our layout and ast-grep-essentials', determinism, and the load-time checks."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from sgtools.cli import main
from sgtools.community.build import build_index, detect_license, make_index
from sgtools.community.index import parse_index, render_index, validate_index
from sgtools.core.errors import BadInput, Conflict, NotFound
from tests.conftest import CORPUS, needs_corpus

RULE = """\
id: {id}
language: {lang}
severity: warning
message: avoid {id}
{extra}rule:
  pattern: {pattern}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "myrules"
    write(root / "sgconfig.yml", "ruleDirs: [rules]\ntestConfigs:\n- testDir: rule-tests\n")
    write(root / "rules" / "python" / "no-eval-python.yml", RULE.format(
        id="no-eval-python", lang="python", pattern="eval($X)",
        extra="fix: ast.literal_eval($X)\nmetadata:\n  description: Calls eval on data.\n"
              "  tags: [security, cwe-95]\n  license: Apache-2.0\n"))
    write(root / "rules" / "js" / "no-alert-javascript.yml", RULE.format(
        id="no-alert-javascript", lang="JavaScript", pattern="alert($X)",
        extra="note: |\n  [CWE-489] Active Debug Code.\n"))
    write(root / "rule-tests" / "no-eval-python-test.yml", "id: no-eval-python\nvalid: [x]\ninvalid: [eval(x)]\n")
    write(root / "rule-tests" / "alert.yml", "id: no-alert-javascript\nvalid: [x]\ninvalid: [alert(1)]\n")
    write(root / "LICENSE", "MIT License\n\nPermission is hereby granted, free of charge, to any person ...\n")
    return root


def test_build_index_fields_paths_digests_and_licence(repo: Path) -> None:
    result = build_index(repo)
    assert result["ruleCount"] == 2 and result["skipped"] == []
    out = repo / "index.json"
    index = json.loads(out.read_text())
    assert index["version"] == 1 and index["astGrep"] == ">=0.51" and index["name"] == "myrules community"
    by_id = {r["id"]: r for r in index["rules"]}
    assert [r["id"] for r in index["rules"]] == ["no-alert-javascript", "no-eval-python"]  # sorted
    py = by_id["no-eval-python"]
    assert py["path"] == "rules/python/no-eval-python.yml"
    assert py["tests"] == "rule-tests/no-eval-python-test.yml"
    assert py["sha256"] == hashlib.sha256((repo / py["path"]).read_bytes()).hexdigest()
    assert py["description"] == "Calls eval on data."
    assert py["tags"] == ["security", "cwe-95", "python"]
    assert py["hasFix"] is True and py["license"] == "Apache-2.0"  # metadata.license beats the LICENSE file
    assert py["source"] == "myrules"  # the directory's name
    js = by_id["no-alert-javascript"]
    assert js["language"] == "javascript"  # canonical spelling
    assert js["tests"] == "rule-tests/alert.yml"  # found by the test file's id, not its name
    assert js["license"] == "MIT"  # from LICENSE
    assert js["description"] == "avoid no-alert-javascript (CWE-489: Active Debug Code)"
    assert "cwe-489" in js["tags"] and js["hasFix"] is False
    parse_index(out.read_bytes(), "test")  # what it wrote passes its own load checks


def test_build_index_is_byte_identical_on_rerun_and_honours_cli_options(repo: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    build_index(repo)
    first = (repo / "index.json").read_bytes()
    build_index(repo)
    assert (repo / "index.json").read_bytes() == first
    assert first.endswith(b"}\n") and render_index(json.loads(first)) == first
    # The CLI: a parent directory as OUT (paths stay relative to it), --source and --license.
    out = tmp_path / "index.json"
    assert main(["community", "build-index", str(repo), "-o", str(out), "--source", "acme", "--license", "MIT",
                 "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["ruleCount"] == 2
    index = json.loads(out.read_text())
    assert {r["path"] for r in index["rules"]} == {"myrules/rules/python/no-eval-python.yml",
                                                   "myrules/rules/js/no-alert-javascript.yml"}
    assert {r["source"] for r in index["rules"]} == {"acme"}
    lic = {r["id"]: r["license"] for r in index["rules"]}
    assert lic == {"no-eval-python": "Apache-2.0", "no-alert-javascript": "MIT"}


def test_build_index_refuses_an_out_that_the_paths_cannot_reach(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(BadInput, match="not inside"):
        build_index(repo, elsewhere / "index.json")
    assert not (elsewhere / "index.json").exists()
    assert main(["community", "build-index", str(repo), "-o", str(elsewhere / "i.json")]) == 2


def test_build_index_skips_what_cannot_be_an_entry(repo: Path) -> None:
    write(repo / "rules" / "two.yml", RULE.format(id="a-python", lang="python", pattern="a", extra="")
          + "---\n" + RULE.format(id="b-python", lang="python", pattern="b", extra=""))
    write(repo / "rules" / "dup.yml", RULE.format(id="no-eval-python", lang="python", pattern="x", extra=""))
    write(repo / "rules" / "badid.yml", RULE.format(id="'bad id'", lang="python", pattern="x", extra=""))
    write(repo / "rules" / "broken.yml", "id: [unclosed\n")
    result = build_index(repo)
    reasons = {s["path"]: s["reason"] for s in result["skipped"]}
    # Files are visited in path order, so of two files with one id the first path wins, every time.
    dup_loser = "rules/python/no-eval-python.yml"
    assert set(reasons) == {dup_loser, "rules/badid.yml", "rules/broken.yml"}
    assert "already indexed from rules/dup.yml" in reasons[dup_loser]
    # A multi-document rule file gives one entry per rule, each knowing its document.
    index = json.loads((repo / "index.json").read_text())
    docs = {r["id"]: r.get("document") for r in index["rules"]}
    assert docs["a-python"] == 0 and docs["b-python"] == 1 and docs["no-eval-python"] is None
    assert result["ruleCount"] == 4


@needs_corpus
@pytest.mark.slow
def test_build_index_over_ast_grep_essentials_in_place(tmp_path: Path) -> None:
    """The essentials layout: rules/<lang>/security/*.yml, tests/<lang>/<id>-test.yml, Apache-2.0 LICENSE.
    The corpus is read in place through a symlink beside the index, so every path stays inside its directory."""
    (tmp_path / "ess").symlink_to(CORPUS, target_is_directory=True)
    result = build_index(tmp_path / "ess", tmp_path / "index.json")
    index = json.loads((tmp_path / "index.json").read_text())
    rules = {r["id"]: r for r in index["rules"]}
    assert result["skipped"] == [] and len(rules) == 184
    assert all(r["tests"] for r in rules.values())
    assert all(r["license"] == "Apache-2.0" and r["source"] == "ess" for r in rules.values())
    assert all(r["path"].startswith("ess/rules/") for r in rules.values())
    # File name and id differ: the id wins, the path is the real file.
    assert rules["networkcredential-hardcoded-secret-csharp"]["path"].endswith(
        "networkcredential-hardcoded-secret-python.yml")
    # Two test files for one id: the one in the rule's language folder.
    assert rules["dont-call-system-c"]["tests"] == "ess/tests/c/dont-call-system-c-test.yml"
    # No metadata in that corpus: description from the message, CWE and folder tags from the note and path.
    mktemp = rules["avoid-mktemp-python"]
    assert mktemp["description"].startswith("The function `mktemp` is deprecated.")
    assert {"cwe-377", "security", "python"} <= set(mktemp["tags"])
    assert rules["avoid-mktemp-python"]["language"] == "python"
    assert {r["language"] for r in rules.values()} >= {"cpp", "c", "javascript", "typescript"}  # lower-cased


def _good_index() -> dict[str, Any]:
    return {"version": 1, "name": "t", "astGrep": ">=0.51", "rules": [{
        "id": "a-python", "language": "python", "severity": "warning", "message": "m", "description": "d",
        "tags": ["x"], "path": "rules/a-python.yml", "tests": None, "sha256": "0" * 64, "hasFix": False,
        "license": "MIT", "source": "t"}]}


@pytest.mark.parametrize(("field", "value", "needle"), [
    ("path", "../outside.yml", "schema"),
    ("path", "/etc/passwd.yml", "schema"),
    ("path", "rules/../../x.yml", "schema"),
    ("path", "rules\\..\\x.yml", "schema"),
    ("path", "https://evil.example/x.yml", "schema"),
    ("tests", "../t.yml", "schema"),
    ("id", "../../etc/passwd", "schema"),
    ("id", "a b", "schema"),
    ("sha256", "abc", "schema"),
    ("severity", "critical", "schema"),
])
def test_validate_index_refuses_hostile_entries(field: str, value: str, needle: str) -> None:
    data = _good_index()
    data["rules"][0][field] = value
    with pytest.raises(BadInput, match=needle) as info:
        validate_index(data, "https://mirror.example/index.json")
    assert "https://mirror.example/index.json" in info.value.message


def test_validate_index_refuses_duplicates_wrong_version_and_bad_json() -> None:
    data = _good_index()
    data["rules"].append(copy.deepcopy(data["rules"][0]))
    with pytest.raises(BadInput, match="appears twice"):
        validate_index(data, "src")
    data = _good_index()
    data["version"] = 2
    with pytest.raises(BadInput, match="version"):
        validate_index(data, "src")
    with pytest.raises(BadInput, match="not valid JSON") as info:
        parse_index(b'{"version": 1, "rules": [', "/somewhere/index.json")
    assert "/somewhere/index.json" in info.value.message
    validate_index(_good_index(), "src")


def test_make_index_reads_only(repo: Path) -> None:
    before = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*"))
    result = make_index(repo, source="x")
    assert len(result.index["rules"]) == 2
    assert sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*")) == before


# ---- published repository shapes (issue 14) -----------------------------------------------------------------


def test_a_hidden_rule_folder_indexes(tmp_path: Path) -> None:
    repo = tmp_path / "sgrepo"
    write(repo / "sgconfig.yml", "ruleDirs: [.sg/rules]\ntestConfigs:\n  - testDir: .sg/tests\nutilDirs: [.sg/utils]\n")
    write(repo / ".sg" / "rules" / "no-eval.yml", RULE.format(id="no-eval-python", lang="python", pattern="eval($X)",
                                                                extra=""))
    write(repo / ".sg" / "tests" / "no-eval-python-test.yml", "id: no-eval-python\nvalid: [x]\ninvalid: ['eval(a)']\n")
    (repo / ".sg" / "utils").mkdir(parents=True)
    result = build_index(repo)
    assert result["ruleCount"] == 1 and not result["skipped"]
    entry = json.loads((repo / "index.json").read_text())["rules"][0]
    assert entry["path"] == ".sg/rules/no-eval.yml" and entry["tests"] == ".sg/tests/no-eval-python-test.yml"


def test_nothing_indexable_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    repo = tmp_path / "broken"
    write(repo / "rules" / "a.yml", "id: [unclosed\n")
    with pytest.raises(BadInput, match="No rule of"):
        build_index(repo)
    assert not (repo / "index.json").exists()
    assert main(["community", "build-index", str(repo)]) == 2


def test_a_template_config_names_its_placeholders(tmp_path: Path) -> None:
    repo = tmp_path / "template"
    write(repo / "sgconfig.yml", "ruleDirs: [__RULES_DIR__]\ntestConfigs:\n  - testDir: __TESTS_DIR__\n")
    with pytest.raises(NotFound, match=r"is a template.*__RULES_DIR__"):
        build_index(repo)


def test_an_index_of_another_tool_is_not_overwritten(repo: Path) -> None:
    other = repo / "index.json"
    other.write_text('{"entries": ["someone else\'s index"]}')
    with pytest.raises(Conflict, match="not a context-sherpa index"):
        build_index(repo)
    assert "someone else" in other.read_text()
    assert main(["community", "build-index", str(repo)]) == 2
    assert main(["community", "build-index", str(repo), "--force"]) == 0
    assert json.loads(other.read_text())["version"] == 1
    assert main(["community", "build-index", str(repo)]) == 0  # our own index is ours to rebuild


@pytest.mark.parametrize(("files", "expected"), [
    ({"LICENSE": "SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause\n"}, "Apache-2.0 OR BSD-3-Clause"),
    ({"LICENSE": "Apache-2.0 OR MIT\n"}, "Apache-2.0 OR MIT"),
    ({"LICENSE-APACHE": "Apache License\nVersion 2.0, January 2004\n", "LICENSE-MIT": "MIT License\n\nPermission is "
      "hereby granted, free of charge"}, "Apache-2.0 OR MIT"),
    ({"package.json": '{"license": "(MIT OR GPL-3.0-or-later)"}'}, "(MIT OR GPL-3.0-or-later)"),
    ({"LICENSE": "Copyright-2020 nobody\nAll rights reserved.\n"}, None),
])
def test_spdx_expressions_are_detected(tmp_path: Path, files: dict[str, str], expected: str | None) -> None:
    for name, text in files.items():
        write(tmp_path / name, text)
    assert detect_license(tmp_path) == expected
