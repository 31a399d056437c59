"""A fresh clone has nothing beside it: every test that reads the shared corpus must say so and skip there."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUTSIDE = {"CORPUS", "SHARED", "UPSTREAM_SCHEMA"}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _guarded_module(tree: ast.Module) -> bool:
    return any(isinstance(s, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in s.targets)
               and "needs_corpus" in _names(s.value) for s in tree.body)


def _guarded(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any({"needs_corpus", "skipif"} & _names(d) or "skipif" in ast.unparse(d) for d in fn.decorator_list)


def test_every_test_reading_shared_data_skips_without_it() -> None:
    unguarded = []
    for path in sorted([*(REPO / "tests").glob("test_*.py"), *(REPO / "e2e").glob("test_*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _guarded_module(tree):
            continue
        for fn in tree.body:
            if (isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and fn.name.startswith("test_")
                    and OUTSIDE & _names(fn) and not _guarded(fn)):
                unguarded.append(f"{path.relative_to(REPO)}::{fn.name}")
    assert unguarded == [], f"these read ../shared without a skip when it is absent: {unguarded}"
