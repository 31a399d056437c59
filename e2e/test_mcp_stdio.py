"""The MCP server over stdio, driven by the SDK's own client against `python -m sgtools serve`."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from e2e.conftest import (
    EVAL_CODE,
    NO_EVAL_RULE,
    fails,
    ok,
    serve_command,
    stdio_client,
    whole_story,
)
from sgtools.project import config as project
from sgtools.project.workspace import Workspace

pytestmark = pytest.mark.anyio

WRITE_ONLY = {"initialize_ast_grep", "add_or_update_rule", "remove_rule", "import_community_rule"}


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
async def test_whole_story_over_stdio(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        await whole_story(client, root)


@pytest.mark.slow
async def test_read_only_hides_writers_and_refuses_apply(root: Path, server_env: dict[str, str],
                                                          tmp_path: Path) -> None:
    # Set up a project with a rule and a source file while the server is writable.
    async with stdio_client(root, server_env) as client:
        await ok(client, "initialize_ast_grep")
    (root / "rules" / "no-eval.yml").write_text(NO_EVAL_RULE)
    (root / "src").mkdir()
    (root / "src" / "app.js").write_text(EVAL_CODE)
    before = _snapshot(root)

    with (tmp_path / "stderr.log").open("w") as errlog:
        async with stdio_client(root, server_env, "--read-only", errlog=errlog) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert WRITE_ONLY.isdisjoint(listed)
            assert {"find_code", "apply_fixes", "scan_code", "server_info"} <= set(listed)
            # With writes refused, the apply tools only read: their annotations say so.
            for name in ("find_code", "apply_fixes"):
                annotations = listed[name].annotations
                assert annotations is not None and annotations.read_only_hint is True
            for name in sorted(WRITE_ONLY):
                body = await fails(client, name, {"rule_id": "no-eval", "rule_yaml": NO_EVAL_RULE}
                                   if name == "add_or_update_rule" else
                                   {"rule_id": "no-eval"} if name != "initialize_ast_grep" else {}, "read-only")
                assert "--read-only" in body
            await fails(client, "find_code", {"pattern": "eval($X)", "rewrite": "JSON.parse($X)",
                                                 "language": "javascript", "apply": True}, "read-only")
            await fails(client, "apply_fixes", {"apply": True}, "read-only")
            info = await ok(client, "server_info")
            assert info["readOnly"] is True
            if _has("sgtools.edit.structural"):
                dry = await ok(client, "find_code", {"pattern": "eval($X)", "rewrite": "JSON.parse($X)",
                                                        "language": "javascript"})
                assert dry["applied"] is False and "JSON.parse(input)" in dry["diff"]
    assert _snapshot(root) == before


@pytest.mark.slow
async def test_stdout_carries_only_protocol_messages(root: Path, server_env: dict[str, str]) -> None:
    """Raw JSON-RPC over the pipe: every stdout line is a protocol message, logs (INFO here) go to stderr."""
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "scan_code", "arguments": {"language": "python"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "add_or_update_rule", "arguments": {"rule_id": "x", "rule_yaml": "id: x"}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "server_info", "arguments": {}}},
    ]
    replies, stderr = _raw_session(serve_command(root), messages, server_env)
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3, 4, 5}
    assert len(by_id[2]["result"]["tools"]) == 14
    bad = by_id[3]["result"]
    assert bad["isError"] is True and bad["content"][0]["text"].startswith("[bad-input]")
    missing = by_id[4]["result"]
    assert missing["isError"] is True and missing["content"][0]["text"].startswith("[config-missing]")
    assert by_id[5]["result"]["structuredContent"]["root"] == str(root.resolve())
    assert "scan_code" in stderr  # the refusal was logged, on stderr


@pytest.mark.slow
async def test_resources_and_prompts(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"sgtools://project/sgconfig.yml", "sgtools://guide/writing-rules"} <= uris
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert "sgtools://rules/{rule_id}" in templates

        guide = await client.read_resource("sgtools://guide/writing-rules")
        guide_text = getattr(guide.contents[0], "text", "")
        assert "test_rule" in guide_text and "dump_syntax_tree" in guide_text
        assert guide_text.index("suggest_rule") < guide_text.index("dump_syntax_tree")  # the guide leads with it

        with pytest.raises(Exception, match="config-missing"):
            await client.read_resource("sgtools://project/sgconfig.yml")
        await ok(client, "initialize_ast_grep")
        config = await client.read_resource("sgtools://project/sgconfig.yml")
        assert "ruleDirs" in getattr(config.contents[0], "text", "")

        (root / "rules" / "no-eval.yml").write_text(NO_EVAL_RULE)
        if _has("sgtools.rules.store"):
            listed = {str(r.uri): r for r in (await client.list_resources()).resources}
            assert "sgtools://rules/no-eval" in listed and listed["sgtools://rules/no-eval"].name == "no-eval"
            rule = await client.read_resource("sgtools://rules/no-eval")
            assert "pattern: eval($CODE)" in getattr(rule.contents[0], "text", "")
            with pytest.raises(Exception, match="not-found"):
                await client.read_resource("sgtools://rules/no-such-rule")

        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(prompts) == {"rule_from_feedback", "review_code"}
        feedback = await client.get_prompt("rule_from_feedback", {"feedback": "never use eval", "language": "js"})
        body = getattr(feedback.messages[0].content, "text", "")
        assert "never use eval" in body and "test_rule" in body and "add_or_update_rule" in body
        assert body.index("suggest_rule") < body.index("add_or_update_rule")
        review = await client.get_prompt("review_code", {"path": "src"})
        assert "scan_code" in getattr(review.messages[0].content, "text", "")


@pytest.mark.slow
async def test_root_comes_from_sgtools_root_then_cwd(root: Path, server_env: dict[str, str]) -> None:
    command = [sys.executable, "-m", "sgtools", "serve"]
    replies, _ = _raw_session(command, _one_call("server_info"), {**server_env, "SGTOOLS_ROOT": str(root)}, cwd="/")
    assert replies[-1]["result"]["structuredContent"]["root"] == str(root.resolve())
    replies, _ = _raw_session(command, _one_call("server_info"), server_env, cwd=root)
    assert replies[-1]["result"]["structuredContent"]["root"] == str(root.resolve())


@pytest.mark.slow
async def test_missing_root_is_a_usage_error(tmp_path: Path, server_env: dict[str, str]) -> None:
    proc = subprocess.run(serve_command(tmp_path / "nope"), capture_output=True, text=True, env=server_env,
                          timeout=60, input="")
    assert proc.returncode == 2 and proc.stderr.startswith("[bad-input]") and proc.stdout == ""


@pytest.mark.slow
async def test_context_sherpa_command_is_serve_on_stdio(root: Path, server_env: dict[str, str]) -> None:
    exe = Path(sys.executable).with_name("context-sherpa")
    if not exe.exists():
        pytest.skip("the context-sherpa console script is not installed in this environment")
    replies, stderr = _raw_session([str(exe), "--root", str(root)], _one_call("server_info"), server_env)
    assert replies[-1]["result"]["structuredContent"]["root"] == str(root.resolve()), stderr


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _raw_session(command: list[str], messages: list[dict[str, Any]], env: dict[str, str],
                 cwd: str | Path | None = None) -> tuple[list[dict[str, Any]], str]:
    """Write JSON-RPC lines, read stdout until every request is answered, then close stdin (which ends the
    server). Every stdout line must be one JSON-RPC message."""
    wanted = {m["id"] for m in messages if "id" in m}
    replies: list[dict[str, Any]] = []
    # stderr goes to a file, not a pipe: logs can never block the server while we read stdout.
    with tempfile.TemporaryFile("w+") as errlog:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog,
                                env=env, cwd=cwd, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        timer = threading.Timer(60, proc.kill)
        timer.start()
        try:
            for message in messages:
                proc.stdin.write(json.dumps(message) + "\n")
                proc.stdin.flush()
                if "id" in message:  # one request at a time, like a simple client
                    while True:
                        line = proc.stdout.readline()
                        assert line, "server closed stdout early"
                        reply = json.loads(line)
                        assert reply.get("jsonrpc") == "2.0", line
                        replies.append(reply)
                        if reply.get("id") == message["id"]:
                            break
            proc.stdin.close()
            rest = proc.stdout.read()
            proc.wait()
        finally:
            timer.cancel()
        errlog.seek(0)
        stderr = errlog.read()
    assert [json.loads(ln) for ln in rest.splitlines() if ln.strip()] == []
    assert proc.returncode == 0, stderr
    assert {r["id"] for r in replies if "id" in r} == wanted
    return replies, stderr


def _one_call(tool: str, arguments: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments or {}}},
    ]


@pytest.mark.slow
async def test_tool_timeout_comes_from_settings(root: Path, server_env: dict[str, str]) -> None:
    """SGTOOLS_TOOL_TIMEOUT reaches the per-call deadline; a timed-out call is a [timeout] result, not a hang."""
    (root / "src").mkdir()
    for i in range(200):
        (root / "src" / f"m{i}.js").write_text(EVAL_CODE * 50)
    impatient_env = {**server_env, "SGTOOLS_TOOL_TIMEOUT": "0.001"}
    async with stdio_client(root, server_env) as client:
        await ok(client, "initialize_ast_grep")
    (root / "rules" / "no-eval.yml").write_text(NO_EVAL_RULE)
    async with stdio_client(root, impatient_env) as client:
        body = await fails(client, "scan_code", {}, "timeout")
        assert "SGTOOLS_TOOL_TIMEOUT" in body
        assert len((await client.list_tools()).tools) == 14  # still serving


@pytest.mark.slow
async def test_log_level_flag_beats_env(root: Path, server_env: dict[str, str]) -> None:
    calls = _one_call("scan_code", {"language": "python"})  # refused for missing `code`: logged at INFO
    _, chatty = _raw_session(serve_command(root), calls, server_env)  # SGTOOLS_LOG_LEVEL=INFO
    assert "tool scan_code refused: [bad-input]" in chatty
    _, quiet = _raw_session(serve_command(root, "--log-level", "error"), calls, server_env)
    assert "refused" not in quiet
    env = {**server_env, "SGTOOLS_LOG_LEVEL": "loud"}
    proc = subprocess.run(serve_command(root), capture_output=True, text=True, env=env, timeout=60, input="")
    assert proc.returncode == 2 and proc.stderr.startswith("[bad-input] SGTOOLS_LOG_LEVEL='LOUD'")


@pytest.mark.slow
async def test_blocked_write_times_out_and_an_abandoned_call_does_not_stall_the_server(
        root: Path, server_env: dict[str, str]) -> None:
    """Another process holds the workspace write lock: the tool deadline answers [timeout] long before the lock
    wait would give up, and a call the client abandons (read timeout, so it sends notifications/cancelled) leaves
    the session answering at once."""
    ws = Workspace(root)
    project.initialize(ws)
    args = {"rule_id": "no-eval", "rule_yaml": NO_EVAL_RULE}
    # The tool deadline (5 s) is far below the lock wait (60 s) and far above what server_info takes on a loaded
    # machine: the calls that must answer run under the same deadline (at 1.5 s a slow server_info could time out).
    env = {**server_env, "SGTOOLS_TOOL_TIMEOUT": "5", "SGTOOLS_LOCK_TIMEOUT": "60"}
    async with stdio_client(root, env) as client:
        await ok(client, "server_info")
        with ws.lock():
            started = time.monotonic()
            body = await fails(client, "add_or_update_rule", args, "timeout")
            assert time.monotonic() - started < 30 and "may still complete" in body  # the lock wait is 60 s
            with pytest.raises(MCPError):
                await client.call_tool("remove_rule", {"rule_id": "no-eval"}, read_timeout_seconds=0.5)
            started = time.monotonic()
            assert (await ok(client, "server_info"))["config"] == "sgconfig.yml"
            assert time.monotonic() - started < 30  # a hang guard: the abandoned call waits 60 s for the lock


@pytest.mark.slow
async def test_rewrite_and_fixes_write_only_when_applied(root: Path, server_env: dict[str, str]) -> None:
    project.initialize(Workspace(root))
    (root / "rules" / "no-eval.yml").write_text(NO_EVAL_RULE)
    (root / "src").mkdir()
    app = root / "src" / "app.js"
    app.write_text(EVAL_CODE + "alert(1);\n")
    async with stdio_client(root, server_env) as client:
        # NO_EVAL_RULE declares no fixSafety, so its fix is unsafe (issue 30): include_unsafe applies it.
        dry = await ok(client, "apply_fixes", {"include_unsafe": True})
        assert dry["applied"] is False and dry["changedFiles"] == ["src/app.js"] and "JSON.parse(input)" in dry["diff"]
        assert app.read_text() == EVAL_CODE + "alert(1);\n"
        done = await ok(client, "apply_fixes", {"apply": True, "include_unsafe": True})
        assert done["applied"] is True and done["fixesApplied"] == 1
        assert app.read_text() == "const config = JSON.parse(input);\nalert(1);\n"
        rewrite = {"pattern": "alert($X)", "rewrite": "console.warn($X)", "language": "javascript"}
        assert (await ok(client, "find_code", rewrite))["applied"] is False
        assert "alert(1)" in app.read_text()
        applied = await ok(client, "find_code", {**rewrite, "apply": True})
        assert applied["applied"] is True and applied["changes"]
        assert app.read_text() == "const config = JSON.parse(input);\nconsole.warn(1);\n"
        assert (await ok(client, "scan_code", {}))["success"] is True
