"""The stdio fast path for `tools/call` (server/fastcall.py) answers what the SDK answers, byte for byte: the same
sessions run against a server with it and one without it (e2e/fastcall_probe.py records every line the server
writes), over the SDK client's whole story and over raw JSON-RPC with the requests the fast path must leave to
the SDK. The fast path must have taken the calls (a server without it fails the counts), and a call it runs is
cancelled, ended by the end of stdin, and runs beside others as the SDK's would. Real servers, real ast-grep."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client

from e2e.conftest import EVAL_CODE, NO_EVAL_RULE, whole_story
from e2e.test_lifecycle import MARKER, kill_leftovers, settle, slow_project

pytestmark = [pytest.mark.slow]

PROBE = Path(__file__).with_name("fastcall_probe.py")
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.fixture
def marker() -> Iterator[str]:
    value = uuid.uuid4().hex
    yield value
    kill_leftovers(value)


def _command(root: Path) -> list[str]:
    return [sys.executable, str(PROBE), "serve", "--root", str(root)]


def _env(server_env: dict[str, str], tmp: Path, off: bool) -> dict[str, str]:
    return {**server_env, "FASTCALL_LOG": str(tmp / "out.jsonl"), "FASTCALL_COUNTS": str(tmp / "counts.json"),
            "FASTCALL_OFF": "1" if off else "0", "SGTOOLS_LOG_LEVEL": "warning"}


def _call(msg_id: Any, name: str, arguments: Any, **extra: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments, "_meta": ENVELOPE, **extra}
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": params}


class Raw:
    """A server spoken to in raw JSON-RPC lines."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(_command(root), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.lines: list[bytes] = []
        self.timer = threading.Timer(120, self.proc.kill)  # a hang guard
        self.timer.start()

    def send(self, msg: dict[str, Any] | str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((msg if isinstance(msg, str) else json.dumps(msg)).encode() + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the server closed stdout"
        self.lines.append(line)
        reply: dict[str, Any] = json.loads(line)
        return reply

    def end(self) -> list[dict[str, Any]]:
        """Close stdin; what the server still writes before it exits."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.proc.wait()
        self.timer.cancel()
        assert self.proc.returncode == 0
        self.lines += rest.splitlines(keepends=True)
        return [json.loads(line) for line in rest.splitlines()]


def _counts(tmp: Path) -> dict[str, int]:
    counts: dict[str, int] = json.loads((tmp / "counts.json").read_text())
    return counts


def _both(tmp_path: Path, server_env: dict[str, str], setup: Any, session: Any) -> dict[bool, dict[str, int]]:
    """`session(root, env)` run against a server without the fast path, then with it, each on a fresh project
    made by `setup(root)` at the same path; the lines each server wrote must be the same bytes."""
    written: dict[bool, bytes] = {}
    counts: dict[bool, dict[str, int]] = {}
    root = tmp_path / "proj"
    for off in (True, False):
        run = tmp_path / ("off" if off else "on")
        run.mkdir()
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir()
        setup(root)
        session(root, _env(server_env, run, off))
        written[off] = (run / "out.jsonl").read_bytes()
        counts[off] = _counts(run)
    assert written[False] == written[True]
    return counts


def test_the_sdk_clients_whole_story_gets_the_same_bytes_with_the_calls_taken_by_the_fast_path(
        tmp_path: Path, server_env: dict[str, str]) -> None:
    async def story(root: Path, env: dict[str, str]) -> None:
        params = StdioServerParameters(command=sys.executable, args=_command(root)[1:], env=env)
        async with Client(sdk_stdio_client(params, errlog=sys.stderr)) as client:
            await whole_story(client, root)

    counts = _both(tmp_path, server_env, lambda root: None, lambda root, env: anyio.run(story, root, env))
    assert counts[True] == {"sdk": 10, "fast": 0}  # the SDK client speaks the 2026 protocol: no handshake
    assert counts[False] == {"sdk": 0, "fast": 10}


def _project(root: Path) -> None:
    (root / "rules").mkdir()
    (root / "sgconfig.yml").write_text("ruleDirs:\n- rules\n", encoding="utf-8")
    (root / "rules" / "no-eval.yml").write_text(NO_EVAL_RULE, encoding="utf-8")


# Requests the fast path must leave to the SDK, among calls it takes; each answered alike either way.
EDGES: list[dict[str, Any] | str] = [
    _call(1, "scan_code", {"code": EVAL_CODE, "language": "javascript"}),  # the opening request: the SDK's
    _call(2, "scan_code", {"code": EVAL_CODE, "language": "javascript"}),  # findings, a verified fix-it
    _call("3", "scan_code", {"code": "x = 1;\n", "language": "javascript"}),  # clean; a string id
    _call(4, "scan_code", {"language": "javascript"}),  # [bad-input]: an isError result
    _call(5, "scan_code", None),  # arguments null: the tool's own refusal
    _call(6, "no_such_tool", {}),  # unknown: the SDK's answer
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"arguments": {}, "_meta": ENVELOPE}},  # no name
    _call(8, "scan_code", {"code": "x", "language": "javascript"}, task={"ttl": 1000}),  # a params key not ours
    _call(9, "scan_code", [1, 2]),  # arguments not an object: refused by the protocol surface
    {"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "scan_code", "arguments": {}}},  # no _meta
    _call(11, "scan_code", {}, _meta={**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "1999-01-01"}),
    {"jsonrpc": "2.0", "id": 12, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
    _call(13, "server_info", {"verbose": "yes"}),  # coerced arguments refused by the tool's schema
    _call(14, "list_rules", {}),
]


def test_raw_requests_get_the_same_bytes_and_only_plain_calls_take_the_fast_path(
        tmp_path: Path, server_env: dict[str, str]) -> None:
    def session(root: Path, env: dict[str, str]) -> None:
        raw = Raw(root, env)
        for msg in EDGES:
            raw.send(msg)
            raw.reply()
        assert raw.end() == []

    counts = _both(tmp_path, server_env, _project, session)
    # taken: 2, "3", 4, 5, 13, 14; the opening call (1), the unknown tool (6) and every refused request: the SDK
    assert counts[False]["fast"] == 6 and counts[True]["fast"] == 0


@pytest.mark.parametrize("version", ["2025-06-18", "2024-11-05"])  # the latter has no structuredContent
def test_a_handshake_connection_is_served_after_the_sdk_accepted_initialize(
        tmp_path: Path, server_env: dict[str, str], version: str) -> None:
    def init(msg_id: int, proposed: str) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": {
            "protocolVersion": proposed, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}

    def plain(msg_id: Any, name: str, arguments: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}

    scan = {"code": EVAL_CODE, "language": "javascript"}
    messages: list[dict[str, Any]] = [
        plain(1, "scan_code", scan),  # before initialize: the SDK's gate refuses it
        init(0, version),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        plain(2, "scan_code", scan),  # taken
        _call(3, "list_rules", {}),  # a 2026 envelope on a handshake connection: the SDK refuses it
        plain("4", "list_rules", {}),  # taken
        plain(5, "scan_code", [1]),  # refused by the protocol surface: the SDK's answer
        init(6, "2025-03-26"),  # a second initialize: the SDK's alone from then on
        plain(7, "list_rules", {}),
    ]

    def session(root: Path, env: dict[str, str]) -> None:
        raw = Raw(root, env)
        for msg in messages:
            raw.send(msg)
            if "id" in msg:
                raw.reply()
        assert raw.end() == []

    counts = _both(tmp_path, server_env, _project, session)
    assert counts[True] == {"sdk": 3, "fast": 0}
    assert counts[False] == {"sdk": 1, "fast": 2}


def _slow_call(msg_id: int | str) -> dict[str, Any]:
    """A call that runs for minutes (tests/e2e lifecycle's quadratic rule over a 3,000-line file)."""
    return _call(msg_id, "scan_code", {"paths": ["src"]})


def test_cancelled_calls_are_never_answered_and_others_run_beside_them(tmp_path: Path,
                                                                        server_env: dict[str, str]) -> None:
    def session(root: Path, env: dict[str, str]) -> None:
        raw = Raw(root, env)
        raw.send(_call(0, "list_rules", {}))
        assert raw.reply()["id"] == 0
        raw.send(_slow_call(1))
        raw.send(_slow_call("two"))
        raw.send(_call(3, "list_rules", {}))  # answered while both run
        assert raw.reply()["id"] == 3
        for rid in (1, "two"):
            raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
        started = time.monotonic()
        raw.send(_call(4, "list_rules", {}))
        assert raw.reply()["id"] == 4
        assert time.monotonic() - started < 60  # a hang guard: the cancelled scans would take minutes
        assert raw.end() == []  # never answered, not even at the end

    counts = _both(tmp_path, server_env, slow_project, session)
    assert counts[False]["fast"] == 4


def test_a_call_running_at_the_end_of_stdin_ends_with_its_ast_grep_and_is_answered_connection_closed(
        tmp_path: Path, server_env: dict[str, str], marker: str) -> None:
    """The SDK's dispatcher answers its calls so at the end of the input, when its writer is still open (not
    always: the two ends race), so only the fast path's answer is sure."""
    closed = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "Connection closed"}}
    root = slow_project(tmp_path / "proj")
    for off in (True, False):
        run = tmp_path / ("off" if off else "on")
        run.mkdir()
        raw = Raw(root, {**_env(server_env, run, off), MARKER: marker})
        raw.send(_call(0, "list_rules", {}))
        raw.reply()
        raw.send(_slow_call(1))
        time.sleep(0.5)  # under way
        rest = raw.end()
        assert rest in ([closed], []) if off else rest == [closed]
        assert settle(marker) == []  # its ast-grep ended with it
        assert _counts(run)["fast"] == (0 if off else 1)
