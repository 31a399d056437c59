"""Issue 28 part 5: the CI a user would run, on a clone of a project made only with the tool.

The project is built with the real `sgtools` console script of this venv, as a user would: `sgtools init`, three
imported community rules (Python, Go, JavaScript), one rule added by hand (`rule add` with examples), and the
README tour's `rule suggest` rule (its best candidate written to a file and added with the tour's `rule add`).
Each rule gets a planted finding in `src/`. The project is committed with real git and `git clone`d into an empty
folder; there the commands of docs/ci.md and the README tour run verbatim: `scan` in text, json, sarif and github
formats, the SARIF step of the workflow, the baseline, `--changed-since origin/main`, and the Claude hook; each must
report the planted findings with the documented exit code (1 when something at or above `--fail-on` is found).
Then the same after `git clean -fdx`.

Why a clone: git keeps no empty folder. Before issue 28 part 1 `init` left `utils/` (named by `utilDirs`) empty,
the clone had no `utils/`, and every scan there exited 2 ("...utils: No such file or directory"). The test checks
that the clone indeed holds no empty folder, so it exercises exactly what a clone loses.

Not run: `pre-commit try-repo`. It builds a virtualenv and installs this package with all its dependencies from
the package index (network, or a local wheel index: 32 s here with one, more than the rest of this test, and
minutes on a loaded machine), which does not fit a test of under a minute. e2e/test_precommit.py runs it for real
with a 900 s budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(300)]

SGTOOLS = str(Path(sys.executable).parent / "sgtools")
IMPORTED = ["assert-tuple-always-true-python", "tls-insecure-skip-verify-go", "tls-reject-unauthorized-javascript"]
ADDED = "no-pickle-loads"        # severity error, added by hand with examples
SUGGESTED = "no-println"         # the README tour's suggest_rule rule (severity warning)
ALL_RULES = {*IMPORTED, ADDED, SUGGESTED}
ERRORS = {*IMPORTED, ADDED}      # at or above the default --fail-on (error)

ADDED_YAML = """\
id: no-pickle-loads
language: python
severity: error
message: pickle.loads runs arbitrary code from its input; use json
rule:
  pattern: pickle.loads($DATA)
"""

SOURCES = {
    "src/app.py": 'import pickle\n\n\ndef check(x, blob):\n    assert (x > 0, "x must be positive")\n'
                  "    return pickle.loads(blob)\n",
    "src/main.go": 'package main\n\nimport "fmt"\n\nfunc configure(cfg *tls.Config) {\n'
                   '\tcfg.InsecureSkipVerify = true\n\tfmt.Println("configured")\n}\n',
    "src/client.js": 'const https = require("https");\nconst agent = new https.Agent({ rejectUnauthorized: false });\n'
                     "module.exports = agent;\n",
}
NEW_FINDING = ("src/later.py", "import pickle\n\n\ndef load(blob):\n    return pickle.loads(blob)\n")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SGTOOLS_", "PRE_COMMIT", "GIT_", "CLAUDE_"))}
    env.update({"HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config"),
                "NO_COLOR": "1", "GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example.org",
                "GIT_COMMITTER_NAME": "ci", "GIT_COMMITTER_EMAIL": "ci@example.org", "GIT_CONFIG_NOSYSTEM": "1"})
    return env


class Runner:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def run(self, cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), cwd=cwd, env=self.env, input=stdin, capture_output=True, text=True,
                              timeout=120, check=False)

    def sg(self, cwd: Path, *args: str, rc: int | None = 0,
           stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        done = self.run(cwd, SGTOOLS, *args, stdin=stdin)
        if rc is not None:
            assert done.returncode == rc, (args, done.returncode, done.stdout[-3000:], done.stderr[-3000:])
        return done

    def git(self, cwd: Path, *args: str) -> str:
        done = self.run(cwd, "git", *args)
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout

    def bash(self, cwd: Path, command: str) -> subprocess.CompletedProcess[str]:
        return self.run(cwd, "bash", "-c", command)


def _make_project(r: Runner, proj: Path, scratch: Path) -> None:
    """Everything through the tool, as the README tour does it."""
    proj.mkdir()
    r.sg(proj, "init")
    for rule_id in IMPORTED:
        r.sg(proj, "community", "import", rule_id)
    (scratch / "no-pickle-loads.yml").write_text(ADDED_YAML, encoding="utf-8")
    r.sg(proj, "rule", "add", ADDED, "--file", str(scratch / "no-pickle-loads.yml"),
         "--invalid", "import pickle\npickle.loads(data)", "--valid", "import json\njson.loads(data)")
    # The README tour's suggest command, verbatim; its best candidate is the rule the tour then adds.
    suggested = r.sg(proj, "rule", "suggest", "--language", "go", "--id", "no-println",
                     "--invalid", 'func f() { fmt.Println("x") }', "--invalid", "func g(n int) { fmt.Println(n, n) }",
                     "--valid", 'func f() { log.Info("x") }',
                     "--fix", "func h() { fmt.Println(a) }", "func h() { log.Info(a) }", "--json")
    best = json.loads(suggested.stdout)["candidates"][0]["yaml"]
    (scratch / "no-println.yml").write_text(best, encoding="utf-8")
    r.sg(proj, "rule", "add", "no-println", "--file", str(scratch / "no-println.yml"),
         "--invalid", 'func f() { fmt.Println("x") }', "--valid", 'func f() { log.Info("x") }')
    for rel, text in SOURCES.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text, encoding="utf-8")
    r.git(proj, "-c", "init.defaultBranch=main", "init", "-q")
    r.git(proj, "add", "-A")
    r.git(proj, "commit", "-q", "-m", "a project made with sgtools")


def _rule_ids(sarif: dict[str, Any]) -> list[str]:
    return sorted(res["ruleId"] for res in sarif["runs"][0]["results"] if not res.get("suppressions"))


def _scans_report_the_planted_findings(r: Runner, clone: Path) -> None:
    text = r.sg(clone, "scan", "--format", "text", rc=1)
    for rule_id in ALL_RULES:
        assert f"[{rule_id}]" in text.stdout, (rule_id, text.stdout[-3000:])
    assert "did not run" not in text.stdout + text.stderr, text.stderr

    report = json.loads(r.sg(clone, "scan", "--format", "json", rc=1).stdout)
    assert report["ruleErrors"] == [] and report["rulesRun"] == len(ALL_RULES), report
    assert sorted(i["ruleId"] for i in report["issues"]) == sorted(ALL_RULES), report["issues"]
    assert {i["file"] for i in report["issues"]} == set(SOURCES)
    assert report["counts"]["error"] == len(ERRORS) and report["counts"]["warning"] == 1

    sarif = json.loads(r.sg(clone, "scan", "--format", "sarif", "--no-progress", rc=1).stdout)
    assert _rule_ids(sarif) == sorted(ALL_RULES)
    assert all(inv["executionSuccessful"] for inv in sarif["runs"][0]["invocations"])

    github = r.sg(clone, "scan", "--format", "github", "--no-progress", rc=1).stdout
    errors = [line for line in github.splitlines() if line.startswith("::error")]
    warnings = [line for line in github.splitlines() if line.startswith("::warning")]
    assert len(errors) == len(ERRORS) and len(warnings) == 1, github
    assert all(any(rule_id in line for line in errors) for rule_id in ERRORS), github

    # docs/ci.md's SARIF step, verbatim: passes on findings (exit 1), would fail on exit 2.
    step = r.bash(clone, "sgtools scan --format sarif --no-progress > sgtools.sarif || test $? -eq 1")
    assert step.returncode == 0, step.stderr
    assert _rule_ids(json.loads((clone / "sgtools.sarif").read_text(encoding="utf-8"))) == sorted(ALL_RULES)


def test_ci_commands_on_a_clone_of_a_tool_made_project(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    env["PATH"] = f"{Path(SGTOOLS).parent}{os.pathsep}{env.get('PATH', '')}"  # docs/ci.md's bare `sgtools`
    r = Runner(env)
    proj = tmp_path / "proj"
    _make_project(r, proj, tmp_path)

    empty = tmp_path / "empty"
    empty.mkdir()
    r.git(empty, "clone", "-q", str(proj), "proj")
    clone = empty / "proj"
    # What git drops: a folder with nothing tracked in it. The clone must not need any such folder.
    dirs = [p for p in clone.rglob("*") if p.is_dir() and ".git" not in p.relative_to(clone).parts]
    assert dirs and all(any(d.iterdir()) for d in dirs), dirs
    assert (clone / "utils").is_dir(), "init's utils/ must survive the clone"

    _scans_report_the_planted_findings(r, clone)
    # The tour's closing commands: every rule loaded, listed and explained in the clone; the tour's rule test.
    doctor = r.sg(clone, "doctor").stdout
    assert f"{len(ALL_RULES)} loaded, 0 with errors" in doctor and "utils" not in doctor, doctor
    listed = r.sg(clone, "rule", "list").stdout
    assert all(rule_id in listed for rule_id in ALL_RULES), listed
    assert SUGGESTED in r.sg(clone, "explain", SUGGESTED).stdout
    (tmp_path / "no-println.yml").write_text((clone / "rules" / "no-println.yml").read_text(encoding="utf-8"),
                                             encoding="utf-8")
    r.sg(clone, "rule", "test", "--file", str(tmp_path / "no-println.yml"), "--code", 'func f() { fmt.Println("x") }',
         "--language", "go")

    # Baseline: record today's findings (exit 0), commit the file; then a new finding in a second commit.
    r.sg(clone, "scan", "--write-baseline", ".sgtools-baseline.json", rc=0)
    r.git(clone, "add", ".sgtools-baseline.json")
    r.git(clone, "commit", "-q", "-m", "baseline")
    r.sg(clone, "scan", "--baseline", ".sgtools-baseline.json", rc=0)
    rel, code = NEW_FINDING
    (clone / rel).write_text(code, encoding="utf-8")
    r.git(clone, "add", rel)
    r.git(clone, "commit", "-q", "-m", "a new finding")
    only_new = json.loads(r.sg(clone, "scan", "--baseline", ".sgtools-baseline.json", "--format", "json",
                               rc=1).stdout)
    assert [(i["ruleId"], i["file"]) for i in only_new["issues"]] == [(ADDED, rel)], only_new["issues"]
    text = r.sg(clone, "scan", "--baseline", ".sgtools-baseline.json", rc=1).stdout
    assert f"[{ADDED}]" in text and "src/later.py" in text and f"[{IMPORTED[0]}]" not in text, text

    # --changed-since the clone's origin/main (docs/ci.md's pull-request form): only the second commit's finding.
    changed = r.sg(clone, "scan", "--format", "github", "--changed-since", "origin/main", rc=1).stdout
    lines = [line for line in changed.splitlines() if line.startswith("::")]
    assert len(lines) == 1 and "src/later.py" in lines[0] and ADDED in lines[0], changed

    # The Claude hook: a PostToolUse Write of a file with findings exits 2 with them on stderr; a clean one exits 0.
    def hook(path: Path) -> subprocess.CompletedProcess[str]:
        payload = {"hook_event_name": "PostToolUse", "tool_name": "Write", "cwd": str(clone),
                   "tool_input": {"file_path": str(path), "content": path.read_text(encoding="utf-8")}}
        return r.sg(clone, "hook", "claude", rc=None, stdin=json.dumps(payload))
    flagged = hook(clone / "src" / "main.go")
    assert flagged.returncode == 2, (flagged.stdout, flagged.stderr)
    assert "tls-insecure-skip-verify-go" in flagged.stderr and SUGGESTED in flagged.stderr, flagged.stderr
    (clone / "src" / "ok.py").write_text("import json\n\n\ndef load(s):\n    return json.loads(s)\n", encoding="utf-8")
    clean = hook(clone / "src" / "ok.py")
    assert clean.returncode == 0 and clean.stderr.strip() == "", clean.stderr

    # The same after `git clean -fdx`: only what git tracks is left, and the scans still run every rule.
    r.git(clone, "clean", "-q", "-fdx")
    assert not (clone / "src" / "ok.py").exists() and not (clone / "sgtools.sarif").exists()
    r.git(clone, "reset", "-q", "--hard", "HEAD~2")  # back to the first commit: the planted findings only
    assert not (clone / rel).exists()
    _scans_report_the_planted_findings(r, clone)
