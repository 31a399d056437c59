"""suggest_rule's path scopes (issue 29, part 1): the request's words "in library code" / "only in tests" give every
candidate `ignores` / `files` of the usual test paths; the workspace proof counts only the files in scope, and the
saved rule, scanned by real ast-grep over a real project, flags only those files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sgtools.core import yamlio
from sgtools.engine.process import Engine
from sgtools.project.config import initialize
from sgtools.project.workspace import Workspace
from sgtools.rules.store import add_or_update_rule
from sgtools.workflows.suggest import scope
from sgtools.workflows.suggest.service import suggest_rule

INVALID = ["let x = a.unwrap();", "b.unwrap()"]
VALID = ['let x = a.expect("m");', "a.unwrap_or(0)"]
FILES = {"src/lib.rs": "fn f() { let c = read().unwrap(); }\n", "src/io/mod.rs": "fn g() { h().unwrap(); }\n",
         "tests/it.rs": "fn t() { let c = read().unwrap(); }\n", "src/x_test.rs": "fn u() { v().unwrap(); }\n"}


@pytest.fixture
def ws(ws: Workspace) -> Workspace:
    """conftest's empty project, holding FILES."""
    for rel, text in FILES.items():
        (ws.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws.root / rel).write_text(text, encoding="utf-8")
    return ws


@pytest.mark.parametrize(("request_text", "key"), [
    ("no unwrap in library code", "ignores"), ("no print() except in tests", "ignores"),
    ("avoid sleep outside of tests", "ignores"), ("in production code, no debug output", "ignores"),
    ("only in tests: no real network calls", "files"), ("mocks must be reset in tests", "files"),
    ("in request specs, no sleep", "files"), ("no real clock in controller tests", "files"),
    ("no Thread.sleep in @Test methods", None), ("no eval", None), ("no TODO in test methods", None), (None, None),
])
def test_the_request_words_that_ask_for_a_scope(request_text: str | None, key: str | None) -> None:
    found = scope.from_request(request_text)
    assert (None if found is None else next(iter(found[0]))) == key, found


def _scan(root: Path) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--root", str(root), "--json"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode in (0, 1), out.stderr
    data = json.loads(out.stdout)
    return sorted({str(f["file"]) for f in data["issues"]})


def _saved_and_scanned(ws: Workspace, engine: Engine, top: Any) -> list[str]:
    """The files `sgtools scan` flags once the candidate `top` is saved as the project's rule."""
    initialize(ws)
    saved = add_or_update_rule(ws, engine, top["rule_id"], top["yaml"], valid_examples=top["checked"]["valid"],
                               invalid_examples=top["checked"]["invalid"])
    assert saved["success"], saved
    return _scan(ws.root)


def test_library_code_only_leaves_out_the_tests(ws: Workspace, engine: Engine) -> None:
    result = suggest_rule(ws, engine, "rust", INVALID, VALID, request="no unwrap in library code")
    top = result["candidates"][0]
    doc = yamlio.load_one(top["yaml"])
    assert "**/tests/**" in doc["ignores"] and "files" not in doc, top["yaml"]
    assert "leaves out test code" in top["scope"] and "library code" in top["scope"]
    # The proof counts only the files in scope: the two library files, not tests/it.rs or src/x_test.rs.
    assert result["proof"]["files"] == 2 and top["proof"]["flags"] == 2, (result["proof"], top.get("proof"))
    assert all(p.startswith("src/") and "_test" not in p for p in top["proof"]["places"])
    assert _saved_and_scanned(ws, engine, top) == ["src/io/mod.rs", "src/lib.rs"]


def test_only_in_tests_flags_the_tests_alone(ws: Workspace, engine: Engine) -> None:
    result = suggest_rule(ws, engine, "rust", INVALID, VALID, request="no unwrap only in tests, please")
    top = result["candidates"][0]
    assert "**/*_test.*" in yamlio.load_one(top["yaml"])["files"], top["yaml"]
    assert result["proof"]["files"] == 2 and top["proof"]["flags"] == 2, (result["proof"], top.get("proof"))
    assert _saved_and_scanned(ws, engine, top) == ["src/x_test.rs", "tests/it.rs"]


def test_no_scope_without_words_for_one(ws: Workspace, engine: Engine) -> None:
    result = suggest_rule(ws, engine, "rust", INVALID, VALID, request="no unwrap")
    top = result["candidates"][0]
    assert "ignores" not in top["yaml"] and "files:" not in top["yaml"], top["yaml"]
    assert result["proof"]["files"] == 4


def test_the_cli_passes_the_request(ws: Workspace) -> None:
    out = subprocess.run([sys.executable, "-m", "sgtools", "rule", "suggest", "--root", str(ws.root), "-l", "rust",
                          "--invalid", INVALID[0], "--invalid", INVALID[1], "--valid", VALID[0], "--valid", VALID[1],
                          "--request", "no unwrap in library code"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert "ignores:" in out.stdout and "'**/tests/**'" in out.stdout, out.stdout


@pytest.mark.parametrize(("request_text", "key"), [
    ("no sleep in specs", "files"), ("no print in spec files", "files"), ("no print in production", "ignores"),
    ("no x outside of spec files", "ignores"), ("except in the test suite, no network", "ignores"),
    ("apart from tests, no x", "ignores"), ("in release code, no asserts", "ignores"),
    ("library functions return a typed error", "ignores"), ("no panics in library crates", "ignores"),
])
def test_more_words_for_tests_and_library_code(request_text: str, key: str) -> None:
    found = scope.from_request(request_text)
    assert found is not None and next(iter(found[0])) == key, found


@pytest.mark.parametrize("rel", ["src/App.Tests/Fixtures.cs", "Tests/AppTests/Helpers.swift",
                                 "app/src/androidTest/java/Screens.kt", "net/url_unittest.cc"])
def test_test_folders_and_names_of_more_languages(rel: str) -> None:
    assert not scope.keeps({"ignores": list(scope.TEST_GLOBS)}, rel)
    assert scope.keeps({"files": list(scope.TEST_GLOBS)}, rel)


def test_a_dotnet_test_project_is_left_out_by_real_ast_grep(tmp_path: Path, engine: Engine) -> None:
    for rel in ("src/App/Worker.cs", "src/App.Tests/Fixtures.cs"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("class W {\n  void Run() {\n    Thread.Sleep(100);\n  }\n}\n", encoding="utf-8")
    ws = Workspace(tmp_path)
    result = suggest_rule(ws, engine, "csharp", ["class A {\n  void F() {\n    Thread.Sleep(5);\n  }\n}",
                                                 "class B {\n  void G() {\n    Thread.Sleep(delay);\n  }\n}"],
                          ["class A {\n  async Task F() {\n    await Task.Delay(5);\n  }\n}",
                           "class B {\n  void G() {\n    Sleep(delay);\n  }\n}"],
                          request="no Thread.Sleep in production")
    top = result["candidates"][0]
    assert "**/*.Tests/**" in yamlio.load_one(top["yaml"])["ignores"], top["yaml"]
    assert top["proof"]["flags"] == 1, top["proof"]
    assert _saved_and_scanned(ws, engine, top) == ["src/App/Worker.cs"]


RUST_LIB = ("fn f() {\n    a().unwrap();\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {\n"
            "        b().unwrap();\n    }\n}\n")
RUST_UTIL = "#[test]\n#[ignore]\nfn slow() {\n    c().unwrap();\n}\n\nfn g() {\n    d().unwrap();\n}\n"


def test_library_code_in_rust_leaves_out_the_tests_inside_library_files(tmp_path: Path, engine: Engine) -> None:
    # Rust writes unit tests inside the library's own files: no path leaves them out, `not: inside` does.
    for rel, text in {"src/lib.rs": RUST_LIB, "src/util.rs": RUST_UTIL}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    ws = Workspace(tmp_path)
    result = suggest_rule(ws, engine, "rust", INVALID, VALID, request="no unwrap in library code")
    top = result["candidates"][0]
    assert "cfg\\(test\\)" in top["yaml"] and "test modules and functions inside other files" in top["scope"]
    assert top["proof"]["flags"] == 2, top["proof"]
    assert sorted(p.split(":")[0] for p in top["proof"]["places"]) == ["src/lib.rs", "src/util.rs"]
    places = top["proof"]["places"]
    assert any("a().unwrap()" in p for p in places) and any("d().unwrap()" in p for p in places), places
