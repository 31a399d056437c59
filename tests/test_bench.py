"""bin/bench's verdict: a benchmark that cannot run, or a gated row over its budget, fails the run (exit 1); a
report-only row over its budget is shown as over and does not. The timings themselves are not tested here."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


def bench() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("bench_script", str(REPO / "bin" / "bench"))
    spec = importlib.util.spec_from_loader("bench_script", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def results(benchmarks: dict[str, Any]) -> dict[str, Any]:
    return {"machine": "m", "when": "now", "quick": True, "benchmarks": benchmarks}


def row(median: float, ratio: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"sgtools": {"median_ms": median, "p95_ms": median, "min_ms": median, "n": 1}}
    if ratio is not None:
        out["ratio"] = ratio
    return out


def test_a_gated_row_over_its_budget_fails_and_a_report_only_one_does_not() -> None:
    b = bench()
    gated_over = results({"B8: rule analysis": {"warm, cached by rule content": row(80.0)}})
    table, failures = b.render(gated_over)
    assert "median_ms <= 50: over (gate)" in table and len(failures) == 1 and "median_ms 80.0 > 50" in failures[0]
    report_only = results({"B6: sgtools scan, one file": {"sgtools scan --format json": row(300.0)}})
    table, failures = b.render(report_only)
    assert "median_ms <= 100: over" in table and "(gate)" not in table and failures == []
    within = results({"B4: server start": row(900.0, ratio=0.9)})
    assert b.render(within)[1] == []
    own_gate = results({"Cost: x": {"each rule": {**row(70.0, ratio=3.2), "budget": ["ratio", 3.0], "gate": True}}})
    assert b.render(own_gate)[1] == ["Cost: x each rule: ratio 3.2 > 3"]


def test_b6_one_file_scan_over_3x_the_floor_fails_the_run(tmp_path: Path) -> None:
    """Issue 31 part 5: B6's gated row divides `sgtools scan` by an empty interpreter plus bare ast-grep of the
    same round. The timer is a stand-in (fixed seconds per command): this checks the row and its verdict only."""
    b = bench()
    from bin.bench_scale import bench_b6

    def b6(ours_s: float) -> dict[str, Any]:
        def timer(argv: list[str], n: int, **_: Any) -> list[float]:
            seconds = ours_s if argv[0] == "sgtools" else 0.04 if argv[0] == sys.executable else 0.01
            return [seconds] * n
        out = tmp_path / str(ours_s)
        out.mkdir()
        return bench_b6(out, True, ast_grep="ast-grep", sgtools="sgtools", summary=b.summary, time_process=timer)

    case = "sgtools scan vs the floor (python -c pass + bare ast-grep, same rounds)"
    slow = b6(0.2)
    assert slow[case]["ratio"] == 4.0 and slow[case]["python -c pass + ast-grep"]["median_ms"] == 50.0
    table, failures = b.render(results({"B6: sgtools scan, one file": slow}))
    assert "ratio <= 3: over (gate)" in table and failures == [f"B6: sgtools scan, one file {case}: ratio 4.0 > 3"]
    assert b.render(results({"B6: sgtools scan, one file": b6(0.1)}))[1] == []  # 2.0x: within


def test_a_benchmark_that_raised_fails_the_run_and_an_optional_peer_may_skip() -> None:
    b = bench()
    table, failures = b.render(results({"B7: suggest_rule": {"failed": "EngineFailed: no ast-grep"},
                                        "Peer": {"skipped": "semgrep is not installed"}}))
    assert "FAILED: EngineFailed" in table and "skipped: semgrep" in table
    assert failures == ["B7: suggest_rule : EngineFailed: no ast-grep"]


@pytest.mark.slow
def test_bench_exits_1_when_ast_grep_is_unavailable(tmp_path: Path) -> None:
    env = {**os.environ, "SGTOOLS_AST_GREP": str(tmp_path / "nonexistent")}
    proc = subprocess.run([sys.executable, str(REPO / "bin" / "bench"), "--quick", "--only", "B6,B8",
                           "--out", str(tmp_path / "out")], env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "bench FAILED: B6" in proc.stderr and "bench FAILED: B8" in proc.stderr
    assert "is not an executable file" in proc.stderr


def test_a_bundled_rules_row_is_judged_against_the_faster_bare_timing() -> None:
    """Bare ast-grep runs slower interleaved with the server's calls than in a block (docs/performance.md, B1):
    a bundled-rules row shows the ratio against both and its budget judges the worse, so a figure within budget
    only against the slower interleaved baseline is over."""
    b = bench()
    from bin.bench_bundled import bundled_row

    def ms(median: float) -> dict[str, float]:
        return {"median_ms": median, "p95_ms": median, "min_ms": median, "n": 1}

    case = "all bundled typescript rules, clean snippet, raw JSON-RPC client"
    row = bundled_row(ms(6.0), ms(15.0), ms(11.0), 0.5)
    assert row["ratio"] == 0.55 and row["ratios"] == {"interleaved": 0.4, "block": 0.55}
    table, _ = b.render(results({"B1: scan_code over MCP stdio": {case: row}}))
    assert f"| {case} | 6.0 (6.0) | 15.0 / 11.0 | 0.55 (interleaved 0.4, block 0.55) | ratio <= 0.5: over |" in table
    within = b.render(results({"B1: scan_code over MCP stdio": {case: bundled_row(ms(5.0), ms(15.0), ms(11.0), 0.5)}}))
    assert "0.45 (interleaved 0.33, block 0.45) | ratio <= 0.5: ok |" in within[0]
