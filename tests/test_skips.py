"""Skips are never silent (issue 33.5): what the generated/minified heuristics leave out is named, hand-written
code with one long line is not "minified", a skipped snippet is not "No issues found.", and a file ast-grep
cannot read is an `[io]` entry, not a checked file."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from sgtools.engine.process import Engine
from sgtools.present.results import render_scan
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.scan.generated import minified, why_generated
from sgtools.scan.snippet import scan_code
from tests.faults import report

# Real bundles from npm packages and Debian's JavaScript packages, where this machine (or CI's) has them.
BUNDLES = sorted({p for pattern in ("/usr/lib/node_modules/npm/node_modules/*/dist/**/*.min.js",
                                    "/usr/share/javascript/*/*.min.js")
                  for p in glob.glob(pattern, recursive=True)})
# Real hand-written or hand-kept sources with lines of 1,000+ characters (data and prose, not minified code).
LONG_LINE_SOURCES = [Path(m.__file__) for m in (pytest.importorskip("pygments.unistring"),
                                                pytest.importorskip("pygments.lexers._cocoa_builtins"),
                                                pytest.importorskip("pygments.lexers.testing"))]
MINIFIED_JS = "!function(e,t){t.a=e(t.b,[1,2]);" * 60 + "eval(x)}(this,{});\n"
LONG_COMMENT = "// " + "this comment explains the history of the function at length, " * 17 + "\neval(x)\n"

RULE = "id: no-eval\nlanguage: javascript\nseverity: error\nmessage: no eval\nrule: {pattern: eval($A)}\n"


def _project(root: Path) -> Workspace:
    ws = Workspace(root)
    project.initialize(ws)
    (root / "rules" / "no-eval.yml").write_text(RULE)
    return ws


def test_catalogue_minified_heuristic_on_real_bundles_and_real_sources() -> None:
    failures: list[str] = []
    if len(BUNDLES) < 5:
        pytest.skip("fewer than 5 real bundles on this machine (npm's node_modules, /usr/share/javascript)")
    for path in BUNDLES:
        if not minified(Path(path).read_text(errors="replace")):
            failures.append(f"bundle not minified: {path}")
    for src in LONG_LINE_SOURCES:
        if minified(src.read_text()):
            failures.append(f"source called minified: {src}")
    for text in (LONG_COMMENT, "x = 1\n# " + "x" * 1200 + "\neval(y)\n", "s = '" + "ab, " * 400 + "'\n"):
        if why_generated("a.js", text) is not None:
            failures.append(f"hand-written text with one long line skipped: {text[:40]!r}")
    report("skips: minified heuristic (real bundles vs real sources)", len(BUNDLES) + len(LONG_LINE_SOURCES) + 3,
           failures)


def test_a_hand_written_file_with_one_long_comment_keeps_its_finding(ws: Workspace, engine: Engine) -> None:
    _project(ws.root)
    result = scan_code(ws, engine, code=LONG_COMMENT, language="javascript")
    assert result["success"] is False and [d["ruleId"] for d in result["issues"]] == ["no-eval"]


def test_a_skipped_snippet_says_so_first_and_is_not_success(ws: Workspace, engine: Engine) -> None:
    _project(ws.root)
    result = scan_code(ws, engine, code=MINIFIED_JS, language="javascript")
    assert result["success"] is False and result["issues"] == []
    assert result.get("skippedGenerated") == [{"file": "<snippet>", "why": "minified"}]
    first = render_scan(result).splitlines()[0]
    assert first.startswith("Not checked:") and "minified" in first and "No issues found" not in render_scan(result)


def test_the_text_summary_names_a_skipped_generated_file(ws: Workspace) -> None:
    _project(ws.root)
    (ws.root / "app.js").write_text(MINIFIED_JS)
    done = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--no-progress"], cwd=ws.root,
                          capture_output=True, text=True, timeout=120)
    assert "app.js (minified)" in done.stdout, done.stdout


def _as_nobody() -> list[str]:
    """A prefix that runs a command as an unprivileged user: root reads a chmod 000 file, so the test drops
    root's privileges for real (setpriv) rather than mocking the failure."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot make a file unreadable for real")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_catalogue_an_unreadable_file_is_an_io_entry_not_a_checked_file() -> None:
    prefix = _as_nobody()
    base = Path(tempfile.mkdtemp(prefix="sgtools-unread-"))
    failures: list[str] = []
    try:
        root = base / "proj"
        root.mkdir()
        _project(root)
        (root / "ok.js").write_text("eval(a)\n")
        (root / "locked.js").write_text("eval(b)\n")
        home = base / "home"
        home.mkdir()
        for dirpath, dirs, files in os.walk(base):
            for name in [*dirs, *files]:
                os.chmod(os.path.join(dirpath, name), 0o777 if name in dirs or name == "home" else 0o644)
        os.chmod(base, 0o755)
        os.chmod(home, 0o777)
        os.chmod(root / "locked.js", 0)
        env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
               "XDG_CONFIG_HOME": str(home / "config"), "PYTHONDONTWRITEBYTECODE": "1"}
        for fmt in ("json", "text"):
            done = subprocess.run([*prefix, sys.executable, "-m", "sgtools", "scan", "--no-progress", "--format", fmt],
                                  cwd=root, env=env, capture_output=True, text=True, timeout=120)
            if fmt == "json":
                data = json.loads(done.stdout)
                if data["filesChecked"] != 1:
                    failures.append(f"filesChecked {data['filesChecked']}, not 1 (the unreadable file counted)")
                if [e["file"] for e in data.get("fileErrors", [])] != ["locked.js"]:
                    failures.append(f"fileErrors {data.get('fileErrors')}")
                elif not data["fileErrors"][0]["message"].startswith("[io]"):
                    failures.append(f"not an [io] entry: {data['fileErrors'][0]}")
            elif "[io] 1 file(s) could not be read and were not checked: locked.js" not in done.stdout:
                failures.append(f"text output does not name it: {done.stdout[-400:]}")
    finally:
        os.chmod(base / "proj" / "locked.js", 0o644)
        shutil.rmtree(base, ignore_errors=True)
    report("skips: an unreadable file (chmod 000, run without root's privileges)", 2, failures)


def test_an_empty_file_is_no_io_error(tmp_path: Path) -> None:
    """ast-grep skips an empty file (`skipped=emptyFile`): nothing to check and nothing went wrong, so it is no
    `[io]` entry (an empty `__init__.py` was reported as unreadable)."""
    root = tmp_path / "proj"
    root.mkdir()
    _project(root)
    (root / "ok.js").write_text("eval(a)\n")
    (root / "empty.js").write_text("")
    done = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--no-progress", "--format", "json"],
                          cwd=root, capture_output=True, text=True, timeout=120)
    data = json.loads(done.stdout)
    assert data.get("fileErrors", []) == [] and data["filesChecked"] == 1, data.get("fileErrors")


def test_a_file_that_is_not_utf8_is_named_not_skipped_silently(tmp_path: Path) -> None:
    """Issue 33.5: ast-grep skips a file that is not UTF-8 text (`skipped=invalidUtf8`) without a word; it is a
    `[bad-input]` entry of fileErrors, named in the text report, and not counted as checked (before: left out of
    filesChecked only, so a Latin-1 file with a finding in it passed as clean)."""
    root = tmp_path / "proj"
    root.mkdir()
    _project(root)
    (root / "ok.js").write_text("eval(a)\n")
    (root / "latin.js").write_bytes(b"eval(b) // caf\xe9\n")
    done = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--no-progress", "--format", "json"],
                          cwd=root, capture_output=True, text=True, timeout=120)
    data = json.loads(done.stdout)
    assert data["filesChecked"] == 1
    assert [(e["file"], e["code"]) for e in data.get("fileErrors", [])] == [("latin.js", "bad-input")], data
    assert data["fileErrors"][0]["message"].startswith("[bad-input] latin.js is not UTF-8 text")
    text = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--no-progress"],
                          cwd=root, capture_output=True, text=True, timeout=120)
    assert "[bad-input] 1 file(s) are not UTF-8 text and were not checked: latin.js" in text.stdout, text.stdout
