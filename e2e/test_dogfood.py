"""This repository's own rules (sgconfig.yml, rules/, rule-tests/): they pass their tests, honour their
files/ignores scopes, and `sgtools scan sgtools` is clean at error level."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan.paths import scan_path

REPO = Path(__file__).resolve().parent.parent

# path -> the rules that must fire there (an empty set: none may)
PROBES = {
    "sgtools/engine/spawn.py": ("import subprocess\n", set()),
    "sgtools/engine/process.py": ("import subprocess\n", {"sgtools-no-subprocess"}),
    "sgtools/other.py": ("import subprocess\nos.system('ls')\n", {"sgtools-no-subprocess"}),
    "sgtools/cli/show.py": ("print('hello')\ntime.sleep(1)\n", set()),
    "sgtools/present/out.py": ("print('hello')\n", set()),
    "sgtools/service.py": ("print('hello')\ntime.sleep(1)\n", {"sgtools-no-print-in-services",
                                                                "sgtools-no-sleep-in-services"}),
    "sgtools/project/workspace.py": ("with open(p, 'wb') as fh:\n    pass\ntime.sleep(0.1)\n", set()),
    "sgtools/core/cache.py": ("with open(p, 'wb') as fh:\n    pass\n", {"sgtools-no-open-for-write"}),
    "sgtools/server/app.py": ("import mcp.server\n", set()),
    "sgtools/server/http.py": ("from mcp.server import x\n", set()),
    "sgtools/tools.py": ("from mcp import Client\n", {"sgtools-no-mcp-outside-server"}),
    "sgtools/run.py": ("subprocess.run(c, shell=True)\n", {"sgtools-no-shell-true"}),
    "sgtools/load.py": ("yaml.load(t)\n", {"sgtools-no-unsafe-yaml"}),
    "sgtools/defaults.py": ("def f(a=[]):\n    pass\n", {"sgtools-no-mutable-default"}),
    "sgtools/catch.py": ("try:\n    f()\nexcept:\n    pass\n", {"sgtools-no-bare-except"}),
    "sgtools/calc.py": ("eval(x)\n", {"sgtools-no-eval-exec"}),
    "tests/test_x.py": ("import subprocess\nprint(1)\neval(x)\n", set()),
}


def test_repository_rules_pass_their_tests() -> None:
    report = Engine().test(REPO / "sgconfig.yml", cwd=REPO)
    assert report.passed, report.summary
    assert len(report.statuses) >= 8
    assert not report.not_found


def test_rules_honour_their_file_scopes(tmp_path: Path) -> None:
    shutil.copy(REPO / "sgconfig.yml", tmp_path / "sgconfig.yml")
    shutil.copytree(REPO / "rules", tmp_path / "rules")
    for rel, (code, _) in PROBES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(code, encoding="utf-8")
    result = scan_path(Workspace(tmp_path), Engine())
    assert result["ruleErrors"] == []
    fired: dict[str, set[str]] = {}
    for d in result["issues"]:
        fired.setdefault(d["file"], set()).add(d["ruleId"])
    for rel, (_, expected) in PROBES.items():
        assert fired.get(rel, set()) == expected, rel


def test_sgtools_scan_of_our_own_code_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--no-progress", "sgtools"], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("rule", sorted(p.stem for p in (REPO / "rules").glob("*.yml")))
def test_every_rule_has_a_test_file(rule: str) -> None:
    assert (REPO / "rule-tests" / f"{rule}-test.yml").is_file()
