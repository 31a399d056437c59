"""The cached `tools/list` (server/app.py ListToolsCache) over a real stdio server, spoken to in raw JSON-RPC: repeated
answers are the SDK's first answer byte for byte, in both protocol eras, and the SDK's gate still refuses a listing
before `initialize` on a handshake-era connection."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import serve_command

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
               "io.modelcontextprotocol/clientCapabilities": {}}


class Raw:
    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(serve_command(root), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)

    def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()
        if "id" not in message:
            return None
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        assert reply["id"] == message["id"]
        return reply

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def _list(raw: Raw, i: int, params: dict[str, Any] | None = None) -> dict[str, Any] | None:
    return raw.send({"jsonrpc": "2.0", "id": i, "method": "tools/list", **({"params": params} if params else {})})


def test_repeated_tools_list_is_the_sdk_answer_and_the_gate_holds(root: Path, server_env: dict[str, str]) -> None:
    raw = Raw(root, server_env)
    try:
        early = _list(raw, 1)
        assert early is not None and early["error"]["code"] == -32602  # not initialized: the SDK's gate answers
        assert _list(raw, 2) == early | {"id": 2}  # still refused: nothing was cached from a refusal
        raw.send({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}})
        raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        handshake = [_list(raw, 10 + i) for i in range(3)]
    finally:
        raw.close()
    modern_raw = Raw(root, server_env)  # a 2026-era client: no handshake, the version in every request's _meta
    try:
        modern = [_list(modern_raw, 20 + i, {"_meta": MODERN_META}) for i in range(3)]
    finally:
        modern_raw.close()
    firsts = []
    for answers in (handshake, modern):
        results = [a["result"] for a in answers if a is not None]
        assert len(results) == 3 and results[0] == results[1] == results[2]
        assert len(results[0]["tools"]) == 14
        firsts.append(results[0]["tools"])
    assert firsts[0] == firsts[1]
