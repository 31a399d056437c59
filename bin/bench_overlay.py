"""B9 for bin/bench: a pending change checked in one scan_code call, and the MCP floor against a minimal server.

Both over real stdio sessions, medians of interleaved calls, so the ratios compare figures of the same moment:
- scan_code with `files` (five distinct 30-line Python files) against scan_code of one findings snippet, in the
  same session (issue 15's budget: under 2x), on the spawn path and with the warm engine on, and from a raw
  JSON-RPC client (`raw_tool_calls`: the SDK client validates every result against the output schema in Python,
  which grows with the result: five files' findings are five snippets' worth);
- `tools/list` of our server against a one-tool server on the same SDK, spoken to in raw JSON-RPC (the request
  bytes the SDK client sends), so the server's own cost is measured, not the client's parsing of the whole list
  (at most 20 KB, e2e/test_tools_list.py); the SDK client's round trip is reported beside it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bin.bench_rules import SNIPPET, write_project

CLEAN = "def add(a, b):\n    return a + b\n" * 15  # 30 lines, nothing to report
MINIMAL_SERVER = '''from mcp.server.mcpserver import MCPServer

server = MCPServer("minimal")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


server.run()
'''
LIST_REQUEST = {"jsonrpc": "2.0", "method": "tools/list", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {}}}}


def _files(with_findings: int) -> list[dict[str, str]]:
    """Five distinct files (names renamed per file, so no two texts are equal), `with_findings` of them the snippet."""
    return [{"path": f"src/mod{i}.py", "code": (SNIPPET if i < with_findings else CLEAN).replace("load", f"load{i}")
             .replace("add", f"add{i}")} for i in range(5)]


async def _overlay_calls(sgtools: str, root: Path, n: int, warm: bool) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sgtools, args=["serve", "--root", str(root)],
                                   env={"SGTOOLS_LOG_LEVEL": "warning", "SGTOOLS_WARM_ENGINE": "1" if warm else "0"})
    cases: dict[str, dict[str, Any]] = {
        "one": {"code": SNIPPET, "language": "python"},
        "one-of-five": {"files": _files(1)},
        "five-of-five": {"files": _files(5)},
    }
    out: dict[str, list[float]] = {k: [] for k in cases}
    async with Client(params) as client:
        for args in cases.values():
            for _ in range(3):
                result = await client.call_tool("scan_code", args)
                if result.is_error:
                    raise RuntimeError(f"scan_code failed: {result.content}")
        for _ in range(n):
            for name, args in cases.items():
                t = time.perf_counter()
                await client.call_tool("scan_code", args)
                out[name].append(time.perf_counter() - t)
    return out


def _raw_lists(commands: dict[str, list[str]], n: int) -> dict[str, list[float]]:
    """tools/list round trips in raw JSON-RPC over each server's stdio, interleaved."""
    procs = {k: subprocess.Popen(v, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
             for k, v in commands.items()}
    times: dict[str, list[float]] = {k: [] for k in commands}
    try:
        for i in range(n + 10):
            for name, p in procs.items():
                assert p.stdin is not None and p.stdout is not None
                line = (json.dumps({**LIST_REQUEST, "id": i}) + "\n").encode()
                t = time.perf_counter()
                p.stdin.write(line)
                p.stdin.flush()
                reply = p.stdout.readline()
                if i >= 10:
                    times[name].append(time.perf_counter() - t)
                elif b'"tools"' not in reply:
                    raise RuntimeError(f"{name}: tools/list failed: {reply[:300]!r}")
    finally:
        for p in procs.values():
            if p.stdin is not None:
                p.stdin.close()
            p.wait(timeout=30)
    return times


def raw_tool_calls(command: list[str], env: dict[str, str], cases: dict[str, dict[str, Any]], n: int,
                   warmup: int = 5, beside: dict[str, Callable[[], object]] | None = None) -> dict[str, list[float]]:
    """`scan_code` round trips in raw JSON-RPC over one server's stdio (the request bytes the SDK client sends),
    the cases interleaved: what a client waits for when it does not validate each result against the tool's
    output schema in Python, as the SDK client does (about 3 ms per 10 KB result here, whatever the server
    does); a TypeScript client's compiled Ajv validator costs next to nothing. `beside[name]` (a bare ast-grep
    run of the same case) is timed right after each of the case's calls, as `times[name + "/bare"]`: a change in
    the machine's load moves both sides of the ratio alike."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env)
    assert proc.stdin is not None and proc.stdout is not None
    times: dict[str, list[float]] = {k: [] for k in cases} | {f"{k}/bare": [] for k in beside or {}}
    try:
        for i in range(warmup + n):
            for name, args in cases.items():
                line = json.dumps({"jsonrpc": "2.0", "id": f"{name}-{i}", "method": "tools/call", "params": {
                    "name": "scan_code", "arguments": args, "_meta": LIST_REQUEST["params"]["_meta"]}}) + "\n"
                t = time.perf_counter()
                proc.stdin.write(line.encode())
                proc.stdin.flush()
                reply = proc.stdout.readline()
                if i >= warmup:
                    times[name].append(time.perf_counter() - t)
                elif b'"structuredContent"' not in reply or b'"isError":true' in reply:
                    raise RuntimeError(f"{name}: scan_code failed: {reply[:300]!r}")
                if beside and name in beside:
                    t = time.perf_counter()
                    beside[name]()
                    if i >= warmup:
                        times[f"{name}/bare"].append(time.perf_counter() - t)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return times


async def _sdk_lists(params: Any, n: int) -> list[float]:
    from mcp import Client

    async with Client(params) as client:
        for _ in range(10):
            await client.list_tools()
        out = []
        for _ in range(n):
            t = time.perf_counter()
            await client.list_tools()
            out.append(time.perf_counter() - t)
        return out


def bench_b9(work: Path, quick: bool, *, sgtools: str, summary: Callable[[list[float]], dict[str, float]]
             ) -> dict[str, Any]:
    """The B9 rows; `sgtools` is the command to serve with, `summary` bin/bench's median/p95 of seconds."""
    from mcp import StdioServerParameters

    n = 30 if quick else 200
    root = write_project(work / "b9", 20)
    rows: dict[str, Any] = {}
    for warm in (False, True):
        ours = asyncio.run(_overlay_calls(sgtools, root, max(10, n // 4) if quick else 100, warm))
        one = summary(ours["one"])
        for name, label in (("one-of-five", "5 files, 1 with findings, vs one findings snippet"),
                            ("five-of-five", "5 files, all with findings, vs one findings snippet")):
            o = summary(ours[name])
            rows[f"overlay{' (warm engine)' if warm else ''}: {label}"] = {
                "sgtools": o, "one snippet": one, "ratio": round(o["median_ms"] / one["median_ms"], 2)}
    raw = raw_tool_calls([sgtools, "serve", "--root", str(root)],
                         {**os.environ, "SGTOOLS_LOG_LEVEL": "warning", "SGTOOLS_WARM_ENGINE": "1"},
                         {"one": {"code": SNIPPET, "language": "python"}, "five-of-five": {"files": _files(5)}},
                         max(10, n // 4) if quick else 100)
    o, one = summary(raw["five-of-five"]), summary(raw["one"])
    rows["overlay (warm engine, raw JSON-RPC client): 5 files, all with findings, vs one findings snippet"] = {
        "sgtools": o, "one snippet": one, "ratio": round(o["median_ms"] / one["median_ms"], 2)}
    minimal = work / "minimal_server.py"
    minimal.write_text(MINIMAL_SERVER)
    raw = _raw_lists({"sgtools": [sgtools, "serve", "--root", str(root)], "minimal": [sys.executable, str(minimal)]}, n)
    o, b = summary(raw["sgtools"]), summary(raw["minimal"])
    rows["MCP floor: tools/list, raw JSON-RPC, vs a one-tool server on the same SDK"] = {
        "sgtools": o, "minimal": b, "ratio": round(o["median_ms"] / b["median_ms"], 2)}
    sdk_ours = asyncio.run(_sdk_lists(StdioServerParameters(command=sgtools, args=["serve", "--root", str(root)]), n))
    sdk_min = asyncio.run(_sdk_lists(StdioServerParameters(command=sys.executable, args=[str(minimal)]), n))
    o, b = summary(sdk_ours), summary(sdk_min)
    rows["MCP floor: tools/list through the SDK client (its parsing of our whole list included)"] = {
        "sgtools": o, "minimal": b, "ratio": round(o["median_ms"] / b["median_ms"], 2)}
    return rows
