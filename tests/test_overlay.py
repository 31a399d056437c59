"""scan_code with `files`: a pending change checked together, on a real temp project with the real ast-grep binary.

The reference is `ast-grep scan` of the same files on disk (scan_path after writing them): the overlay must give
exactly its diagnostics, fix-its and their verification included, while writing nothing in the workspace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from sgtools.core.errors import BadInput, SgToolsError, TooLarge
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.scan.fallback import scan_code, scan_path
from tests.conftest import snapshot_tree

RULES = """\
id: no-print-src
language: python
severity: warning
message: print in library code
files: ["src/**/*.py", "src/**/*.pyx"]
rule: {matches: is-print}
---
id: no-eval
language: python
severity: error
message: eval of $X
ignores: ["tests/**"]
rule: {pattern: eval($X)}
fix: ast.literal_eval($X)
---
id: no-console
language: javascript
severity: warning
message: console.log left in
files: ["web/**"]
rule: {pattern: console.log($$$A)}
fix: logger.debug($$$A)
"""
UTIL = "id: is-print\nlanguage: python\nrule: {pattern: print($$$A)}\n"
# Five files, two languages (and a .pyx file that only languageGlobs makes python): every rule's globs decide.
CHANGE = [
    {"path": "src/app.py", "code": "import ast\nprint('start')\nx = eval(data)\n"},
    {"path": "src/fast.pyx", "code": "print(1)\n"},
    {"path": "tests/test_app.py", "code": "print(2)\ny = eval(data)\n"},
    {"path": "web/main.js", "code": "console.log('x', 1);\nconst a = 1;\n"},
    {"path": "tools/build.js", "code": "console.log('not in web');\n"},
]


@pytest.fixture
def proj(ws: Workspace) -> Workspace:
    project.initialize(ws)
    cfg = ws.root / "sgconfig.yml"
    cfg.write_text(cfg.read_text(encoding="utf-8") + "languageGlobs:\n  python: ['*.pyx']\n", encoding="utf-8")
    (ws.root / "rules" / "rules.yml").write_text(RULES, encoding="utf-8")
    (ws.root / "utils" / "is-print.yml").write_text(UTIL, encoding="utf-8")
    (ws.root / "src").mkdir()
    (ws.root / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")  # the disk's old version: clean
    return ws


def _key(d: dict[str, Any]) -> tuple[Any, ...]:
    return d["file"], d["ruleId"], d["line"], d["column"], d["endLine"], d["endColumn"], d["message"]


def test_overlay_gives_exactly_what_a_scan_of_the_files_on_disk_gives(proj: Workspace, engine: Engine) -> None:
    before = snapshot_tree(proj.root)
    got = scan_code(proj, engine, files=CHANGE)
    assert snapshot_tree(proj.root) == before  # nothing written
    assert {_key(d)[:2] for d in got["issues"]} == {
        ("src/app.py", "no-print-src"), ("src/app.py", "no-eval"), ("src/fast.pyx", "no-print-src"),
        ("web/main.js", "no-console")}  # tests/ is ignored by no-eval, tools/ is not under web/, util resolved
    for f in CHANGE:
        path = proj.root / f["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f["code"], encoding="utf-8")
    on_disk = scan_path(proj, engine, paths=[f["path"] for f in CHANGE])
    assert got["issues"] == on_disk["issues"]  # positions, fix-its and their verification included
    assert got["counts"] == on_disk["counts"] == {"error": 1, "warning": 3, "info": 0, "hint": 0}
    assert all(fx["verified"] for d in got["issues"] for fx in d["fixits"])
    assert any(n.startswith("2 python rule(s) did not run on tests/test_app.py") for n in got["notes"])


def test_the_pending_content_counts_not_the_disk(proj: Workspace, engine: Engine) -> None:
    got = scan_code(proj, engine, files=[{"path": "src/app.py", "code": "x = eval(q)\n"}])
    assert [(d["file"], d["ruleId"], d["text"]) for d in got["issues"]] == [("src/app.py", "no-eval", "eval(q)")]
    (proj.root / "src" / "app.py").write_text("x = eval(q)\n", encoding="utf-8")
    clean = scan_code(proj, engine, files=[{"path": "src/app.py", "code": "x = 1\n"}])
    assert clean["success"] and clean["issues"] == []


def test_results_are_capped_and_counted_and_unknown_files_named(proj: Workspace, engine: Engine) -> None:
    got = scan_code(proj, engine, files=[*CHANGE, {"path": "notes.txt", "code": "eval(x)\n"}], max_results=1)
    assert len(got["issues"]) == 1 and got["truncated"] and sum(got["counts"].values()) == 4
    assert any("not checked" in n and "notes.txt" in n for n in got["notes"])


@pytest.mark.parametrize(("files", "error", "words"), [
    ([{"path": "src/a.py", "code": "x"}, {"path": "./src/a.py", "code": "y"}], BadInput, "are both src/a.py"),
    ([{"path": "src", "code": "x"}, {"path": "src/a.py", "code": "y"}], BadInput, "as the directory of src/a.py"),
    ([{"path": "../outside.py", "code": "x"}], SgToolsError, "outside"),
    ([{"path": "src/a.py", "code": 3}], BadInput, "files[0] (src/a.py): `code` must be a string"),
    ([{"path": "src/a.py"}], BadInput, "exactly `path` (a string) and `code`"),
    (["src/a.py"], BadInput, "files[0] must be an object"),
    ([], BadInput, "non-empty list"),
])
def test_bad_files_are_refused_with_the_next_step(proj: Workspace, engine: Engine, files: Any,
                                                  error: type[SgToolsError], words: str) -> None:
    before = snapshot_tree(proj.root)
    with pytest.raises(error) as info:
        scan_code(proj, engine, files=files)
    assert words in info.value.message
    assert snapshot_tree(proj.root) == before


def test_limits_on_files_and_bytes(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    ws = Workspace(root, Settings(max_overlay_files=2, max_overlay_bytes=10))
    project.initialize(ws)
    engine = Engine(settings=ws.settings)
    three = [{"path": f"f{i}.py", "code": "x"} for i in range(3)]
    with pytest.raises(TooLarge, match=r"3 files, over the limit of 2.*SGTOOLS_MAX_OVERLAY_FILES"):
        scan_code(ws, engine, files=three)
    with pytest.raises(TooLarge, match=r"more than 10 bytes.*SGTOOLS_MAX_OVERLAY_BYTES"):
        scan_code(ws, engine, files=[{"path": "a.py", "code": "x = 1\n"}, {"path": "b.py", "code": "y = 22\n"}])


def test_code_and_files_are_one_or_the_other(proj: Workspace, engine: Engine) -> None:
    with pytest.raises(BadInput, match="not both"):
        scan_code(proj, engine, code="x", files=CHANGE[:1])
    with pytest.raises(BadInput, match="needs `code`"):
        scan_code(proj, engine)


def test_work_directories_are_reused_and_left_without_files(proj: Workspace, engine: Engine) -> None:
    from sgtools.engine import tempdirs

    first = scan_code(proj, engine, files=[{"path": "odd.py/a.py", "code": "eval(x)\n"}])
    again = scan_code(proj, engine, files=[{"path": "odd.py", "code": "eval(y)\n"}])  # a file where a dir was
    assert [d["file"] for d in first["issues"]] == ["odd.py/a.py"]
    assert [d["file"] for d in again["issues"]] == ["odd.py"]
    for work in tempdirs._free.get("tree", []) + tempdirs._free.get("texts", []):
        assert work.is_dir() and not [f for _t, _d, files in os.walk(work) for f in files]


def test_with_the_warm_engine_the_fixits_are_verified_warm_and_the_answer_is_the_same(proj: Workspace,
                                                                                    engine: Engine) -> None:
    warm_engine = Engine(settings=engine.settings.replace(warm_engine=1, warm_engine_timeout=60.0))
    warm_engine.enable_warm()
    assert warm_engine.warm is not None
    try:
        warm = scan_code(proj, warm_engine, files=CHANGE)
        assert warm_engine.warm.stats.starts >= 1  # the verification re-scans went to a warm process
    finally:
        warm_engine.warm.close()
    assert warm["issues"] == scan_code(proj, engine, files=CHANGE)["issues"]
