"""suggest_rule: rules generalised from examples and proven with the real ast-grep binary."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sgtools.core.errors import BadInput
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules.suggest.service import suggest_rule
from sgtools.rules.testing import test_rule as run_test_rule


def _best(ws: Workspace, engine: Engine, **req: object) -> dict[str, object]:
    result = suggest_rule(ws, engine, **req)  # type: ignore[arg-type]
    assert result["success"], result.get("explanation")
    return dict(result["candidates"][0])


def test_differences_become_metavariables_and_shared_code_stays(ws: Workspace, engine: Engine) -> None:
    best = _best(ws, engine, language="python", invalid_examples=["subprocess.call(cmd, shell=True)",
                                                                  "subprocess.run(args, shell=True, check=True)"],
                 valid_examples=["subprocess.run(args)", "subprocess.run(args, shell=False)"])
    assert "shell=True" in str(best["yaml"])
    assert run_test_rule(ws, engine, str(best["yaml"]), valid_examples=["subprocess.run(args, shell=False)"],
                         invalid_examples=["subprocess.Popen(x, shell=True)"])["success"]


def test_go_call_is_written_with_context_and_selector(ws: Workspace, engine: Engine) -> None:
    """Bare `fmt.Println(...)` parses as a type conversion in Go; the suggestion must still match calls."""
    best = _best(ws, engine, language="go", invalid_examples=['package main\nfunc f() { fmt.Println("a") }'],
                 valid_examples=['package main\nfunc f() { log.Println("a") }'])
    held_out = run_test_rule(ws, engine, str(best["yaml"]),
                             invalid_examples=['package main\nfunc g() { fmt.Println(x, y) }'],
                             valid_examples=['package main\nfunc g() { log.Print(x) }'])
    assert held_out["success"], (best["yaml"], held_out)


def test_one_token_difference_is_pinned(ws: Workspace, engine: Engine) -> None:
    best = _best(ws, engine, language="javascript", invalid_examples=["if (a == b) {}", "while (x == null) {}"],
                 valid_examples=["if (a === b) {}"])
    assert "==" in str(best["yaml"]) and "===" not in str(best["yaml"])


def test_fix_is_inferred_and_verified(ws: Workspace, engine: Engine) -> None:
    best = _best(ws, engine, language="python", invalid_examples=["x == None"], valid_examples=["x is None"],
                 fix_examples=[{"before": "if value == None:\n    pass", "after": "if value is None:\n    pass"}])
    assert best.get("fix") == "$A is None", best["yaml"]


def test_inseparable_examples_get_an_explanation_and_no_rule(ws: Workspace, engine: Engine) -> None:
    result = suggest_rule(ws, engine, "python", ["print(x)"], ["print(x)  "])
    assert not result["success"] and result["candidates"] == []
    assert "valid_examples[0]" in result["explanation"] and "same syntax tree" in result["explanation"]


def test_valid_example_containing_the_invalid_construct_is_named(ws: Workspace, engine: Engine) -> None:
    result = suggest_rule(ws, engine, "python", ["eval(data)"], ["eval(data)\nprint('checked')"])
    assert not result["success"] and result["candidates"] == []
    assert "valid_examples[0] cannot be separated" in result["explanation"]
    assert "`eval(data)`" in result["explanation"]


def test_thirty_line_examples(ws: Workspace, engine: Engine) -> None:
    """The latency case of bin/bench (B7): an eval buried in 30 lines is found, nothing of the shared code."""
    from bin.bench_suggest import examples

    invalid, valid = examples()
    best = _best(ws, engine, language="python", invalid_examples=invalid, valid_examples=valid)
    assert "pattern: eval($$$ARGS)" in str(best["yaml"]), best["yaml"]


def test_context_separates_with_inside(ws: Workspace, engine: Engine) -> None:
    best = _best(ws, engine, language="python", invalid_examples=["def f():\n    eval(data)"],
                 valid_examples=["if __debug__:\n    eval(data)"])
    assert "inside" in str(best["yaml"]) and best["form"] == "pattern + inside/not inside"


@pytest.mark.parametrize("bad", [
    {"language": "klingon", "invalid_examples": ["x"]},
    {"language": "python", "invalid_examples": []},
    {"language": "python", "invalid_examples": ["x"], "severity": "fatal"},
    {"language": "python", "invalid_examples": ["x"], "rule_id": "bad id"},
    {"language": "python", "invalid_examples": ["x"], "max_candidates": 99},
    {"language": "python", "invalid_examples": ["x"], "path": "a.js"},
    {"language": "python", "invalid_examples": ["x"], "fix_examples": [{"before": 1, "after": "y"}]},
])
def test_bad_input_is_refused_with_bad_input(ws: Workspace, engine: Engine, bad: dict[str, object]) -> None:
    with pytest.raises(BadInput):
        suggest_rule(ws, engine, **bad)  # type: ignore[arg-type]


def test_cli_prints_json_and_exit_codes(ws: Workspace) -> None:
    base = [sys.executable, "-m", "sgtools", "rule", "suggest", "--root", str(ws.root), "-l", "javascript"]
    found = subprocess.run([*base, "--invalid", "console.log(a)", "--invalid", "console.log(b, c)",
                            "--valid", "logger.info(a)", "--json"], capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert data["candidates"][0]["yaml"].count("console.log($$$ARGS)") == 2  # message and pattern
    none = subprocess.run([*base, "--invalid", "a(b)", "--valid", "a(b)"], capture_output=True, text=True,
                          timeout=60)
    assert none.returncode == 1 and "No rule found" in none.stdout
    bad = subprocess.run([*base, "--invalid", "x", "--max-candidates", "0"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("[bad-input]")
