"""Fault catalogue, edits during a scan: a rule rewritten every few milliseconds (in place, sometimes caught
half-written) while path scans and `sgtools scan --fix` run. Every finding must come from one version of its
rule (message, severity, url, fix, safety together), a half-written rule must be a rule error naming its file
(never `[engine-failed]`), and `--fix` must never apply a fix whose rule version declares it unsafe."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from sgtools.core.errors import SgToolsError
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan.paths import scan_path
from tests.faults import report

# `rule` last: a file cut anywhere before it is no rule at all, so a half-written file is either a rule error
# or one complete version.
VERSION = textwrap.dedent("""\
    id: flip
    language: python
    severity: {severity}
    message: flip version {v}
    url: https://example.com/{v}
    metadata:
      fixSafety: {safety}
    fix: call_{v}($X)
    rule:
      pattern: flip($X)
    """)
VERSIONS = {v: VERSION.format(v=v, severity=sev, safety=safety).encode()
            for v, sev, safety in (("A", "warning", "safe"), ("B", "error", "unsafe"))}

# Another process rewrites the rule in place (truncate, then two writes with a pause between: a reader can
# catch it empty or half-written) until the stop file appears.
REWRITER = textwrap.dedent("""
    import os, sys, time
    path, stop, a, b = sys.argv[1], sys.argv[2], sys.argv[3].encode(), sys.argv[4].encode()
    n = 0
    while not os.path.exists(stop):
        body = a if n % 2 == 0 else b
        with open(path, "wb") as fh:
            fh.write(body[: len(body) // 2]); fh.flush()
            time.sleep(0.0005)
            fh.write(body[len(body) // 2:])
        n += 1
        time.sleep(0.002)
    with open(path, "wb") as fh:
        fh.write(a)
    print(n)
""")


def _project(ws: Workspace, files: int) -> Path:
    (ws.root / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    (ws.root / "rules").mkdir()
    rule = ws.root / "rules" / "flip.yml"
    rule.write_bytes(VERSIONS["A"])
    src = ws.root / "src"
    src.mkdir()
    for i in range(files):
        (src / f"m{i}.py").write_text("".join(f"x{j} = flip({j})\n" for j in range(20)))
    return rule


def _start(rule: Path, stop: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", REWRITER, str(rule), str(stop), VERSIONS["A"].decode(),
                             VERSIONS["B"].decode()], stdout=subprocess.PIPE, text=True)


def _mixed(d: dict[str, Any]) -> str | None:
    """Why `d` mixes two versions of `flip`, or None when every field comes from one."""
    v = str(d["message"])[-1]
    want = {"A": ("warning", "safe"), "B": ("error", "unsafe")}.get(v)
    if want is None:
        return f"unknown message {d['message']!r}"
    fixes = [f for f in d["fixits"] if f["kind"] == "fix"]
    seen = (d["severity"], d["url"], [(f["edits"][0]["newText"][:6], f.get("safety")) for f in fixes])
    if seen != (want[0], f"https://example.com/{v}", [(f"call_{v}", want[1])] * len(fixes)):
        return f"version {v} with {seen}"
    return None


@pytest.mark.slow
def test_catalogue_a_scan_uses_one_rule_set_while_a_rule_is_rewritten(ws: Workspace, engine: Engine,
                                                                       tmp_path: Path) -> None:
    rule = _project(ws, 40)
    stop = tmp_path / "stop"
    rewriter = _start(rule, stop)
    failures: list[str] = []
    findings = rule_errors = 0
    versions: set[str] = set()
    try:
        time.sleep(0.05)
        for n in range(100):
            try:
                result = scan_path(ws, engine, max_results=1000)
            except SgToolsError as exc:  # any error is a failure: a half-written rule is a ruleErrors entry
                failures.append(f"scan {n}: {exc}")
                continue
            for err in result["ruleErrors"]:
                rule_errors += 1
                if err["path"] != "rules/flip.yml":
                    failures.append(f"scan {n}: rule error not naming the file: {err}")
            for d in result["issues"]:
                findings += 1
                versions.add(str(d["message"])[-1])
                why = _mixed(dict(d))
                if why:
                    failures.append(f"scan {n}: {why}")
    finally:
        stop.touch()
        out, _ = rewriter.communicate(timeout=30)
    print(f"\n{int(out or 0)} rewrites, {findings} findings, {rule_errors} half-written rule errors, "
          f"versions seen {sorted(versions)}")
    report("edits during a scan (100 path scans, a rule rewritten every few ms)", 100, failures)
    assert versions == {"A", "B"}, "the rewrites never reached a scan: the race did not run"


@pytest.mark.slow
def test_catalogue_scan_fix_never_applies_a_fix_its_rule_version_calls_unsafe(ws: Workspace, tmp_path: Path) -> None:
    rule = _project(ws, 10)
    stop = tmp_path / "stop"
    rewriter = _start(rule, stop)
    failures: list[str] = []
    originals = {p: p.read_bytes() for p in (ws.root / "src").iterdir()}
    applied = 0
    env = {**os.environ, "SGTOOLS_ROOT": str(ws.root)}
    try:
        for n in range(25):
            for p, data in originals.items():
                p.write_bytes(data)
            done = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--fix", "--no-progress"],
                                  cwd=ws.root, env=env, capture_output=True, text=True, timeout=120)
            if "[engine-failed]" in done.stderr or done.returncode not in (0, 1, 2):
                failures.append(f"run {n}: exit {done.returncode}: {done.stderr[-300:]}")
            texts = "".join(p.read_text() for p in originals)
            applied += texts.count("call_A(")
            if "call_B(" in texts:
                failures.append(f"run {n}: the unsafe fix of version B was applied")
    finally:
        stop.touch()
        rewriter.communicate(timeout=30)
    print(f"\n{applied} safe fixes applied over 25 runs")
    assert applied > 0, "no fix was ever applied: the test did not exercise --fix"
    report("scan --fix during rule rewrites (25 CLI runs)", 25, failures)


def test_a_half_written_rule_is_a_rule_error_naming_its_file(ws: Workspace, engine: Engine) -> None:
    rule = _project(ws, 1)
    for cut in (len(VERSIONS["A"]) // 3, len(VERSIONS["A"]) // 2, len(VERSIONS["A"]) - 12):
        rule.write_bytes(VERSIONS["A"][:cut])
        result = scan_path(ws, engine)
        assert result["issues"] == [], cut
        assert [e["path"] for e in result["ruleErrors"]] == ["rules/flip.yml"], (cut, result["ruleErrors"])


def test_a_later_page_says_the_rule_set_changed_since_the_first(ws: Workspace, engine: Engine) -> None:
    rule = _project(ws, 2)
    first = scan_path(ws, engine, max_results=10)
    assert first["nextOffset"] == 10 and "notes" not in first
    same = scan_path(ws, engine, max_results=10, offset=10)
    assert "notes" not in same
    rule.write_bytes(VERSIONS["B"])
    later = scan_path(ws, engine, max_results=10, offset=20)
    assert any("rule set changed since the first page" in n for n in later.get("notes", [])), later.get("notes")
    assert {d["message"] for d in later["issues"]} == {"flip version B"}
