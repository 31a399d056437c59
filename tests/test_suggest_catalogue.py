"""suggest_rule over the catalogue (tests/suggest_catalogue.py): how often the top candidate is right on examples
it never saw, and that every candidate it returns passes test_rule on the examples it lists."""

from __future__ import annotations

import time

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.rule_testing import test_rule as run_test_rule
from sgtools.workflows.suggest.service import suggest_rule
from tests.suggest_catalogue import CATALOGUE, FRESH, Request

pytestmark = pytest.mark.slow
TARGET = 0.80


def test_catalogue_shape() -> None:
    assert len(CATALOGUE) >= 50
    assert len({r.language for r in CATALOGUE}) >= 8
    names = " ".join(r.name for r in CATALOGUE)
    for category in ("package-selector", "method-chain", "decorator", "annotation", "class-member", "import",
                     "literal", "assignment", "loop", "one-token"):
        assert category in names, category
    assert len({r.name for r in CATALOGUE}) == len(CATALOGUE)


def _evaluate(ws: Workspace, engine: Engine, requests: list[Request], label: str) -> float:
    held = fitted = candidates = 0
    misses: list[str] = []
    times: list[float] = []
    for req in requests:
        start = time.perf_counter()
        result = suggest_rule(ws, engine, req.language, req.invalid, req.valid)
        times.append(time.perf_counter() - start)
        if not result["success"]:
            misses.append(f"{req.name}: no rule ({result.get('explanation', '')[:120]})")
            continue
        for cand in result["candidates"]:  # property: every returned rule passes test_rule on what it lists
            candidates += 1
            proof = run_test_rule(ws, engine, cand["yaml"], invalid_examples=cand["checked"]["invalid"],
                                  valid_examples=cand["checked"]["valid"])
            assert proof["success"], (req.name, cand["yaml"], proof["examples"]["failed"], proof["errors"])
            assert set(req.invalid) <= set(cand["checked"]["invalid"]) and cand["checked"]["valid"] == req.valid
        top = result["candidates"][0]
        fitted += 1
        out = run_test_rule(ws, engine, top["yaml"], invalid_examples=[req.held_invalid],
                            valid_examples=[req.held_valid])
        if out["success"]:
            held += 1
        else:
            misses.append(f"{req.name}: held-out {[f['reason'] for f in out['examples']['failed']]}\n"
                          f"{top['yaml']}")
    times.sort()
    n = len(requests)
    p95 = times[max(0, round(0.95 * n) - 1)]
    print(f"\nsuggest_rule {label}: {n} requests, {len({r.language for r in requests})} languages; "
          f"top candidate fits the examples in {fitted}/{n}, holds on the held-out pair in {held}/{n} "
          f"({held / n:.0%}); {candidates} candidates all pass test_rule; latency median "
          f"{times[n // 2] * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms")
    for miss in misses:
        print("  miss:", miss)
    return held / n


def test_top_candidate_holds_on_held_out_examples(ws: Workspace, engine: Engine) -> None:
    share = _evaluate(ws, engine, CATALOGUE, "catalogue")
    assert share >= TARGET, f"{share:.0%} below {TARGET:.0%}"


def test_fresh_requests_never_tuned_on(ws: Workspace, engine: Engine) -> None:
    share = _evaluate(ws, engine, FRESH, "fresh requests (never tuned on)")
    assert share >= TARGET, f"{share:.0%} below {TARGET:.0%}"
