"""Findings worth reading (issue 21): test code marked `inTest`, with each rule's `metadata.inTests`, checked
with the real ast-grep binary in real temp projects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.core.bundled import bundled_dir
from sgtools.core.errors import RuleInvalid
from sgtools.engine.process import Engine
from sgtools.present import summary
from sgtools.project.workspace import Workspace
from sgtools.scan import generated, paths, snippet, suppress, testcode

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
    # test helpers and fixtures: rustls' test-CA script, minio-go's functional_tests.go, sqlalchemy.testing
    ("usr/share/rust-rustls/test-ca/build-a-pki.sh", True), ("lib/test_utils/db.py", True),
    ("e2e/integration-tests/run.ts", True), ("internal/testutil/fake.go", True), ("minio-go/functional_tests.go", True),
    ("sqlalchemy/testing/fixtures.py", True), ("polls/tests.py", True), ("src/unit_test/a.c", True),
    ("src/testament/x.py", False), ("cmd/latest/x.go", False), ("pkg/attestation/x.go", False),
    ("src/contests.py", False), ("src/tester.go", False), ("src/latest_tests_summary.md", False),
    ("web/features/ab-test/banner.ts", False),
    # GNU projects' DejaGnu/Automake suites (binutils' gold/testsuite/*.sh); a name that only contains the word is not
    ("binutils/gold/testsuite/eh_test_2.sh", True), ("gas/testsuites/lib/run.sh", True),
    ("src/testsuite_report.c", False), ("tools/mytestsuite/run.sh", False),
])
def test_test_path_conventions(path: str | None, expected: bool) -> None:
    assert testcode.is_test_path(path) is expected


GO_HELPER = 'package acmetest\n\nimport (\n\t"crypto/tls"\n\t"testing"\n)\n'


@pytest.mark.parametrize(("text", "expected"), [
    (GO_HELPER, True), ('package graphtest\n\nimport "testing"\n', True),
    ('package x\n\nimport (\n\tt "testing" // for T\n)\n', True),
    ('package fs\n\nimport (\n\t"testing/fstest"\n)\n', False),  # another package, not `testing`
    ('package x\n\nimport "fmt"\n\nvar s = "testing"\n', False),  # the word in a string
    ('package x\n\nimport (\n\t"fmt"\n)\n\nfunc f() { fmt.Println(\n\t"testing")\n}\n', False),
])
def test_go_test_helper_package_imports_testing(text: str, expected: bool) -> None:
    assert testcode.go_imports_testing(text) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("import os\nfrom ...testing.provision import create_db\n", True),  # sqlalchemy dialects/*/provision.py
    ("from sqlalchemy.testing import fixtures\n", True), ("import numpy.testing as npt\n", True),
    ("import pytest\n", True), ("from pytest import fixture\n", True),
    ("from unittest import mock\n", False),  # shipped code mocks too
    ("def run():\n    import pytest\n    pytest.main()\n", False),  # a lazy import: a launcher, not a helper
    ("from .testing_utils import x\nimport pytestish\n", False),  # other names
    ("doc = 'from x.testing import y'\n", False), ("import os\n", False),
])
def test_python_test_helper_module_imports_testing(text: str, expected: bool) -> None:
    assert testcode.python_imports_testing(text) is expected
    assert testcode.imports_test_support("python", text) is expected


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
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
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
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    marks = sorted((d["file"], d["line"], d["inTest"]) for d in result["issues"])
    assert marks == [("qa/checks.py", 1, False), ("src/lib.rs", 1, False), ("src/lib.rs", 4, True),
                     ("tests/test_x.py", 1, True)]
    cfg = root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "testPaths: ['*/qa/*']\n")
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    marks = sorted((d["file"], d["inTest"]) for d in result["issues"] if d["ruleId"] == "no-print")
    assert marks == [("qa/checks.py", True), ("tests/test_x.py", False)]


def test_go_test_helper_package_is_test_code(initialized: Workspace, engine: Engine) -> None:
    root = initialized.root
    skip_verify = ("id: tls-skip-verify\nlanguage: go\nseverity: error\nmessage: TLS checks off\n"
                   "rule: {kind: keyed_element, regex: '^InsecureSkipVerify'}\n")
    body = "\nfunc cfg() *tls.Config { return &tls.Config{InsecureSkipVerify: true} }\n"
    _write(root, {"rules/tls.yml": skip_verify,
                  "internal/acmetest/ca.go": GO_HELPER + body,  # x/crypto's test CA: imports testing
                  "client/conn.go": 'package client\n\nimport "crypto/tls"\n' + body})
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    marks = sorted((d["file"], d["inTest"], d["severity"]) for d in result["issues"])
    assert marks == [("client/conn.go", False, "error"), ("internal/acmetest/ca.go", True, "info")]


def test_python_test_helper_module_is_test_code(initialized: Workspace, engine: Engine) -> None:
    _write(initialized.root, {
        "rules/secret.yml": SECRET,
        "lib/dialects/sqlite/provision.py": "from ...testing.provision import create_db\nPASSWORD = 'x'\n",
        "lib/dialects/sqlite/base.py": "from ... import exc\nPASSWORD = 'x'\n",
    })
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    marks = sorted((d["file"], d["inTest"], d["severity"]) for d in result["issues"])
    assert marks == [("lib/dialects/sqlite/base.py", False, "error"),
                     ("lib/dialects/sqlite/provision.py", True, "info")]


def test_snippet_checked_as_a_test_file(initialized: Workspace, engine: Engine) -> None:
    _write(initialized.root, {"rules/secret.yml": SECRET})
    code = "PASSWORD = 'x'\n"
    as_test = snippet.scan_code(initialized, engine, code, path="tests/test_login.py")
    assert [(d["inTest"], d["severity"]) for d in as_test["issues"]] == [(True, "info")]
    assert as_test["inTests"] == {"hardcoded-secret": 1}
    as_src = snippet.scan_code(initialized, engine, code, path="app/login.py")
    assert [(d["inTest"], d["severity"]) for d in as_src["issues"]] == [(False, "error")]
    assert "inTests" not in as_src


def test_bad_policy_sets_that_rule_aside_and_bad_test_paths_are_refused(initialized: Workspace,
                                                                         engine: Engine) -> None:
    _write(initialized.root, {"rules/r.yml": SKIP_IN_TESTS.replace("skip", "hide"), "rules/no-print.yml": NO_PRINT,
                              "tests/test_a.py": "assert x\nprint(1)\n"})
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    assert [(e["ruleId"], "'hide'" in e["message"]) for e in result["ruleErrors"]] == [("no-assert", True)]
    assert [d["ruleId"] for d in result["issues"]] == ["no-print"]  # the other rules still ran
    as_snippet = snippet.scan_code(initialized, engine, "assert x\nprint(1)\n", path="tests/test_b.py")
    assert [d["ruleId"] for d in as_snippet["issues"]] == ["no-print"]
    cfg = initialized.root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "testPaths: tests\n")
    with pytest.raises(RuleInvalid, match="testPaths"):
        paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))


# (file lines, 0-based finding row, the rule's equivalents, suppressed?): every syntax, and beside each a
# suppression naming another check, which must not apply.
SYNTAXES = [
    (["x = eval(s)  # noqa: S307"], 0, ["S307"], True),
    (["x = eval(s)  # noqa: E501"], 0, ["S307"], False),
    (["x = eval(s)  # noqa: E501, S307"], 0, ["S307"], True),
    (["x = eval(s)  # noqa"], 0, ["S307"], True),
    (["x = eval(s)  # pylint: disable=eval-used"], 0, ["W0123", "eval-used"], True),
    (["x = eval(s)  # pylint: disable=line-too-long"], 0, ["W0123", "eval-used"], False),
    (["# pylint: disable-next=W0123", "x = eval(s)"], 1, ["W0123", "eval-used"], True),
    (["# pylint: disable-next=C0301", "x = eval(s)"], 1, ["W0123", "eval-used"], False),
    (["# shellcheck disable=SC2086", "rm $f"], 1, ["SC2086"], True),
    (["# shellcheck disable=SC2046,SC2086", "# why: it is one word", "rm $f"], 2, ["SC2086"], True),
    (["# shellcheck disable=SC2046", "rm $f"], 1, ["SC2086"], False),
    # a directive above a command covers all its lines (react-native-xcode.sh: a command over several lines)
    (["# shellcheck disable=SC2086", "cp a \\", "  $f \\", "  b"], 2, ["SC2086"], True),
    (["# shellcheck disable=SC2046", "cp a \\", "  $f \\", "  b"], 2, ["SC2086"], False),
    (["# shellcheck disable=SC2086", "ls | grep x &&", "  rm $f"], 2, ["SC2086"], True),
    (["# shellcheck disable=SC2086", "rm a", "rm $f"], 2, ["SC2086"], False),  # the next command only
    # above a function or compound command: its whole body
    (["# shellcheck disable=SC2086", "clean() {", "  if x; then", "    rm $f", "  fi", "}"], 3, ["SC2086"], True),
    (["# shellcheck disable=SC2046", "clean() {", "  if x; then", "    rm $f", "  fi", "}"], 3, ["SC2086"],
     False),
    (["clean() {", "  # shellcheck disable=SC2086", "  if x; then", "    y", "  fi", "  rm $f", "}"], 5,
     ["SC2086"], False),  # the directive covered the if, not the command after it
    # right after the shebang: the whole file
    (["#!/bin/sh", "# shellcheck disable=SC2086", "", "a", "rm $f"], 4, ["SC2086"], True),
    (["#!/bin/sh", "# shellcheck disable=SC2046", "", "a", "rm $f"], 4, ["SC2086"], False),
    (["// eslint-disable-next-line no-eval", "eval(s);"], 1, ["no-eval"], True),
    (["// eslint-disable-next-line no-console", "eval(s);"], 1, ["no-eval"], False),
    (["// eslint-disable-next-line", "eval(s);"], 1, ["no-eval"], True),
    (["eval(s); // eslint-disable-line no-eval -- trusted input"], 0, ["no-eval"], True),
    (["eval(s); // eslint-disable-line eqeqeq"], 0, ["no-eval"], False),
    (["/* eslint-disable no-eval */", "eval(a);", "/* eslint-enable no-eval */", "eval(b);"], 1, ["no-eval"], True),
    (["/* eslint-disable no-eval */", "eval(a);", "/* eslint-enable no-eval */", "eval(b);"], 3, ["no-eval"], False),
    (["/* eslint-disable eqeqeq */", "eval(a);"], 1, ["no-eval"], False),
    (["/* eslint-disable */", "eval(a);"], 1, ["no-eval"], True),
    (["x := exec.Command(s) //nolint:gosec"], 0, ["gosec"], True),
    (["x := exec.Command(s) //nolint:errcheck"], 0, ["gosec"], False),
    (["x := exec.Command(s) //nolint"], 0, ["gosec"], True),
    (["#[allow(clippy::unwrap_used)]", "fn a() {", "    x.unwrap();", "}"], 2, ["clippy::unwrap_used"], True),
    (["#[allow(clippy::expect_used)]", "fn a() {", "    x.unwrap();", "}"], 2, ["clippy::unwrap_used"], False),
    (["#[allow(clippy::unwrap_used)]", "fn a() {", "}", "fn b() {", "    x.unwrap();", "}"], 4,
     ["clippy::unwrap_used"], False),
    (["#![allow(clippy::unwrap_used)]", "fn b() {", "    x.unwrap();", "}"], 2, ["unwrap_used"], True),
    (["eval(s)  # rubocop:disable Security/Eval"], 0, ["Security/Eval"], True),
    (["eval(s)  # rubocop:disable Style/Semicolon"], 0, ["Security/Eval"], False),
    (["# rubocop:disable Security/Eval", "eval(a)", "# rubocop:enable Security/Eval", "eval(b)"], 1,
     ["Security/Eval"], True),
    (["# rubocop:disable Security/Eval", "eval(a)", "# rubocop:enable Security/Eval", "eval(b)"], 3,
     ["Security/Eval"], False),
    (["gets(buf); // NOLINT(cert-msc24-c)"], 0, ["cert-msc24-c"], True),
    (["gets(buf); // NOLINT(bugprone-*)"], 0, ["bugprone-unsafe-functions"], True),
    (["gets(buf); // NOLINT(readability-*)"], 0, ["bugprone-unsafe-functions"], False),
    (["// NOLINTNEXTLINE(cert-msc24-c)", "gets(buf);"], 1, ["cert-msc24-c"], True),
    (["// NOLINTNEXTLINE(misc-foo)", "gets(buf);"], 1, ["cert-msc24-c"], False),
    (["x = eval(s)  # noqa: S307"], 0, [], False),  # a rule without equivalents is never silenced
    # pylint on a line of its own: the rest of its block, or up to `enable`
    (["def f():", "    # pylint: disable=eval-used", "    a = 1", "    eval(s)"], 3, ["eval-used"], True),
    (["def f():", "    # pylint: disable=exec-used", "    a = 1", "    eval(s)"], 3, ["eval-used"], False),
    (["def f():", "    # pylint: disable=eval-used", "    a = 1", "def g():", "    eval(s)"], 4, ["eval-used"], False),
    (["# pylint: disable=eval-used", "x = 1", "# pylint: enable=eval-used", "eval(s)"], 3, ["eval-used"], False),
    (["# pylint: disable=W0123", "def g():", "    eval(s)"], 2, ["W0123"], True),
    # clippy's allow above a function whose signature spans lines (and a where clause)
    (["#[allow(clippy::unwrap_used)]", "fn a(", "    x: u8,", ") -> u8 {", "    x.unwrap()", "}"], 4,
     ["clippy::unwrap_used"], True),
    (["#[allow(clippy::expect_used)]", "fn a(", "    x: u8,", ") -> u8 {", "    x.unwrap()", "}"], 4,
     ["clippy::unwrap_used"], False),
    (["#[allow(clippy::unwrap_used)]", "fn a<T>(x: T) -> u8", "where", "    T: Clone,", "{", "    x.unwrap()", "}"],
     5, ["clippy::unwrap_used"], True),
    (["#[allow(clippy::unwrap_used)]", "fn a(", "    x: u8,", ") {", "}", "fn b() {", "    x.unwrap()", "}"], 6,
     ["clippy::unwrap_used"], False),
    # C#: #pragma warning disable ... restore
    (["#pragma warning disable CA2100 // reviewed", "cmd.CommandText = q;", "#pragma warning restore CA2100"], 1,
     ["CA2100"], True),
    (["#pragma warning disable CA1062", "cmd.CommandText = q;"], 1, ["CA2100"], False),
    (["#pragma warning disable CA2100", "#pragma warning restore CA2100", "cmd.CommandText = q;"], 2, ["CA2100"],
     False),
    (["#pragma warning disable", "cmd.CommandText = q;"], 1, ["CA2100"], True),
    # Java @SuppressWarnings / Kotlin @Suppress on the enclosing declaration
    (["class A {", '    @SuppressWarnings("java:S2245")', "    void f() {", "        new Random();", "    }", "}"], 3,
     ["java:S2245"], True),
    (["class A {", '    @SuppressWarnings({"unchecked", "java:S2245"})', "    void f() {", "        new Random();",
      "    }", "}"], 3, ["java:S2245"], True),
    (["class A {", '    @SuppressWarnings("unchecked")', "    void f() {", "        new Random();", "    }", "}"], 3,
     ["java:S2245"], False),
    (['    @SuppressWarnings("java:S2245")', "    void f() {", "    }", "    void g() {", "        new Random();"], 4,
     ["java:S2245"], False),
    (['@Suppress("DEPRECATION")', "fun f() {", "    old()", "}"], 2, ["DEPRECATION"], True),
    (['@Suppress("UNCHECKED_CAST")', "fun f() {", "    old()", "}"], 2, ["DEPRECATION"], False),
    # phpcs: ignore on the line or the line above, disable ... enable regions, a standard or category names its sniffs
    (["eval($s); // phpcs:ignore Squiz.PHP.Eval -- reviewed"], 0, ["Squiz.PHP.Eval"], True),
    (["// phpcs:ignore Squiz.PHP.Eval", "eval($s);"], 1, ["Squiz.PHP.Eval"], True),
    (["// phpcs:ignore Generic.Files.LineLength", "eval($s);"], 1, ["Squiz.PHP.Eval"], False),
    (["// phpcs:disable Squiz.PHP", "eval($a);", "// phpcs:enable Squiz.PHP", "eval($b);"], 1, ["Squiz.PHP.Eval"],
     True),
    (["// phpcs:disable Squiz.PHP", "eval($a);", "// phpcs:enable Squiz.PHP", "eval($b);"], 3, ["Squiz.PHP.Eval"],
     False),
    (["// phpcs:disable Squiz.PHPX", "eval($a);"], 1, ["Squiz.PHP.Eval"], False),
    # one error code of the equivalent sniff (WordPress's ms-site.php), not a look-alike sniff or a deeper name
    (["// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared", "$wpdb->query($sql);"], 1,
     ["WordPress.DB.PreparedSQL"], True),
    (["// phpcs:ignore WordPress.DB.PreparedSQLPlaceholders.X", "$wpdb->query($sql);"], 1,
     ["WordPress.DB.PreparedSQL"], False),
    (["// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared.X", "$wpdb->query($sql);"], 1,
     ["WordPress.DB.PreparedSQL"], False),
]


@pytest.mark.parametrize(("lines", "row", "checks", "expected"), SYNTAXES)
def test_each_suppression_syntax(lines: list[str], row: int, checks: list[str], expected: bool) -> None:
    assert suppress.is_suppressed(lines, row, row, checks) is expected


EVAL_RULE = """id: no-eval
language: python
severity: error
message: eval
metadata: {equivalents: [S307, W0123, eval-used]}
rule: {pattern: eval($X)}
"""


def test_scan_counts_suppressed_and_the_setting_turns_it_off(initialized: Workspace, engine: Engine) -> None:
    root = initialized.root
    _write(root, {"rules/no-eval.yml": EVAL_RULE, "rules/no-print.yml": NO_PRINT,
                  "app.py": "eval(a)  # noqa: S307\neval(b)  # noqa: E501\nprint(eval(c))  # noqa: S307\n"})
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    kept = sorted((d["ruleId"], d["line"]) for d in result["issues"])
    # no-print has no equivalents: the S307 noqa on line 3 names no check of its
    assert kept == [("no-eval", 2), ("no-print", 3)]
    assert result["suppressed"] == {"no-eval": 2}
    assert result["counts"]["error"] == 1
    snip = snippet.scan_code(initialized, engine, "eval(a)  # pylint: disable=eval-used\n", language="python")
    assert snip["issues"] == [] and snip["suppressed"] == {"no-eval": 1}
    cfg = root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "equivalentSuppressions: false\n")
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    assert len([d for d in result["issues"] if d["ruleId"] == "no-eval"]) == 3 and "suppressed" not in result


def test_bundled_rules_name_their_equivalents(initialized: Workspace, engine: Engine) -> None:
    bundled = bundled_dir() / "rules"
    named = [p.stem for p in bundled.rglob("*.yml") if "equivalents:" in p.read_text()]
    assert len(named) >= 70
    _write(initialized.root, {"rules/no-eval.yml": (bundled / "python" / "no-eval-python.yml").read_text(),
                              "rules/unwrap.yml": (bundled / "rust" / "unwrap-rust.yml").read_text(),
                              "a.py": "eval(a)  # noqa: S307\neval(b)  # noqa: E501\n",
                              "src/lib.rs": "#[allow(clippy::unwrap_used)]\nfn a() {\n    x.unwrap();\n}\n"
                                            "fn b() {\n    y.unwrap();\n}\n"})
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    assert sorted((d["file"], d["line"]) for d in result["issues"]) == [("a.py", 2), ("src/lib.rs", 6)]
    assert result["suppressed"] == {"no-eval-python": 1, "unwrap-rust": 1}


def test_bundled_go_command_injection_is_info_in_tests_only(initialized: Workspace, engine: Engine) -> None:
    bundled = bundled_dir() / "rules" / "go" / "command-injection-exec-go.yml"
    line = '\tcmd := exec.Command("sh", "-c", "tar cf "+tarFileU+" "+srcFileU)\n'  # docker's archive_test.go
    body = "package archive\n\nfunc f(tarFileU, srcFileU string) {\n" + line + "\t_ = cmd\n}\n"
    _write(initialized.root, {"rules/cmd.yml": bundled.read_text(), "pkg/archive/archive_test.go": body,
                              "pkg/archive/archive.go": body})
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    marks = sorted((d["file"], d["inTest"], d["severity"]) for d in result["issues"])
    assert marks == [("pkg/archive/archive.go", False, "error"), ("pkg/archive/archive_test.go", True, "info")]



def test_bundled_unquoted_expansion_is_info_in_test_suites(initialized: Workspace, engine: Engine) -> None:
    bundled = bundled_dir() / "rules" / "bash" / "unquoted-variable-expansion-bash.yml"
    body = "#!/bin/sh\nfor f in \"$@\"; do\n  rm $f\ndone\n"  # the same line in a suite and in a shipped script
    _write(initialized.root, {"rules/unquoted.yml": bundled.read_text(), "gold/testsuite/clean.sh": body,
                              "scripts/clean.sh": body})
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    marks = sorted((d["file"], d["inTest"], d["severity"]) for d in result["issues"])
    assert marks == [("gold/testsuite/clean.sh", True, "info"), ("scripts/clean.sh", False, "warning")]

CONSOLE = """id: no-console
language: javascript
severity: warning
message: console.log
rule: {pattern: console.log($$$A)}
"""
GO_PRINT = """id: no-println
language: go
severity: warning
message: fmt.Println
rule: {kind: call_expression, regex: '^fmt\\.Println'}
"""
# Dense as real bundles are (punctuation 13-26%, spaces under 4%: scan/generated.py's measurements).
MINIFIED = "!function(){" + "a.b=c(d,[1]);" * 200 + "console.log(a)}();\n"


@pytest.mark.parametrize(("path", "text", "why"), [
    ("api/x.pb.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n",
     "Code generated ... DO NOT EDIT"),
    ("gen/Foo.java", "// @generated by a tool\nclass Foo {}\n", "@generated"),
    ("web/app.js", "/*! lib v1.0 | MIT */\nconsole.log(1)\n", "bundle banner /*! */"),
    ("web/app.js", "console.log(1)\n//# sourceMappingURL=app.js.map\n", "compiled output with a source map"),
    ("web/app.js", MINIFIED, "minified"),
    ("docs/_static/jquery.js", "console.log(1)\n", "Sphinx _static asset"),
    ("web/app.js", "console.log(1)\n" + "// a long comment line " * 60 + "\n" + "x();\n" * 40, None),
    ("api/x.go", "// Code generated for you, edit freely\npackage api\n", None),
    ("src/a.py", "# this is not @generatedcode\nprint(1)\n", None),
    # binutils' and openvswitch's configure scripts, openvswitch's autotest suites, libtool's ltmain.sh
    ("configure", "#! /bin/sh\n# Guess values for system-dependent variables and create Makefiles.\n"
                  "# Generated by GNU Autoconf 2.71 for openvswitch 3.1.0.\n", "GNU Autotools output"),
    ("tests/system-kmod-testsuite", "#! /bin/sh\n# Generated from tests/system-kmod-testsuite.at by GNU Autoconf "
                                    "2.69.\n", "GNU Autotools output"),
    ("build-aux/ltmain.sh", "#! /usr/bin/env sh\n## DO NOT EDIT - This file generated from ./build-aux/ltmain.in\n"
                            "##               by inline-source v2019-02-19.15\n", "GNU Autotools output"),
    ("ltmain.sh", "# Generated from ltmain.m4sh.\n\n# libtool (GNU libtool 1.3134 2009-11-29) 2.2.7a\n",
     "GNU Autotools output"),
    ("build-aux/install-sh", "#!/bin/sh\n# install - install a program, script, or datafile\n\n"
                             "scriptversion=2020-11-14.01; # UTC\n", "Automake/gnulib helper script"),
    ("depcomp", "#! /bin/sh\n# depcomp - compile a program generating dependencies as side-effects\n\n"
                "scriptversion=2018-03-07.03; # UTC\n", "Automake/gnulib helper script"),
    ("tools/release.sh", "#!/bin/sh\n# scriptversion=1.2 of our release script\nversion=$1\n", None),
    # hand-written scripts that talk about what generated something (binutils' ld/genscripts.sh)
    ("ld/genscripts.sh", "#!/bin/sh\n# genscripts.sh - generate the ld-emulation-target specific files\n", None),
    ("build.sh", "#!/bin/sh\n# Run after configure (generated by GNU Autoconf) to build.\necho $x\n", None),
])
def test_generated_markers(path: str, text: str, why: str | None) -> None:
    assert generated.why_generated(path, text) == why


def test_generated_files_are_skipped_and_listed(initialized: Workspace, engine: Engine) -> None:
    root = initialized.root
    _write(root, {"rules/no-console.yml": CONSOLE, "rules/no-println.yml": GO_PRINT,
                  "web/app.js": MINIFIED, "web/main.js": "console.log(1)\n",
                  "api/x.pb.go": "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage api\n\n"
                                 "import \"fmt\"\n\nfunc F() { fmt.Println(1) }\n"})
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    assert [d["file"] for d in result["issues"]] == ["web/main.js"]
    assert result["generated"] == {"no-console": 1, "no-println": 1}
    assert result["skippedGenerated"] == [{"file": "api/x.pb.go", "why": "Code generated ... DO NOT EDIT"},
                                          {"file": "web/app.js", "why": "minified"}]
    cfg = root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "skipGenerated: false\n")
    result = paths.scan_path(initialized, engine, paths.PathScan(verify_fixits=False))
    assert len(result["issues"]) == 3 and "skippedGenerated" not in result


def test_scan_summary_counts_each_kind(initialized: Workspace, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's demonstration: a test tree, a minified bundle (not named *.min.js, so the folder excludes
    do not catch it), a generated Go file and a suppressed line, each counted in `sgtools scan --summary`."""
    root = initialized.root
    _write(root, {
        "rules/no-console.yml": CONSOLE.replace("message: console.log", "message: console.log\nmetadata: "
                                                "{equivalents: [no-console]}"),
        "rules/no-println.yml": GO_PRINT, "rules/secret.yml": SECRET, "rules/no-assert.yml": SKIP_IN_TESTS,
        "web/main.js": "console.log(1)\nconsole.log(2) // eslint-disable-line no-console\n",
        "web/vendor-bundle.js": MINIFIED,
        "api/x.pb.go": "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage api\n\n"
                       "import \"fmt\"\n\nfunc F() { fmt.Println(1) }\n",
        "api/y.go": "package api\n\nimport \"fmt\"\n\nfunc G() { fmt.Println(2) }\n",
        "app/settings.py": "PASSWORD = 'x'\n",
        "tests/test_login.py": "PASSWORD = 'x'\nassert ok\n",
    })
    monkeypatch.chdir(root)
    assert main(["scan", "--no-progress", "--summary"]) == 1
    out = capsys.readouterr().out
    table = {ln.split()[0]: [int(n) for n in ln.split()[1:]] for ln in out.splitlines()
             if ln.split() and ln.split()[0] in ("no-console", "no-println", "hardcoded-secret", "no-assert", "total")}
    # findings, suppressed, in tests, skipped in tests, skipped generated
    assert table == {"no-console": [1, 1, 0, 0, 1], "no-println": [1, 0, 0, 0, 1],
                     "hardcoded-secret": [2, 0, 1, 0, 0], "no-assert": [0, 0, 0, 1, 0], "total": [4, 1, 1, 1, 2]}
    assert ("skipped as generated: 2 file(s), 2 finding(s) (1 Code generated ... DO NOT EDIT, 1 minified)\n"
            "  api/x.pb.go (Code generated ... DO NOT EDIT)\n  web/vendor-bundle.js (minified)\n") in out
    assert "Also: 1 suppressed by other linters' comments; 1 in tests (1 more skipped there); 2 in 2 generated" in out
    assert main(["scan", "--no-progress", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["suppressed"] == {"no-console": 1} and data["generated"] == {"no-console": 1, "no-println": 1}
    assert [i["inTest"] for i in data["issues"] if i["ruleId"] == "hardcoded-secret"] == [False, True]


def test_summary_names_a_few_generated_files_and_counts_the_rest() -> None:
    files = [{"file": f"vendor/{i:02}.js", "why": "minified"} for i in range(25)]
    files.append({"file": "api/x.pb.go", "why": "Code generated ... DO NOT EDIT"})
    text = summary.render([], {"skippedGenerated": files, "generated": {"no-eval": 30}})
    lines = text.splitlines()
    assert "skipped as generated: 26 file(s), 30 finding(s) (25 minified, 1 Code generated ... DO NOT EDIT)" in lines
    assert sum(ln.startswith("  vendor/") for ln in lines) == summary.NAMED_GENERATED
    assert lines[-1] == "  ... and 16 more (--json lists every one in skippedGenerated)"


def test_every_line_suppression_form_needs_a_comment_opener() -> None:
    """is_suppressed searches a line (and the one above) only when it holds `#` or `/`: so every same-line and
    line-above form must start with a comment opener. A form added without one would be skipped silently."""
    opener = ("#", "//", "/\\*", "(?://|#|/\\*)")
    for rx in (*suppress._SAME_LINE, *suppress._LINE_ABOVE):
        body = rx.pattern.removeprefix("^").removeprefix("\\s*")
        assert body.startswith(opener), rx.pattern
    # and the forms still match where they did: same line, line above, a block-comment form
    assert suppress.is_suppressed(["x = 1  # noqa: E501"], 0, 0, ["E501"])
    assert suppress.is_suppressed(["// eslint-disable-next-line eqeqeq", "if (a == b) {}"], 1, 1, ["eqeqeq"])
    assert suppress.is_suppressed(["if (a == b) {} /* eslint-disable-line eqeqeq */"], 0, 0, ["eqeqeq"])
    assert not suppress.is_suppressed(["if (a == b) {}", "noqa eqeqeq"], 1, 1, ["eqeqeq"])
