"""suggest_rule over a real MCP stdio session: the rule it returns is saved with add_or_update_rule and fires."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import ok, stdio_client, text

pytestmark = pytest.mark.anyio


async def _saved_then_flags(client: Any, best: dict[str, Any], code: str, language: str) -> list[str]:
    """Save the candidate with add_or_update_rule (on the examples it was checked on); the rule ids scan_code
    then reports in `code`."""
    await ok(client, "initialize_ast_grep")
    saved = await ok(client, "add_or_update_rule", {
        "rule_id": best["rule_id"], "rule_yaml": best["yaml"], "invalid_examples": best["checked"]["invalid"],
        "valid_examples": best["checked"]["valid"]})
    assert saved["success"] is True, saved
    scan = await ok(client, "scan_code", {"code": code, "language": language})
    return [i["ruleId"] for i in scan["issues"]]


@pytest.mark.slow
async def test_suggest_then_save_the_rule(root: Path, server_env: dict[str, str]) -> None:
    invalid = ["const cfg = eval(input);", "eval(readFile(path) + suffix)"]
    valid = ["const cfg = JSON.parse(input);", "evaluate(x)"]
    async with stdio_client(root, server_env) as client:
        got = await ok(client, "suggest_rule", {
            "language": "javascript", "invalid_examples": invalid, "valid_examples": valid,
            "rule_id": "no-eval", "fix_examples": [{"before": "eval(data)", "after": "JSON.parse(data)"}]})
        assert got["success"] is True and got["candidates"], got
        best = got["candidates"][0]
        assert best["rule_id"] == "no-eval" and "pattern: eval($$$ARGS)" in best["yaml"], best["yaml"]
        assert "fix: JSON.parse($$$ARGS)" in best["yaml"]
        assert best["checked"]["valid"] == valid and set(invalid) <= set(best["checked"]["invalid"])
        assert await _saved_then_flags(client, best, "x = eval(y)\n", "javascript") == ["no-eval"]
        none = await client.call_tool("suggest_rule", {"language": "python", "invalid_examples": ["x = 1"],
                                                        "valid_examples": ["x  =  1"]})
        assert not none.is_error and none.structured_content is not None
        assert none.structured_content["success"] is False and none.structured_content["candidates"] == []
        assert "same code" in none.structured_content["explanation"] and "No rule found" in text(none)


@pytest.mark.slow
async def test_the_agents_draft_is_proven_and_offered_first(root: Path, server_env: dict[str, str]) -> None:
    """The agent drafts (`draft_rule`), the tool proves: over a real stdio session, a draft that generalises is the
    first candidate; one that flags a valid example is not offered, and the text answer says why."""
    args = {"language": "python", "invalid_examples": ["r = requests.get(url)", "requests.get(API, headers=h)"],
            "valid_examples": ["requests.get(url, timeout=5)", "requests.get(API, headers=h, timeout=3)"],
            "request": "requests.get needs a timeout"}
    draft = ("rule:\n  pattern: requests.get($$$A)\n  not:\n    has: {kind: keyword_argument, stopBy: end, "
             "has: {field: name, regex: ^timeout$}}\n")
    async with stdio_client(root, server_env) as client:
        got = await ok(client, "suggest_rule", {**args, "draft_rule": draft})
        assert got["candidates"][0]["form"].startswith("your draft"), got["candidates"][0]
        assert "regex: ^timeout$" in got["candidates"][0]["yaml"]
        loose = await client.call_tool("suggest_rule", {**args, "draft_rule": "rule: {pattern: requests.get($$$A)}"})
        assert not loose.is_error and loose.structured_content is not None
        assert not loose.structured_content["candidates"][0]["form"].startswith("your draft")
        assert "The rule drafted by you is not offered: flags valid_examples[0, 1]" in text(loose)


@pytest.mark.slow
async def test_a_known_rule_is_offered_first_and_saved(root: Path, server_env: dict[str, str]) -> None:
    """Over a real stdio session, a request everyone makes gets the rule already written for it, proven on the
    examples; saved, it flags a spelling of the request that no example showed."""
    args = {"language": "go", "invalid_examples": ['func f() { fmt.Println("x") }', 'func g() { fmt.Printf("%d", n) }'],
            "valid_examples": ['func f() { log.Info("x") }', 'func g() { s := fmt.Sprintf("%d", n) }'],
            "request": "no fmt.Println, use the logger", "rule_id": "no-fmt-print"}
    async with stdio_client(root, server_env) as client:
        got = await ok(client, "suggest_rule", args)
        best = got["candidates"][0]
        assert best["form"] == "a known rule (`no-fmt-print`), proven on the examples", best
        code = 'package p\n\nfunc h() { fmt.Print("y") }\n'
        assert await _saved_then_flags(client, best, code, "go") == ["no-fmt-print"]
