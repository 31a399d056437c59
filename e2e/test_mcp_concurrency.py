"""Four client sessions at once over HTTP, 200 calls in all, each session adding, scanning and removing its own
rules: no call fails and no write is lost (the final rule set is exactly what the sessions left behind)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client

from e2e.conftest import http_client, http_server, ok

pytestmark = [pytest.mark.anyio, pytest.mark.slow]  # four sessions, two hundred calls

SESSIONS = 4
ROUNDS = 10  # five calls per round: 4 sessions x 10 rounds x 5 calls = 200 calls


def _rule(session: int, n: int) -> tuple[str, str, str]:
    rule_id = f"s{session}-r{n}"
    fn = f"banned_{session}_{n}"
    yaml = (f"id: {rule_id}\nlanguage: javascript\nseverity: warning\nmessage: do not call {fn}\n"
            f"rule:\n  pattern: {fn}($$$ARGS)\n")
    return rule_id, yaml, f"{fn}(1, 2);\n"


async def _session(url: str, session: int, calls: list[str]) -> None:
    async with http_client(url) as client:
        for n in range(ROUNDS):
            await _round(client, session, n, calls)


async def _round(client: Client, session: int, n: int, calls: list[str]) -> None:
    rule_id, yaml, code = _rule(session, n)
    added = await ok(client, "add_or_update_rule", {"rule_id": rule_id, "rule_yaml": yaml,
                                                    "invalid_examples": [code], "valid_examples": ["other(1);"]})
    assert added["path"] == f"rules/{rule_id}.yml"
    found = await ok(client, "scan_code", {"code": code, "language": "javascript"})
    assert rule_id in {d["ruleId"] for d in found["issues"]}, found
    explained = await ok(client, "list_rules", {"rule_id": rule_id})
    assert explained["rule"]["id"] == rule_id
    if n % 2 == 0:
        removed = await ok(client, "remove_rule", {"rule_id": rule_id})
        assert f"rules/{rule_id}.yml" in removed["removed"]
        clean = await ok(client, "scan_code", {"code": code, "language": "javascript"})
        assert rule_id not in {d["ruleId"] for d in clean["issues"]}
        calls.extend(["add", "scan", "explain", "remove", "scan"])
    else:
        listed = await ok(client, "list_rules", {"language": "javascript"})
        assert rule_id in {r["id"] for r in listed["rules"]}
        matches = await ok(client, "find_code", {"pattern": f"banned_{session}_{n}($$$A)", "language": "javascript"})
        assert matches["matches"] == []  # nothing on disk calls it
        calls.extend(["add", "scan", "explain", "list", "find"])


async def test_four_sessions_two_hundred_calls(root: Path, server_env: dict[str, str], tmp_path: Path) -> None:
    with http_server(root, server_env, log=tmp_path / "server.log") as server:
        async with http_client(server.url) as setup:
            await ok(setup, "initialize_ast_grep")
        calls: list[str] = []
        with anyio.fail_after(600):
            async with anyio.create_task_group() as tg:
                for session in range(SESSIONS):
                    tg.start_soon(_session, server.url, session, calls)
        assert len(calls) == 200
        async with http_client(server.url) as check:
            listed = await ok(check, "list_rules")
        expected = {f"s{s}-r{n}" for s in range(SESSIONS) for n in range(ROUNDS) if n % 2 == 1}
        assert {r["id"] for r in listed["rules"]} == expected
        assert listed["ruleErrors"] == []
        on_disk = {p.stem for p in (root / "rules").glob("*.yml")}
        assert on_disk == expected
        assert "Traceback" not in server.stderr()
