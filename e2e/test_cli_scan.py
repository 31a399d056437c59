"""`sgtools scan` end to end: the real command in a subprocess on a copy of e2e/sample_repo, real ast-grep and git."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan.paths import scan_path
from sgtools.workflows.apply_fixes import apply_fixes

REPO = Path(__file__).resolve().parent.parent
SAMPLE = Path(__file__).resolve().parent / "sample_repo"
SARIF_SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-2.1.0-minimal.schema.json").read_text(encoding="utf-8"))
# What the sample repository holds, by (file, line, rule): every severity once or twice.
EXPECTED = {
    ("go/main.go", 6, "go-println"),
    ("js/app.js", 2, "no-var"),
    ("js/app.js", 6, "no-console-log"),
    ("js/debug.js", 2, "no-debugger"),
    ("python/calc.py", 7, "prefer-logging"),
    ("python/calc.py", 8, "no-eval"),
}


def sgtools(cwd: Path, *args: str, env: dict[str, str] | None = None,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SGTOOLS_")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "sgtools", *args], cwd=cwd, capture_output=True, text=True,
                          env=full_env, input=stdin, timeout=120, check=False)


def scan_json(cwd: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    proc = sgtools(cwd, "scan", "--format", "json", *args)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout else {}, proc.stderr


def found(data: dict[str, Any]) -> set[tuple[str, int, str]]:
    return {(d["file"], d["line"], d["ruleId"]) for d in data["issues"]}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    dest = tmp_path / "sample"
    shutil.copytree(SAMPLE, dest)
    return dest


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


# ---- formats ---------------------------------------------------------------------------------------


def test_text_format(sample: Path) -> None:
    proc = sgtools(sample, "scan")
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "\033[" not in out  # not a terminal: no colour
    lines = out.splitlines()
    for header in ("go/main.go", "js/app.js", "js/debug.js", "python/calc.py"):
        assert header in lines
    eval_at = next(i for i, ln in enumerate(lines) if "[no-eval]" in ln)
    assert "8:12" in lines[eval_at] and "eval of expr runs arbitrary code" in lines[eval_at]
    assert lines[eval_at + 1] == "  8 |     return eval(expr)"
    assert lines[eval_at + 2] == "    |            ^^^^^^^^^^"
    assert lines[-1] == "✖ 6 problems (2 errors, 2 warnings, 1 info, 1 hint) in 4 files (5 files checked)"
    assert proc.stderr == ""


def _drain(fd: int) -> str:
    """Everything written to a pty until its last writer has closed it (reading then fails with EIO on Linux)."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def test_text_colour_on_a_terminal_unless_no_color(sample: Path) -> None:
    def on_tty(env: dict[str, str]) -> str:
        leader, follower = pty.openpty()
        full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "SGTOOLS_ROOT")}
        full_env.update(env)
        proc = subprocess.Popen([sys.executable, "-m", "sgtools", "scan", "--no-progress", "js/debug.js"],
                                cwd=sample, stdout=follower, stderr=subprocess.DEVNULL, env=full_env)
        os.close(follower)
        shown = _drain(leader)
        proc.wait(60)
        os.close(leader)
        return shown

    assert "\033[1;31m" in on_tty({})
    plain = on_tty({"NO_COLOR": "1"})
    assert "[no-debugger]" in plain and "\033[" not in plain


def test_progress_only_on_a_terminal(sample: Path) -> None:
    def run(stderr_tty: bool, *args: str) -> str:
        leader, follower = pty.openpty()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SGTOOLS_")}
        env["SGTOOLS_PROGRESS_DELAY"] = "0"  # show it at once, however fast the scan is
        proc = subprocess.Popen([sys.executable, "-m", "sgtools", "scan", *args], cwd=sample,
                                stdout=subprocess.DEVNULL, stderr=follower if stderr_tty else subprocess.PIPE,
                                env=env)
        os.close(follower)
        shown = _drain(leader) if stderr_tty else ""
        _, err = proc.communicate(timeout=60)
        os.close(leader)
        return shown if stderr_tty else err.decode("utf-8", "replace")

    assert "sgtools: scanning…" in run(True)
    assert "scanning" not in run(True, "--no-progress")
    assert "scanning" not in run(False)


def test_json_format(sample: Path) -> None:
    code, data, _ = scan_json(sample)
    assert code == 1
    assert found(data) == EXPECTED
    assert data["counts"] == {"error": 2, "warning": 2, "info": 1, "hint": 1}
    assert data["ruleErrors"] == [] and data["truncated"] is False
    keys = [(d["file"], d["byteStart"], d["ruleId"]) for d in data["issues"]]
    assert keys == sorted(keys)
    assert all(len(d["fingerprint"]) == 32 for d in data["issues"])
    assert data["config"] == "sgconfig.yml"


def test_sarif_format(sample: Path) -> None:
    proc = sgtools(sample, "scan", "--format", "sarif")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    jsonschema.validate(data, SARIF_SCHEMA)
    run = data["runs"][0]
    assert data["version"] == "2.1.0" and data["$schema"].endswith("sarif-2.1.0.json")
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert set(rules) == {"go-println", "no-var", "no-console-log", "no-debugger", "prefer-logging", "no-eval"}
    assert rules["no-eval"]["helpUri"] == "https://docs.python.org/3/library/ast.html#ast.literal_eval"
    assert rules["no-eval"]["help"]["text"].startswith("Parse literals")
    assert rules["go-println"]["defaultConfiguration"]["level"] == "note"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert {k: v["level"] for k, v in by_rule.items()} == {
        "go-println": "note", "no-var": "warning", "no-console-log": "note", "no-debugger": "error",
        "prefer-logging": "warning", "no-eval": "error"}
    region = by_rule["no-eval"]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endLine"], region["endColumn"]) == (8, 12, 8, 22)
    assert by_rule["no-eval"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "python/calc.py"
    assert "fixes" in by_rule["prefer-logging"] and "fixes" not in by_rule["no-eval"]
    replacement = by_rule["prefer-logging"]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"]["text"] == 'logging.info("evaluating", expr)'
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_github_format(sample: Path) -> None:
    proc = sgtools(sample, "scan", "--format", "github")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == 6
    assert ("::error file=python/calc.py,line=8,col=12,endLine=8,endColumn=22,title=no-eval::eval of expr runs "
            "arbitrary code%0A%0AParse literals") in proc.stdout
    assert any(ln.startswith("::notice file=go/main.go,line=6,") and "title=go-println" in ln for ln in lines)
    assert any(ln.startswith("::notice file=js/app.js,line=6,") for ln in lines)  # info
    assert sum(ln.startswith("::warning ") for ln in lines) == 2


# ---- exit codes --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "expected"), [
    ((), 1),
    (("--fail-on", "error", "python/clean.py"), 0),
    (("--fail-on", "hint", "python/clean.py"), 0),
    (("go",), 0),
    (("--fail-on", "warning", "go"), 0),
    (("--fail-on", "info", "go"), 0),
    (("--fail-on", "hint", "go"), 1),
    (("--fail-on", "warning", "js/app.js"), 1),
    (("--fail-on", "warning", "--min-severity", "error", "js/app.js"), 0),
    (("--rule", "no-var", "js"), 0),
    (("--rule", "no-var", "--fail-on", "warning", "js"), 1),
])
def test_exit_codes_follow_fail_on(sample: Path, args: tuple[str, ...], expected: int) -> None:
    proc = sgtools(sample, "scan", *args)
    assert proc.returncode == expected, proc.stdout + proc.stderr


@pytest.mark.parametrize("args", [
    ("--format", "xml"),
    ("--fail-on", "critical"),
    ("no/such/dir",),
    ("--rule", "no-such-rule"),
    ("--shard", "3/2"),
    ("--unsafe-fixes",),
    ("--max-results", "0"),
    ("--baseline", "missing.json"),
    ("--changed-since", "HEAD"),  # not a git repository
    ("/etc/passwd",),
])
def test_usage_and_configuration_errors_exit_2(sample: Path, args: tuple[str, ...]) -> None:
    proc = sgtools(sample, "scan", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip()


def test_broken_rule_exits_2_unless_allowed(sample: Path) -> None:
    (sample / "rules" / "broken.yml").write_text("id: broken\nlanguage: python\nrule:\n  patern: x\n",
                                                  encoding="utf-8")
    proc = sgtools(sample, "scan", "--format", "json")
    assert proc.returncode == 2
    assert "rules/broken.yml" in proc.stderr
    data = json.loads(proc.stdout)
    assert found(data) == EXPECTED  # the good rules still ran and were reported
    assert data["ruleErrors"][0]["path"] == "rules/broken.yml"
    allowed = sgtools(sample, "scan", "--allow-rule-errors")
    assert allowed.returncode == 1 and "rules/broken.yml" in allowed.stderr


def test_engine_failure_exits_2(sample: Path, tmp_path: Path) -> None:
    proc = sgtools(sample, "scan", env={"SGTOOLS_AST_GREP": str(tmp_path / "missing-binary")})
    assert proc.returncode == 2
    assert proc.stderr.startswith("[engine-failed]")


# ---- adoption: baseline, changed lines -----------------------------------------------------------------


@pytest.mark.slow
def test_baseline_round_trip(sample: Path) -> None:
    wrote = sgtools(sample, "scan", "--write-baseline", "sgtools-baseline.json")
    assert wrote.returncode == 0, wrote.stderr
    assert "wrote 6 finding(s)" in wrote.stderr
    assert "6 known findings from the baseline" in wrote.stdout
    doc = json.loads((sample / "sgtools-baseline.json").read_text(encoding="utf-8"))
    assert len(doc["findings"]) == 6

    calc = sample / "python" / "calc.py"
    calc.write_text("import os\n\n" + calc.read_text(encoding="utf-8"), encoding="utf-8")  # shift every line
    code, data, _ = scan_json(sample, "--baseline", "sgtools-baseline.json")
    assert code == 0 and data["issues"] == [] and data["baselined"] == 6

    calc.write_text(calc.read_text(encoding="utf-8") + "\n\nresult = eval('1 + 1')\n", encoding="utf-8")
    code, data, _ = scan_json(sample, "--baseline", "sgtools-baseline.json")
    assert code == 1
    assert found(data) == {("python/calc.py", 17, "no-eval")}
    sarif = json.loads(sgtools(sample, "scan", "--format", "sarif", "--baseline", "sgtools-baseline.json").stdout)
    suppressed = [r for r in sarif["runs"][0]["results"] if r.get("suppressions")]
    assert len(suppressed) == 6 and len(sarif["runs"][0]["results"]) == 7


def test_changed_since_in_a_real_repository(sample: Path) -> None:
    git(sample, "init", "-q", "-b", "main")
    git(sample, "config", "user.email", "ci@example.org")
    git(sample, "config", "user.name", "ci")
    git(sample, "add", ".")
    git(sample, "commit", "-q", "-m", "base")
    code, data, _ = scan_json(sample, "--changed-since", "HEAD")
    assert (code, data["issues"]) == (0, [])

    app = sample / "js" / "app.js"
    app.write_text(app.read_text(encoding="utf-8").replace("return sum;", "debugger;\n  return sum;"),
                   encoding="utf-8")
    (sample / "python" / "fresh.py").write_text("print('new file')\n", encoding="utf-8")
    code, data, _ = scan_json(sample, "--changed-since", "HEAD")
    assert code == 1
    # the old findings of js/app.js (lines 2 and 6) are not on changed lines
    assert found(data) == {("js/app.js", 7, "no-debugger"), ("python/fresh.py", 1, "prefer-logging")}
    code, data, _ = scan_json(sample, "--changed-since", "HEAD", "python")
    assert found(data) == {("python/fresh.py", 1, "prefer-logging")} and code == 0


# ---- fixes, shards, limits --------------------------------------------------------------------------------


def test_fix_matches_apply_fixes(sample: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(sample, twin)
    # The sample's rules declare no fixSafety: their fixes are unsafe, so plain --fix applies none of them and
    # says how to mark one safe (issue 30: safe means proven)
    _, unsafe, _ = scan_json(sample, "--fix")
    assert unsafe["fixes"]["fixesApplied"] == 0 and unsafe["fixes"]["fixes"] == []
    assert any("fixSafety: safe" in s["reason"] for s in unsafe["fixes"]["skipped"])
    code, data, _ = scan_json(sample, "--fix", "--unsafe-fixes")
    ws = Workspace(twin)
    result = apply_fixes(ws, Engine(), apply=True, include_unsafe=True)
    assert result["fixesApplied"] >= 2
    assert tree(sample) == tree(twin)
    assert data["fixes"]["fixesApplied"] == result["fixesApplied"]
    assert sorted(data["fixes"]["changedFiles"]) == sorted(result["changedFiles"])
    remaining = scan_path(ws, Engine())
    assert found(data) == found(remaining)
    assert ("python/calc.py", 8, "no-eval") in found(data)  # no fix: still reported, still failing
    assert not any(rule in {"no-debugger", "prefer-logging"} for _, _, rule in found(data))
    assert code == 1
    assert "logging.info(\"evaluating\", expr)" in (sample / "python" / "calc.py").read_text(encoding="utf-8")


def test_unverified_fixes_are_never_applied(sample: Path) -> None:
    # The fixed code still triggers the rule, so verification fails: neither --fix nor --unsafe-fixes applies it.
    (sample / "rules" / "assert-note.yml").write_text(
        "id: assert-note\nlanguage: python\nseverity: warning\nmessage: assert\nrule:\n  pattern: assert $X\n"
        "fix: assert ($X)\n", encoding="utf-8")
    target = sample / "python" / "checks.py"
    target.write_text("assert ready\n", encoding="utf-8")
    for flags in (("--fix",), ("--fix", "--unsafe-fixes")):
        proc = sgtools(sample, "scan", *flags, "python/checks.py")
        assert target.read_text(encoding="utf-8") == "assert ready\n"
        assert "Applied 0 fixes in 0 files; skipped 1: 1 unverified (never applied" in proc.stdout


def test_unsafe_fixes_need_the_flag(sample: Path) -> None:
    (sample / "rules" / "check-call.yml").write_text(
        "id: check-call\nlanguage: python\nseverity: warning\nmessage: check\nrule:\n  pattern: check($X)\n"
        "fix: verify($X)\nmetadata:\n  fixSafety: unsafe\n", encoding="utf-8")
    target = sample / "python" / "checks.py"
    target.write_text("check(ready)\n", encoding="utf-8")
    proc = sgtools(sample, "scan", "--fix", "python/checks.py")
    assert target.read_text(encoding="utf-8") == "check(ready)\n"
    assert "skipped 1: 1 unsafe (pass --fix --unsafe-fixes to apply them once reviewed)" in proc.stdout
    proc = sgtools(sample, "scan", "--fix", "--unsafe-fixes", "python/checks.py")
    assert target.read_text(encoding="utf-8") == "verify(ready)\n"
    assert "Applied 1 fix in 1 file." in proc.stdout


@pytest.mark.slow
def test_shards_split_the_findings(sample: Path) -> None:
    parts = [found(scan_json(sample, "--shard", f"{k}/3")[1]) for k in (1, 2, 3)]
    assert set().union(*parts) == EXPECTED
    assert sum(len(p) for p in parts) == len(EXPECTED)  # disjoint
    assert parts == [found(scan_json(sample, "--shard", f"{k}/3")[1]) for k in (1, 2, 3)]  # deterministic


def test_max_results_truncates(sample: Path) -> None:
    code, data, _ = scan_json(sample, "--max-results", "2")
    assert len(data["issues"]) == 2 and data["truncated"] is True
    assert data["counts"] == {"error": 2, "warning": 2, "info": 1, "hint": 1}
    assert {d["severity"] for d in data["issues"]} <= {"hint", "warning"}  # the errors are not shown ...
    assert code == 1  # ... and still fail the run


# ---- zero configuration, start-up cost -----------------------------------------------------------------


def test_without_sgconfig_the_bundled_rules_run(sample: Path) -> None:
    (sample / "sgconfig.yml").unlink()
    proc = sgtools(sample, "scan", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    assert "no sgconfig.yml: using" in proc.stderr and "bundled community rules" in proc.stderr
    count = int(proc.stderr.split("using ", 1)[1].split()[0])
    assert count > 0
    data = json.loads(proc.stdout)
    assert data["config"] == "bundled community rules"
    assert data["ruleErrors"] == []


def test_scan_does_not_import_mcp(sample: Path) -> None:
    probe = ("import runpy, sys\nsys.argv = ['sgtools', 'scan', '--format', 'json']\n"
             "try:\n    runpy.run_module('sgtools', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "sys.stderr.write('MCP_LOADED=%s' % any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=sample, capture_output=True, text=True, timeout=120,
                          check=False)
    assert '"issues"' in proc.stdout
    assert "MCP_LOADED=False" in proc.stderr


def test_paths_may_be_relative_to_the_current_directory(sample: Path) -> None:
    proc = sgtools(sample / "python", "scan", "--root", str(sample), "--format", "json", "calc.py")
    assert proc.returncode == 1, proc.stderr
    assert {d["file"] for d in json.loads(proc.stdout)["issues"]} == {"python/calc.py"}
