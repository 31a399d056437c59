"""scan_code (scan/snippet.py) and scan_path (scan/paths.py) against the real ast-grep binary, in real temp
projects."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sgtools.core.errors import BadInput, ConfigMissing, NotFound, OutsideWorkspace, TooLarge
from sgtools.core.globs import compile_glob, glob_match
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.present.results import render_scan
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.rules.ruleset import rule_applies
from sgtools.scan import paths, rulefiles, snippet
from tests.conftest import snapshot_tree

NO_EVAL = """id: no-eval
language: python
severity: error
message: eval of $X is dangerous
note: use ast.literal_eval
url: https://example.com/rules/no-eval
rule: {pattern: eval($X)}
fix: ast.literal_eval($X)
"""
NO_PRINT = """id: no-print
language: python
severity: warning
message: print call
rule: {pattern: print($$$A)}
"""
SRC_ONLY = """id: src-only
language: python
severity: info
message: todo call in src
files: ["src/**"]
ignores: ["src/vendor/**"]
rule: {pattern: todo()}
"""
JS_RULE = """id: no-console
language: JavaScript
severity: warning
message: console.log
rule: {pattern: console.log($$$A)}
fix: ''
"""
UTIL_RULE = """id: uses-util
language: python
severity: hint
message: is-print via a global util
rule: {matches: is-exit}
"""
UTIL = """id: is-exit
language: python
rule: {pattern: exit($$$)}
"""


@pytest.fixture(params=["spawn", "warm"])
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """Every test here runs on both paths: spawned ast-grep, and the warm engine of the MCP server."""
    # A 60 s hang guard for the warm deadline: the 5 s default covers starting `ast-grep lsp`, which a loaded machine
    # can outlast (the call then goes to the spawn path, and the tests that check it was served warm fail on load).
    e = Engine(settings=Settings.from_env().replace(warm_engine=int(request.param == "warm"), warm_engine_timeout=60.0))
    e.enable_warm()
    yield e
    if e.warm is not None:
        e.warm.close()


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.fixture
def proj(initialized: Workspace) -> Workspace:
    root = initialized.root
    write(root, "rules/no-eval.yml", NO_EVAL)
    write(root, "rules/no-print.yml", NO_PRINT)
    write(root, "rules/src-only.yml", SRC_ONLY)
    write(root, "rules/js/no-console.yml", JS_RULE)
    write(root, "rules/uses-util.yml", UTIL_RULE)
    write(root, "utils/is-exit.yml", UTIL)
    return initialized


def ids(result: dict[str, Any]) -> list[str]:
    return [d["ruleId"] for d in result["issues"]]


# ---- scan_code ------------------------------------------------------------------------------------------------


def test_scan_code_reports_structured_diagnostics(proj: Workspace, engine: Engine) -> None:
    code = "x = eval(data)\nprint(x)\nexit(1)\n"
    res = snippet.scan_code(proj, engine, code, language="python")
    assert res["success"] is False
    assert ids(res) == ["no-eval", "no-print", "uses-util"]  # sorted by position
    assert res["counts"] == {"error": 1, "warning": 1, "info": 0, "hint": 1}
    assert res["truncated"] is False and res["ruleErrors"] == []
    d = res["issues"][0]
    assert d["message"] == "eval of data is dangerous"  # interpolated by ast-grep
    assert d["note"] == "use ast.literal_eval"
    assert d["url"] == "https://example.com/rules/no-eval"  # ast-grep never prints it
    assert (d["line"], d["column"], d["endLine"], d["endColumn"]) == (1, 5, 1, 15)
    assert (d["byteStart"], d["byteEnd"], d["text"]) == (4, 14, "eval(data)")
    assert d["file"] is None
    assert d["labels"] == []  # the default primary label only repeats the match
    assert [f["kind"] for f in d["fixits"]] == ["fix"]  # the suppression comment is apart, never a fix-it
    assert d["suppress"] == {"line": 1, "comment": "# ast-grep-ignore: no-eval"}


def test_scan_code_clean_snippet_and_min_severity(proj: Workspace, engine: Engine) -> None:
    assert snippet.scan_code(proj, engine, "x = 1\n", language="py")["success"] is True
    res = snippet.scan_code(proj, engine, "print(eval(a))\n", language="python", min_severity="error")
    assert ids(res) == ["no-eval"]
    assert res["counts"]["warning"] == 0
    with pytest.raises(BadInput):
        snippet.scan_code(proj, engine, "x", language="python", min_severity="fatal")


def test_scan_code_language_aliases_and_inference(proj: Workspace, engine: Engine) -> None:
    js = "console.log(1)\n"
    for lang in ("js", "JavaScript", "jsx", "javascript"):
        assert ids(snippet.scan_code(proj, engine, js, language=lang)) == ["no-console"]
    assert ids(snippet.scan_code(proj, engine, js, path="web/app.mjs")) == ["no-console"]
    assert ids(snippet.scan_code(proj, engine, "eval(x)\n", path="tool.py")) == ["no-eval"]
    with pytest.raises(BadInput, match="language"):
        snippet.scan_code(proj, engine, js)
    with pytest.raises(BadInput, match="Unknown language"):
        snippet.scan_code(proj, engine, js, language="cobol")
    with pytest.raises(BadInput, match="language"):
        snippet.scan_code(proj, engine, js, path="notes.unknownext")


def test_scan_code_language_globs(proj: Workspace, engine: Engine) -> None:
    cfg = proj.root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "languageGlobs:\n  python: ['*.pyw', 'SConstruct']\n")
    assert ids(snippet.scan_code(proj, engine, "eval(x)\n", path="gui/app.pyw")) == ["no-eval"]
    assert ids(snippet.scan_code(proj, engine, "eval(x)\n", path="build/SConstruct")) == ["no-eval"]


def test_scan_code_files_and_ignores_follow_the_virtual_path(proj: Workspace, engine: Engine) -> None:
    code = "todo()\n"
    assert ids(snippet.scan_code(proj, engine, code, path="src/a.py")) == ["src-only"]
    assert ids(snippet.scan_code(proj, engine, code, path="src/deep/er/a.py")) == ["src-only"]
    assert ids(snippet.scan_code(proj, engine, code, path="src/vendor/a.py")) == []  # ignores
    assert ids(snippet.scan_code(proj, engine, code, path="tests/a.py")) == []  # not in files
    # No path: a files-scoped rule is not known to apply to an anonymous snippet, and the result says so.
    res = snippet.scan_code(proj, engine, code, language="python")
    assert ids(res) == []
    assert "src-only" in res["notes"][0] and "path" in res["notes"][0]
    assert "notes" not in snippet.scan_code(proj, engine, code, path="src/a.py")


def test_scan_code_global_utils_resolve(proj: Workspace, engine: Engine) -> None:
    res = snippet.scan_code(proj, engine, "exit(2)\n", language="python")
    assert ids(res) == ["uses-util"]


def test_scan_code_honours_ignore_comments(proj: Workspace, engine: Engine) -> None:
    code = "# ast-grep-ignore: no-print\nprint(1)\nprint(2)  # ast-grep-ignore\nprint(3)\n"
    res = snippet.scan_code(proj, engine, code, language="python")
    assert [(d["ruleId"], d["line"]) for d in res["issues"]] == [("no-print", 4)]


def test_scan_code_writes_nothing_in_the_workspace(proj: Workspace, engine: Engine) -> None:
    before = snapshot_tree(proj.root)
    snippet.scan_code(proj, engine, "eval(x)\nprint(1)\n", path="src/new_file.py")
    assert snapshot_tree(proj.root) == before
    assert not (proj.root / "src" / "new_file.py").exists()


def test_scan_code_input_limits(proj: Workspace, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BadInput, match="NUL"):
        snippet.scan_code(proj, engine, "a\x00b", language="python")
    with pytest.raises(BadInput):
        snippet.scan_code(proj, engine, b"eval(x)", language="python")  # type: ignore[arg-type]
    with pytest.raises(BadInput):
        snippet.scan_code(proj, engine, "x = '\udcff'", language="python")
    monkeypatch.setattr(proj, "settings", Settings(max_code_bytes=10))
    with pytest.raises(TooLarge):
        snippet.scan_code(proj, engine, "x = 1234567890\n", language="python")


def test_scan_code_needs_a_project(ws: Workspace, engine: Engine) -> None:
    with pytest.raises(ConfigMissing, match="initialize_ast_grep"):
        snippet.scan_code(ws, engine, "eval(x)", language="python")


def test_scan_code_path_must_stay_inside(proj: Workspace, engine: Engine) -> None:
    with pytest.raises(OutsideWorkspace):
        snippet.scan_code(proj, engine, "eval(x)", path="../elsewhere.py")


def test_scan_code_max_results_truncates_but_counts_all(proj: Workspace, engine: Engine) -> None:
    code = "".join(f"print({i})\n" for i in range(7))
    res = snippet.scan_code(proj, engine, code, language="python", max_results=3)
    assert len(res["issues"]) == 3 and res["truncated"] is True
    assert res["counts"]["warning"] == 7
    assert [d["line"] for d in res["issues"]] == [1, 2, 3]
    with pytest.raises(BadInput):
        snippet.scan_code(proj, engine, code, language="python", max_results=0)


def test_broken_rule_file_is_reported_and_others_still_run(proj: Workspace, engine: Engine) -> None:
    write(proj.root, "rules/broken.yml", "id: broken\nlanguage: python\nrule: {pattern: 'a +'}\n")
    write(proj.root, "rules/broken-yaml.yml", "id: [unclosed\n")
    res = snippet.scan_code(proj, engine, "eval(x)\n", language="python")
    assert ids(res) == ["no-eval"]
    broken = sorted(e["path"] for e in res["ruleErrors"])
    assert broken == ["rules/broken-yaml.yml", "rules/broken.yml"]
    # The path scan then runs the good rules from a temp rule file: `files`/`ignores` must still hold.
    write(proj.root, "src/a.py", "todo()\n")
    write(proj.root, "src/vendor/b.py", "todo()\n")
    write(proj.root, "tests/c.py", "todo()\neval(x)\n")
    path_res = paths.scan_path(proj, engine)
    assert sorted(e["path"] for e in path_res["ruleErrors"]) == broken
    assert [(d["file"], d["ruleId"]) for d in path_res["issues"]] == [("src/a.py", "src-only"),
                                                                       ("tests/c.py", "no-eval")]


def test_rule_cache_sees_edits(proj: Workspace, engine: Engine) -> None:
    assert ids(snippet.scan_code(proj, engine, "eval(x)\n", language="python")) == ["no-eval"]
    write(proj.root, "rules/no-eval.yml", NO_EVAL.replace("severity: error", "severity: off"))
    assert ids(snippet.scan_code(proj, engine, "eval(x)\n", language="python")) == []
    write(proj.root, "rules/no-eval.yml", NO_EVAL)
    assert ids(snippet.scan_code(proj, engine, "eval(x)\n", language="python")) == ["no-eval"]


# ---- scan_path ------------------------------------------------------------------------------------------------


def test_scan_path_whole_workspace_honours_gitignore_and_globs(proj: Workspace, engine: Engine) -> None:
    root = proj.root
    write(root, "src/a.py", "todo()\neval(x)\n")
    write(root, "src/vendor/v.py", "todo()\n")
    write(root, "tests/t.py", "todo()\n")
    write(root, "build/gen.py", "eval(y)\n")
    write(root, ".gitignore", "build/\n")
    (root / ".git").mkdir()  # ast-grep reads .gitignore inside a git work tree
    res = paths.scan_path(proj, engine)
    got = [(d["file"], d["ruleId"]) for d in res["issues"]]
    assert got == [("src/a.py", "src-only"), ("src/a.py", "no-eval")]
    assert res["nextOffset"] is None and res["truncated"] is False


def test_scan_path_paths_rule_ids_and_pagination(proj: Workspace, engine: Engine) -> None:
    root = proj.root
    write(root, "a.py", "".join(f"print({i})\n" for i in range(5)) + "eval(z)\n")
    write(root, "b/c.py", "print('c')\n")
    res = paths.scan_path(proj, engine, paths=["b"])
    assert [d["file"] for d in res["issues"]] == ["b/c.py"]
    res = paths.scan_path(proj, engine, paths=["b", "b/c.py", "./b", str(root / "b" / "c.py")])
    assert [d["file"] for d in res["issues"]] == ["b/c.py"]  # overlapping paths: reported once
    res = paths.scan_path(proj, engine, rule_ids=["no-eval"])
    assert ids(res) == ["no-eval"]
    pages: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        page = paths.scan_path(proj, engine, max_results=2, offset=offset)
        pages.extend(page["issues"])
        assert page["counts"]["warning"] == 6
        offset = page["nextOffset"]
    full = paths.scan_path(proj, engine)["issues"]
    assert pages == full and len(full) == 7
    with pytest.raises(NotFound):
        paths.scan_path(proj, engine, rule_ids=["nope"])
    with pytest.raises(NotFound):
        paths.scan_path(proj, engine, paths=["missing.py"])
    with pytest.raises(OutsideWorkspace):
        paths.scan_path(proj, engine, paths=["/etc"])


def test_scan_path_with_another_config(proj: Workspace, engine: Engine, tmp_path: Path) -> None:
    other = tmp_path / "other"
    write(other, "sgconfig.yml", "ruleDirs: [rules]\n")
    write(other, "rules/no-exec.yml", "id: no-exec\nlanguage: python\nseverity: error\nrule: {pattern: exec($A)}\n")
    write(proj.root, "a.py", "exec(s)\neval(s)\n")
    cfg = project.load_config(Workspace(other))
    res = paths.scan_path(proj, engine, paths.PathScan(config=cfg))
    assert [(d["file"], d["ruleId"]) for d in res["issues"]] == [("a.py", "no-exec")]


# ---- the snippet and the file give the same answer ------------------------------------------------------------

TRICKY = (
    's = "héllo😀 日本語"; r = eval(s)\r\n'
    "if r:\r\n"
    "    print('ñandú', r)  # 🎉\r\n"
    "todo()\r\n"
    "x = ['日本', eval('1')]\r\n"
)


@pytest.mark.parametrize("rel", ["src/pkg/mod.py", "tests/mod.py", "src/vendor/mod.py"])
def test_snippet_and_file_scans_agree(proj: Workspace, engine: Engine, rel: str) -> None:
    from_snippet = snippet.scan_code(proj, engine, TRICKY, path=rel)
    write(proj.root, rel, TRICKY)
    on_disk = paths.scan_path(proj, engine, paths=[rel])
    assert json.dumps(from_snippet["issues"], sort_keys=True) == json.dumps(on_disk["issues"], sort_keys=True)
    assert from_snippet["counts"] == on_disk["counts"]
    assert ("src-only" in ids(from_snippet)) == (rel == "src/pkg/mod.py")
    assert all(d["file"] == rel for d in from_snippet["issues"])
    if engine.warm is not None:
        assert engine.warm.stats.last == "warm", engine.warm.stats


# ---- glob semantics match ast-grep ----------------------------------------------------------------------------

GLOBS = ["*.py", "src/*.py", "src/**", "**/sub/*.py", "src/*/*.py", "*/a.py", "**/a.py", "src", "sub/*.py",
         "{src,other}/*.py", "src/[as]*.py", "src/[!a]*.py", "./src/*.py", "src/**/a.py", "**", "?rc/a.py",
         "src/sub/a.py", "**/*.{py,pyi}", "o*/**", "{src,{oth,x}er}/*.py", "src/\\[a*"]
FILES = ["a.py", "src/a.py", "src/b.py", "src/sub/a.py", "other/a.py", "other/deep/x/a.py"]


def test_rule_globs_match_like_ast_grep(initialized: Workspace, engine: Engine) -> None:
    root = initialized.root
    for i, glob in enumerate(GLOBS):
        write(root, f"rules/g{i}.yml", f"id: g{i}\nlanguage: python\nseverity: info\nfiles: [{json.dumps(glob)}]\n"
                                       "rule: {pattern: hit()}\n")
    for f in FILES:
        write(root, f, "hit()\n")
    actual = {(d["ruleId"], d["file"]) for d in paths.scan_path(initialized, engine, max_results=1000)["issues"]}
    rules = {r.id: r for r in rulefiles.cached_ruleset(initialized, project.load_config(initialized), engine).rules}
    predicted = {(f"g{i}", f) for i in range(len(GLOBS)) for f in FILES if rule_applies(rules[f"g{i}"], f)}
    assert predicted == actual
    assert ("g0", "src/sub/a.py") in actual  # `*` crosses `/` in globset's default mode
    assert not any(r == "g12" for r, _ in actual)  # `./src/*.py` never matches


def test_glob_regex_rejects_what_globset_rejects() -> None:
    assert compile_glob("src/[a") is None
    assert compile_glob("{a,b") is None
    assert glob_match("a\\*b", "a*b") and not glob_match("a\\*b", "axb")


def test_a_missing_util_folder_is_named_once_and_the_other_rules_run(proj: Workspace, engine: Engine) -> None:
    # A clone without utils/ (here with its util gone too): ast-grep gets a config without the folder, so only
    # the rule that needs the util fails; the note names the folder and the command that recreates it.
    shutil.rmtree(proj.root / "utils")
    res = snippet.scan_code(proj, engine, "eval(x)\n", language="python")
    assert ids(res) == ["no-eval"] and [e["ruleId"] for e in res["ruleErrors"]] == ["uses-util"]
    assert [n for n in res["notes"] if "`utils` (utilDirs)" in n and "initialize_ast_grep" in n]
    assert render_scan(res).splitlines()[0] == ("1 of 3 rules did not run: its rule file could not be loaded "
                                                "(see below).")
    write(proj.root, "a.py", "eval(x)\n")
    on_disk = paths.scan_path(proj, engine)
    assert on_disk["rulesRun"] == 4 and sum("`utils` (utilDirs)" in n for n in on_disk["notes"]) == 1


def test_nothing_checked_is_never_a_success(proj: Workspace, engine: Engine) -> None:
    for rule in (proj.root / "rules").rglob("*.yml"):
        rule.write_text("id: broken\nlanguage: python\nrule: {pattern: eval($X}\n")
    write(proj.root, "a.py", "eval(x)\n")
    for res in (snippet.scan_code(proj, engine, "eval(x)\n", language="python"), paths.scan_path(proj, engine)):
        assert res["success"] is False and res["rulesRun"] == 0 and "could be loaded" in res["noRuleRan"]
        first = render_scan(res).splitlines()[0]
        assert first.startswith("No rule ran, so nothing was checked: none of the project's 5 rule files")
        assert "No issues found" not in render_scan(res) and "the other rules ran" not in render_scan(res)


def test_no_rule_for_the_language_is_not_a_success(proj: Workspace, engine: Engine) -> None:
    res = snippet.scan_code(proj, engine, "fn main() {}\n", language="rust")
    assert res["success"] is False and res["rulesRun"] == 0
    assert res["noRuleRan"].startswith("none of the project's 5 rules is for rust")
    scoped = snippet.scan_code(proj, engine, "print(1)\n", path="docs/x.py")  # src-only's globs leave it out
    assert scoped["success"] is False or scoped["rulesRun"] > 0  # other python rules still ran


def test_snippet_and_file_agree_under_language_globs(proj: Workspace, engine: Engine) -> None:
    cfg = proj.root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "languageGlobs:\n  python: ['*.pyw']\n")
    text = "x = eval('ü')\r\nprint(x)\r\n"
    from_snippet = snippet.scan_code(proj, engine, text, path="gui/app.pyw")
    write(proj.root, "gui/app.pyw", text)
    on_disk = paths.scan_path(proj, engine, paths=["gui"])
    assert ids(from_snippet) == ["no-eval", "no-print"]
    assert json.dumps(from_snippet["issues"], sort_keys=True) == json.dumps(on_disk["issues"], sort_keys=True)


def test_invalid_glob_is_a_rule_error_not_a_failed_scan(proj: Workspace, engine: Engine) -> None:
    # ast-grep accepts this rule on stdin (globs unused) but refuses the whole project over it (exit 9).
    write(proj.root, "rules/bad-glob.yml", "id: bad-glob\nlanguage: python\nfiles: ['src/[a']\n"
                                            "rule: {pattern: eval($X)}\n")
    write(proj.root, "src/a.py", "eval(x)\n")
    res = paths.scan_path(proj, engine)
    assert ids(res) == ["no-eval"]
    [err] = res["ruleErrors"]
    assert (err["path"], err["ruleId"]) == ("rules/bad-glob.yml", "bad-glob") and "src/[a" in err["message"]
    assert snippet.scan_code(proj, engine, "eval(x)\n", path="src/a.py")["ruleErrors"] == [err]
    for glob in ("a{b", "a}b", "[z-a]", "x\\"):
        assert compile_glob(glob) is None, glob


def test_file_changed_after_the_scan_is_left_out_and_said(proj: Workspace, engine: Engine,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # The race is made real: the file is rewritten right after ast-grep has read it. What ast-grep read is no
    # longer what the file inside the root holds: it could have been read through a folder swapped for a symlink
    # (project/confine.py), so its matches are not returned (their text might be another file's), and a note
    # says to run the scan again.
    target = write(proj.root, "a.py", "x = eval(s)\n")
    real_scan = Engine.scan

    def scan_then_edit(self: Engine, **kw: Any) -> list[dict[str, Any]]:
        out = real_scan(self, **kw)
        target.write_text("# a new first line\nx = eval(s)\n")
        return out

    monkeypatch.setattr(Engine, "scan", scan_then_edit)
    res = paths.scan_path(proj, engine, paths=["a.py"])
    assert res["issues"] == []
    assert any("a.py" in n and "Run the call again" in n for n in res.get("notes", [])), res.get("notes")


def test_a_cached_clean_snippet_scan_is_one_engine_call(initialized: Workspace, engine: Engine,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The hot path for agents: with 60 rules cached, a clean snippet scan is exactly one engine call (no rule
    re-check, no re-parse). Counted, not timed: our overhead next to that call is measured by bin/bench (B1), where a
    loaded machine cannot fail a test."""
    for i in range(60):
        write(initialized.root, f"rules/r{i}.yml",
              f"id: r{i}\nlanguage: python\nseverity: warning\nrule: {{pattern: func{i}($$$A)}}\n")
    calls: list[list[str]] = []
    real_run = Engine.run

    def counted_run(self: Engine, args: list[str], **kw: Any) -> Any:
        calls.append(list(args))
        return real_run(self, args, **kw)

    code = "import os\nx = os.getcwd()\n" * 20
    snippet.scan_code(initialized, engine, code, language="python")  # fill the caches
    monkeypatch.setattr(Engine, "run", counted_run)
    for _ in range(3):
        calls.clear()
        res = snippet.scan_code(initialized, engine, code, language="python")
        if engine.warm is not None:  # the warm engine answers without starting any process
            assert res["success"] and calls == [] and engine.warm.stats.last == "warm", calls
            continue
        assert res["success"] and len(calls) == 1, calls  # one engine call per clean snippet
        assert calls[0][0] == "scan"
