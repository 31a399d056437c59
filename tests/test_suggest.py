"""suggest_rule: rules generalised from examples and proven with the real ast-grep binary."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sgtools.core.errors import BadInput
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.rule_testing import test_rule as run_test_rule
from sgtools.workflows.suggest.service import suggest_rule

# These tests are about the generaliser's own rules: no known rule is offered (conftest.ws, the marker).
pytestmark = pytest.mark.generaliser


def _best(ws: Workspace, engine: Engine, **req: object) -> dict[str, object]:
    result = suggest_rule(ws, engine, **req)  # type: ignore[arg-type]
    assert result["success"], result.get("explanation")
    return dict(result["candidates"][0])


def test_differences_become_metavariables_and_shared_code_stays(ws: Workspace, engine: Engine) -> None:
    best = _best(ws, engine, language="python", invalid_examples=["subprocess.call(cmd, shell=True)",
                                                                  "subprocess.run(args, shell=True, check=True)"],
                 valid_examples=["subprocess.run(args)", "subprocess.run(args, shell=False)"])
    # `shell=True` as a pattern, or `keyword_argument` with `shell` and `True` (issue 29: kind + has is preferred to
    # a context copied from the example): either way the rule is about that argument.
    assert "shell=True" in str(best["yaml"]) or ("^shell$" in str(best["yaml"]) and "^True$" in str(best["yaml"]))
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
    # inferred from examples, nothing proves it: the rule says unsafe (issue 30), so no default --fix applies it
    assert "fixSafety: unsafe" in str(best["yaml"])


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


def test_broken_example_is_named_in_the_explanation(ws: Workspace, engine: Engine) -> None:
    result = suggest_rule(ws, engine, "python", ["def f(:\n    eval(x)", "eval(y"], ["print(1)"])
    assert not result["success"] and result["candidates"] == []
    assert "does not parse cleanly" in result["explanation"], result["explanation"]


def test_path_picks_tsx(ws: Workspace, engine: Engine) -> None:
    best = _best(ws, engine, language="tsx", path="src/App.tsx",
                 invalid_examples=["const a = <div dangerouslySetInnerHTML={{__html: x}} />"],
                 valid_examples=["const a = <div>{x}</div>"])
    assert "dangerouslySetInnerHTML" in str(best["yaml"]) and "language: tsx" in str(best["yaml"])
    with pytest.raises(BadInput, match="not a tsx file"):
        suggest_rule(ws, engine, "tsx", ["<a/>"], path="src/App.ts")


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


@pytest.mark.slow
def test_cli_prints_json_and_exit_codes(ws: Workspace) -> None:
    base = [sys.executable, "-m", "sgtools", "rule", "suggest", "--root", str(ws.root), "-l", "javascript"]
    found = subprocess.run([*base, "--invalid", "console.log(a)", "--invalid", "console.log(b, c)",
                            "--valid", "logger.info(a)", "--fix", "console.log(z)", "logger.debug(z)", "--json"],
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert data["candidates"][0]["yaml"].count("console.log($$$ARGS)") == 2  # message and pattern
    assert data["candidates"][0]["fix"] == "logger.debug($$$ARGS)"
    assert "console.log(z)" in data["candidates"][0]["checked"]["invalid"]
    none = subprocess.run([*base, "--invalid", "a(b)", "--valid", "a(b)"], capture_output=True, text=True,
                          timeout=60)
    assert none.returncode == 1 and "No rule found" in none.stdout
    bad = subprocess.run([*base, "--invalid", "x", "--max-candidates", "0"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("[bad-input]")


def test_generalisation_keeps_shared_items_and_abstracts_the_rest(ws: Workspace, engine: Engine) -> None:
    from sgtools.workflows.suggest.roots import generalisations
    from sgtools.workflows.suggest.tree import read_examples

    def patterns(lang: str, *codes: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for gen in generalisations(read_examples(engine, ws.root, lang, list(codes))):
            out.setdefault(gen.root.kind, set()).update(gen.alternatives)
        return out

    calls = patterns("python", "requests.get(u, verify=False)", "requests.get(api, timeout=3, verify=False)")["call"]
    assert "requests.get($$$ARGS, verify=False)" in calls  # the shared keyword argument stays, in place
    mixed = patterns("python", "f(a, x)", "f(b, x, 2)")["call"]
    assert not any(p.endswith("x, $$$ARGS2)") for p in mixed)  # ast-grep's `x, $$$B` needs one item: no anchor
    loops = patterns("javascript", "for (const i in a) { g(i) }", "for (let k in b) { g(k) }")["for_in_statement"]
    assert any("const" in p for p in loops) and any("let" in p for p in loops)


def test_construct_used_correctly_elsewhere_is_separated_by_its_context(ws: Workspace, engine: Engine) -> None:
    """`defer` is fine on its own and wrong in a loop: the rule is `defer` inside a loop, not incidental code."""
    best = _best(ws, engine, language="go", invalid_examples=[
        "package main\nfunc f(files []F) { for _, f := range files { defer f.Close() } }",
        "package main\nfunc g() { for i := 0; i < n; i++ { defer unlock(i) } }"],
        valid_examples=["package main\nfunc g(f F) { defer f.Close() }"])
    # `defer $A` keeps only its keyword: the kind says it (issue 29's contexts, tests/test_suggest_contexts.py).
    assert "kind: defer_statement" in str(best["yaml"]) and "kind: for_statement" in str(best["yaml"]), best["yaml"]
    held = run_test_rule(ws, engine, str(best["yaml"]),
                         invalid_examples=["package main\nfunc h(xs []X) { for _, x := range xs { defer x.Done() } }"],
                         valid_examples=["package main\nfunc h(x X) { defer x.Done() }"])
    assert held["success"], held


def test_literals_that_share_a_prefix_are_pinned_with_regex(ws: Workspace, engine: Engine) -> None:
    best = _best(ws, engine, language="python", invalid_examples=['key = "AKIAQWERTYUIOPASDFGH"',
                                                                  'aws_key = "AKIAZXCVBNMLKJHGFDSA"'],
                 valid_examples=['key = os.environ["AWS"]', 'name = "bob"'])
    # Any opening quote: Python writes the same string with either (literal_kinds.py).
    assert "^[\"'`]AKIA" in str(best["yaml"]) and "kind: string" in str(best["yaml"]), best["yaml"]
    assert run_test_rule(ws, engine, str(best["yaml"]), invalid_examples=['k = "AKIA0000111122223333"',
                                                                          "k = 'AKIA0000111122223333'"],
                         valid_examples=['k = "AK"'])["success"]


def test_one_shared_start_helper_for_regex_pins_and_name_regexes() -> None:
    """The candidates' regex pins and the author's name regexes find a shared start with one helper (they had a
    copy each); reversed texts give the shared end."""
    from sgtools.workflows.suggest import author, roots

    assert author.common_prefix is roots.common_prefix
    assert roots.common_prefix(["AKIA123", "AKIA999", "AKIAx"]) == "AKIA"
    assert roots.common_prefix(["abc", "xyz"]) == ""
    assert roots.common_prefix(["same", "same"]) == "same"
    assert roots.common_prefix([t[::-1] for t in ("load_json", "dump_json")])[::-1] == "_json"


def test_candidates_and_the_proof_write_their_rules_through_one_temp_file_removed_after() -> None:
    """verify.rules_file: each body under its id with the language and `severity: hint`, one YAML document each,
    in the private temp directory; the file is gone once the scan is done, also when it raises."""
    from sgtools.core.yamlio import load_all
    from sgtools.workflows.suggest.verify import rules_file

    bodies = {"c0": {"rule": {"kind": "call"}}, "c3": {"rule": {"pattern": "f($A)"}}}
    with rules_file("python", bodies, "suggest-") as path:
        assert path.name.startswith("suggest-") and path.suffix == ".yml"
        docs = load_all(path.read_text(encoding="utf-8"))
    assert [d["id"] for d in docs] == ["c0", "c3"]
    assert docs[1] == {"id": "c3", "language": "python", "severity": "hint", "rule": {"pattern": "f($A)"}}
    assert not path.exists()
    with pytest.raises(RuntimeError), rules_file("python", bodies, "suggest-proof-") as failing:
        raise RuntimeError
    assert not failing.exists()
