"""`sgtools scan`'s output, byte for byte: every format and the options that reach the pipeline, each run as a
real process on a copy of e2e/sample_repo (real ast-grep, real git), compared with a golden file in
tests/data/scan_goldens/. The goldens were captured before the CI pipeline moved out of `cli/scan.py` (issue 32),
so a refactor that changes a byte, an exit code or a stderr note fails here.

A change of output made on purpose: rerun with SGTOOLS_UPDATE_GOLDENS=1, read the diff, commit it with the change.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from sgtools import __version__
from sgtools.engine.process import Engine

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "e2e" / "sample_repo"
GOLDENS = Path(__file__).resolve().parent / "data" / "scan_goldens"
UPDATE = os.environ.get("SGTOOLS_UPDATE_GOLDENS") == "1"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def _committed(root: Path) -> None:
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "ci@example.org")
    _git(root, "config", "user.name", "ci")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    app = root / "js" / "app.js"
    app.write_text(app.read_text(encoding="utf-8").replace("return sum;", "debugger;\n  return sum;"),
                   encoding="utf-8")
    (root / "python" / "fresh.py").write_text("print('new file')\n", encoding="utf-8")


def _broken_rule(root: Path) -> None:
    (root / "rules" / "broken.yml").write_text("id: broken\nlanguage: python\nrule:\n  patern: x\n", encoding="utf-8")


def _no_config(root: Path) -> None:
    for name in ("sgconfig.yml", "rules", "rule-tests", "utils", "go", "js"):
        target = root / name
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    (root / "python" / "calc.py").unlink()


class Case(NamedTuple):
    name: str
    runs: tuple[tuple[str, ...], ...]  # one or more `sgtools scan` argument lists, run in order
    setup: Callable[[Path], None] | None = None
    files: tuple[str, ...] = ()  # files whose text after the runs is part of the golden
    stderr: bool = True  # False where stderr holds timings


CASES = [
    Case("text", (("--format", "text"),)),
    Case("json", (("--format", "json"),)),
    Case("sarif", (("--format", "sarif"),)),
    Case("github", (("--format", "github"),)),
    Case("json-flag-verified", (("--json", "--verify-fixits"),)),
    Case("fail-on-and-limits", (("--fail-on", "hint", "--min-severity", "warning", "--max-results", "2"),
                                ("--format", "json", "--fail-on", "warning", "--min-severity", "warning",
                                 "--max-results", "1"),
                                ("--fail-on", "warning", "--rule", "no-console-log", "--rule", "go-println"))),
    Case("paths", (("python",), ("js/debug.js", "go", "--format", "github"), ("--root", ".", "python/calc.py"))),
    Case("missing-path", (("nowhere",),)),
    Case("summary", (("--summary",), ("--format", "json", "--summary"))),
    Case("shards", (("--shard", "1/2", "--format", "github"), ("--shard", "2/2", "--format", "github"),
                    ("--shard", "3/2",))),
    Case("baseline", (("--write-baseline", "base.json"), ("--baseline", "base.json", "--format", "json"),
                      ("--baseline", "base.json", "--format", "sarif"), ("--baseline", "missing.json"))),
    Case("changed-since", (("--changed-since", "HEAD", "--format", "json"), ("--changed-since", "HEAD", "python"),
                           ("--changed-since", "HEAD", "--shard", "1/2", "--format", "github")), setup=_committed),
    Case("fix", (("--unsafe-fixes",), ("--fix",), ("--fix", "--format", "json")),
         files=("js/debug.js", "python/calc.py")),
    Case("fix-json", (("--fix", "--format", "json", "js"),), files=("js/debug.js",)),
    Case("broken-rule", (("--format", "json"), ("--allow-rule-errors",)), setup=_broken_rule),
    Case("bad-usage", (("--max-results", "0"), ("--fail-on", "fatal"), ("--shard", "x"))),
    Case("bundled", (("--format", "json"), ("--fix",), ()), setup=_no_config),
    Case("profile", (("--profile", "--format", "json"),), stderr=False),
]


def _normalize(text: str, root: Path) -> str:
    text = text.replace(root.as_uri(), "file://ROOT").replace(str(root), "ROOT")
    text = text.replace(f'"{__version__}"', '"VERSION"')
    return re.sub(r"\b\d+ bundled community rules", "N bundled community rules", text)


def _run(root: Path, case: Case, env: dict[str, str]) -> str:
    out: list[str] = []
    for args in case.runs:
        proc = subprocess.run([sys.executable, "-m", "sgtools", "scan", *args], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300)
        out += [f"$ sgtools scan {' '.join(args)}", f"--- exit {proc.returncode}", "--- stdout", proc.stdout]
        if case.stderr:
            out += ["--- stderr", proc.stderr]
    for name in case.files:
        out += [f"--- file {name}", (root / name).read_text(encoding="utf-8")]
    return _normalize("\n".join(out), root)


@pytest.mark.slow  # 1 to 4 processes of a few hundred ms each, per case
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_scan_output_is_the_golden(case: Case, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root)
    if case.setup is not None:
        case.setup(root)
    drop = ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")  # colour and argparse's usage width
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGTOOLS_") and k not in drop}
    env.update({"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "HOME": str(tmp_path)})
    got = _run(root, case, env)
    golden = GOLDENS / f"{case.name}.txt"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")


def test_the_goldens_hold_every_format_and_each_golden_a_case() -> None:
    """The comparison can fail: each golden names its case, and the four formats' goldens are real reports."""
    assert sorted(p.stem for p in GOLDENS.glob("*.txt")) == sorted(c.name for c in CASES)
    assert len((GOLDENS / "scan_path_tool.jsonl").read_text(encoding="utf-8").splitlines()) == len(MCP_CALLS)
    sarif = (GOLDENS / "sarif.txt").read_text(encoding="utf-8").split("--- stdout\n")[1].split("\n--- stderr")[0]
    assert len(json.loads(sarif)["runs"][0]["results"]) == 6
    assert "::error file=js/debug.js" in (GOLDENS / "github.txt").read_text(encoding="utf-8")


MCP_CALLS: list[dict[str, Any]] = [
    {},
    {"paths": ["js", "python/calc.py"], "min_severity": "warning"},
    {"rule_ids": ["no-eval", "no-var"], "max_results": 1},
    {"max_results": 2, "offset": 2},
]


def test_the_scan_path_tool_answers_as_the_golden(tmp_path: Path, engine: Engine) -> None:
    """The MCP tool's scan_path (through scan/fallback.py, as server/tools.py calls it) with its own arguments
    only: its JSON, keys sorted, one line per call."""
    from sgtools.project.workspace import Workspace
    from sgtools.scan.fallback import scan_path

    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root)
    ws = Workspace(root)
    got = "".join(json.dumps(scan_path(ws, engine, **call), sort_keys=True) + "\n"
                  for call in MCP_CALLS)
    golden = GOLDENS / "scan_path_tool.jsonl"
    if UPDATE:
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")
