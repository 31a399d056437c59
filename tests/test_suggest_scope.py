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
    saved = add_or_update_rule(ws, engine, "no-unwrap", top["yaml"], valid_examples=top["checked"]["valid"],
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
