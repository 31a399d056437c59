"""Per-rule cost (`scan_path(profile=true)`, `sgtools scan --profile`): each rule timed alone, slowest first."""

from __future__ import annotations

import pytest

from sgtools.cli import main
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan.paths import PathScan, scan_path
from sgtools.scan.profile import merge, render

CHEAP = "id: cheap-print\nlanguage: python\nseverity: warning\nmessage: print\nrule:\n  pattern: print($X)\n"
# For every call, a search of the whole module: the quadratic shape of the old math/rand rule.
QUADRATIC = """id: quadratic-call
language: python
severity: warning
message: call in a module that imports random
rule:
  all:  # in order: the whole-module search runs for every call before the cheap pattern check
    - kind: call
    - inside:
        kind: module
        stopBy: end
        has:
          pattern: import random
          stopBy: end
    - pattern: print($X)
"""


def _project(ws: Workspace) -> None:
    from sgtools.project.config import initialize

    initialize(ws)
    (ws.root / "rules" / "cheap.yml").write_text(CHEAP)
    (ws.root / "rules" / "quadratic.yml").write_text(QUADRATIC)
    body = "".join(f"f{i}(x)\n" for i in range(1500))
    # the import last: the search for it walks the whole module from every call
    (ws.root / "big.py").write_text("print(1)\n" + body + "print(2)\nimport random\n")


@pytest.mark.slow
def test_scan_path_profile_names_the_quadratic_rule_slowest(ws: Workspace, engine: Engine) -> None:
    _project(ws)
    plain = scan_path(ws, engine, PathScan(verify_fixits=False))
    assert "profile" not in plain  # only when asked: it costs one engine call per rule
    result = scan_path(ws, engine, PathScan(verify_fixits=False), profile=True)
    prof = result["profile"]
    assert [c["ruleId"] for c in prof["rules"]] == ["quadratic-call", "cheap-print"]
    assert prof["slowest"] == "quadratic-call"
    by_id = {c["ruleId"]: c for c in prof["rules"]}
    assert by_id["cheap-print"]["findings"] == 2
    assert by_id["quadratic-call"]["findings"] == 2
    assert set(prof["baseline"]) == {"python"}
    assert by_id["quadratic-call"]["cost"] > 5 * by_id["cheap-print"]["cost"]
    assert by_id["quadratic-call"]["seconds"] >= by_id["quadratic-call"]["cost"] >= 0
    # the findings themselves are those of the plain scan
    assert result["issues"] == plain["issues"]


@pytest.mark.slow
def test_cli_profile_prints_a_sorted_table_on_stderr(ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    _project(ws)
    assert main(["scan", "--root", str(ws.root), "--format", "json", "--profile", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert out.lstrip().startswith("{")  # stdout stays machine-readable
    rows = [ln.split()[0] for ln in err.splitlines() if ln.startswith(("quadratic-call", "cheap-print"))]
    assert rows == ["quadratic-call", "cheap-print"]
    assert "slowest: quadratic-call" in err and "parse-only baseline per language: python" in err


def test_merge_adds_up_batches_and_render_limits_rows() -> None:
    part = {"rules": [{"ruleId": "a", "language": "go", "seconds": 1.0, "cost": 0.5, "findings": 2},
                      {"ruleId": "b", "language": "go", "seconds": 0.6, "cost": 0.1, "findings": 1}],
            "baseline": {"go": 0.5}, "slowest": "a", "totalCost": 0.6}
    other = {"rules": [{"ruleId": "b", "language": "go", "seconds": 2.0, "cost": 1.5, "findings": 3}],
             "baseline": {"go": 0.5}, "slowest": "b", "totalCost": 1.5}
    merged = merge([part, other])  # type: ignore[list-item]
    assert [(c["ruleId"], c["cost"], c["findings"]) for c in merged["rules"]] == [("b", 1.6, 4), ("a", 0.5, 2)]
    assert merged["baseline"] == {"go": 1.0} and merged["slowest"] == "b" and merged["totalCost"] == 2.1
    text = render(merged, limit=1)
    assert "... 1 more rule(s)" in text and text.splitlines()[1].startswith("b ")
    assert merge([])["slowest"] is None


def test_profile_is_in_the_mcp_contract() -> None:
    from sgtools.contracts.scan import ScanPathArgs, ScanPathResult
    from sgtools.server.schemas import schema_of

    assert schema_of(ScanPathArgs)["properties"]["profile"]["type"] == "boolean"
    cost = schema_of(ScanPathResult)["properties"]["profile"]["properties"]["rules"]["items"]
    assert set(cost["properties"]) == {"ruleId", "language", "seconds", "cost", "findings"}
