"""Findings worth reading (issue 21): test code marked `inTest`, with each rule's `metadata.inTests`, checked
with the real ast-grep binary in real temp projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.core.errors import RuleInvalid
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan import paths, snippet, testcode

NO_PRINT = """id: no-print
language: python
severity: warning
message: print call
rule: {pattern: print($$$A)}
"""
SECRET = """id: hardcoded-secret
language: python
severity: error
message: a secret in code
rule: {pattern: 'PASSWORD = $S'}
"""
SKIP_IN_TESTS = """id: no-assert
language: python
severity: warning
message: assert is stripped with -O
metadata: {inTests: skip}
rule: {kind: assert_statement}
"""
RUST_UNWRAP = """id: no-unwrap
language: rust
severity: warning
message: unwrap panics
rule: {pattern: $X.unwrap()}
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.mark.parametrize(("path", "expected"), [
    ("tests/test_app.py", True), ("pkg/test_x.py", True), ("pkg/x_test.py", True), ("conftest.py", True),
    ("server/handler_test.go", True), ("web/button.spec.ts", True), ("web/a.test.jsx", True),
    ("src/test/java/com/AppTest.java", True), ("crate/tests/it.rs", True), ("spec/models/user_spec.rb", True),
    ("src/app.py", False), ("src/testing_utils.py", False), ("contest.py", False), ("src/latest/x.go", False),
    ("attest.ts", False), (None, False),
])
def test_test_path_conventions(path: str | None, expected: bool) -> None:
    assert testcode.is_test_path(path) is expected


def test_cfg_test_spans_cover_the_module_only() -> None:
    text = "fn a() { x.unwrap(); }\n#[cfg(test)]\nmod tests {\n  fn t() { if y { z.unwrap(); } }\n}\nfn b() {}\n"
    (start, end), = testcode.cfg_test_spans(text)
    assert text[start:end].startswith("#[cfg(test)]") and text[start:end].endswith("}\n}")
    assert testcode.cfg_test_spans("fn main() {}") == []


def test_scan_path_marks_tests_and_applies_each_policy(initialized: Workspace, engine: Engine) -> None:
    root = initialized.root
    _write(root, {
        "rules/no-print.yml": NO_PRINT, "rules/secret.yml": SECRET, "rules/no-assert.yml": SKIP_IN_TESTS,
        "src/app.py": "print(1)\nPASSWORD = 'x'\nassert ok\n",
        "tests/test_app.py": "print(1)\nPASSWORD = 'x'\nassert ok\n",
    })
    result = paths.scan_path(initialized, engine, verify_fixits=False)
    by = {(d["file"], d["ruleId"]): d for d in result["issues"]}
    assert by[("src/app.py", "no-print")]["inTest"] is False
    assert by[("src/app.py", "hardcoded-secret")]["severity"] == "error"
    assert by[("src/app.py", "no-assert")]["inTest"] is False
    test_print = by[("tests/test_app.py", "no-print")]
    assert test_print["inTest"] is True and test_print["severity"] == "warning"  # default policy: report
    test_secret = by[("tests/test_app.py", "hardcoded-secret")]
    assert test_secret["inTest"] is True and test_secret["severity"] == "info"  # secrets: info in tests
    assert ("tests/test_app.py", "no-assert") not in by  # metadata.inTests: skip
    assert result["inTests"] == {"hardcoded-secret": 1, "no-print": 1}
    assert result["skippedInTests"] == {"no-assert": 1}
    assert result["counts"] == {"error": 1, "warning": 3, "info": 1, "hint": 0}


def test_rust_cfg_test_module_and_project_test_paths(initialized: Workspace, engine: Engine) -> None:
    root = initialized.root
    _write(root, {
        "rules/no-unwrap.yml": RUST_UNWRAP, "rules/no-print.yml": NO_PRINT,
        "src/lib.rs": "fn a() { x.unwrap(); }\n#[cfg(test)]\nmod tests {\n  fn t() { y.unwrap(); }\n}\n",
        "qa/checks.py": "print(1)\n", "tests/test_x.py": "print(2)\n",
    })
    result = paths.scan_path(initialized, engine, verify_fixits=False)
    marks = sorted((d["file"], d["line"], d["inTest"]) for d in result["issues"])
    assert marks == [("qa/checks.py", 1, False), ("src/lib.rs", 1, False), ("src/lib.rs", 4, True),
                     ("tests/test_x.py", 1, True)]
    cfg = root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "testPaths: ['*/qa/*']\n")
    result = paths.scan_path(initialized, engine, verify_fixits=False)
    marks = sorted((d["file"], d["inTest"]) for d in result["issues"] if d["ruleId"] == "no-print")
    assert marks == [("qa/checks.py", True), ("tests/test_x.py", False)]


def test_snippet_checked_as_a_test_file(initialized: Workspace, engine: Engine) -> None:
    _write(initialized.root, {"rules/secret.yml": SECRET})
    code = "PASSWORD = 'x'\n"
    as_test = snippet.scan_code(initialized, engine, code, path="tests/test_login.py")
    assert [(d["inTest"], d["severity"]) for d in as_test["issues"]] == [(True, "info")]
    assert as_test["inTests"] == {"hardcoded-secret": 1}
    as_src = snippet.scan_code(initialized, engine, code, path="app/login.py")
    assert [(d["inTest"], d["severity"]) for d in as_src["issues"]] == [(False, "error")]
    assert "inTests" not in as_src


def test_bad_policy_and_bad_test_paths_are_refused(initialized: Workspace, engine: Engine) -> None:
    _write(initialized.root, {"rules/r.yml": SKIP_IN_TESTS.replace("skip", "hide"), "tests/test_a.py": "assert x\n"})
    with pytest.raises(RuleInvalid, match="inTests"):
        paths.scan_path(initialized, engine, verify_fixits=False)
    cfg = initialized.root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "testPaths: tests\n")
    with pytest.raises(RuleInvalid, match="testPaths"):
        paths.scan_path(initialized, engine, verify_fixits=False)
