"""`sgtools serve`, watched: run as `python e2e/fastcall_probe.py serve --root ROOT` by e2e/test_mcp_fastcall.py.

FASTCALL_LOG: every line the server writes to stdout is appended to that file, as written.
FASTCALL_OFF=1: the stdio transport has no fast path (server/fastcall.py), so the SDK answers every call.
FASTCALL_COUNTS: at exit, a JSON object is written there: how many tool calls the SDK's tools/call handler ran
(`sdk`) and how many the fast path took (`fast`)."""

from __future__ import annotations

import atexit
import json
import os
import sys
from typing import Any

from sgtools.server import app, fastcall, wire

counts = {"sdk": 0, "fast": 0}
log_path = os.environ.get("FASTCALL_LOG")
if log_path:
    log = open(log_path, "ab")  # noqa: SIM115 - open for the life of the process
    write = wire._Wire._write

    def _write(self: wire._Wire, data: bytes) -> None:
        log.write(data)
        log.flush()
        write(self, data)

    wire._Wire._write = _write  # type: ignore[method-assign]

if os.environ.get("FASTCALL_OFF") == "1":
    setattr(wire, "for_server", lambda *_a: None)  # noqa: B010 - the name wire imported

sdk_call = app.SgToolsServer.call_tool


async def _counted(self: app.SgToolsServer, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
    counts["sdk"] += 1
    return await sdk_call(self, name, arguments, context)


app.SgToolsServer.call_tool = _counted  # type: ignore[method-assign]
offer = fastcall.FastCalls.offer


def _offer(self: fastcall.FastCalls, msg: dict[str, Any]) -> bool:
    taken = offer(self, msg)
    counts["fast"] += taken
    return taken


fastcall.FastCalls.offer = _offer  # type: ignore[method-assign]


def _save_counts(path: str) -> None:
    with open(path, "w") as f:
        f.write(json.dumps(counts))


if os.environ.get("FASTCALL_COUNTS"):
    atexit.register(_save_counts, os.environ["FASTCALL_COUNTS"])

if __name__ == "__main__":
    from sgtools.cli import main

    sys.argv = ["sgtools", *sys.argv[1:]]
    main()
