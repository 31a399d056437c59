"""The stdio transport (server/wire.py) reads a pipe when the event loop sees it readable and writes a reply that
fits into an empty pipe at once: no worker thread per message (each hop cost about a `ping`'s CPU), with the
same lines, the same -32600 answer to an oversized one and the same end. Real pipes; the thread pool is
replaced by one that fails, so a hop would show."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import anyio
import anyio.to_thread
import pytest

from sgtools.core import settings as settings_mod
from sgtools.core.settings import Settings
from sgtools.server import wire


def _message(msg_id: int, size: int = 0) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "ping", "params": {"pad": "x" * size}}).encode()


def _serve_lines(chunks: list[bytes]) -> tuple[list[str], list[dict[str, Any]]]:
    """What `_Lines` hands the SDK and what it answers itself, for stdin bytes arriving in `chunks`."""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()

    def feed() -> None:
        for chunk in chunks:
            os.write(stdin_w, chunk)
        os.close(stdin_w)

    async def read_all() -> list[str]:
        lines = wire._Lines(stdin_r, wire._Wire(stdout_w))
        return [line async for line in lines]

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        forwarded = anyio.run(read_all)
    finally:
        feeder.join()
        os.close(stdin_r)
        os.close(stdout_w)
    with os.fdopen(stdout_r, "rb") as out:
        replies = [json.loads(line) for line in out.read().splitlines()]
    return forwarded, replies


@pytest.fixture(autouse=True)
def no_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("a worker thread was used")

    monkeypatch.setattr(anyio.to_thread, "run_sync", refused)
    monkeypatch.setattr(settings_mod, "_current", Settings(max_message_bytes=4096))


def test_lines_split_across_reads_and_reads_holding_several_lines() -> None:
    a, b, c = _message(1), _message(2, 3000), _message(3)
    stream = a + b"\n" + b + b"\r\n" + c  # the last line without a break, then the end
    chunks = [stream[:10], stream[10:2000], stream[2000:]]
    forwarded, replies = _serve_lines(chunks)
    assert forwarded == [a.decode() + "\n", b.decode() + "\n", c.decode() + "\n"] and replies == []


def test_an_oversized_line_is_answered_with_its_id_and_the_next_one_served() -> None:
    big = _message(7, 20_000)  # over 4096 bytes: answered -32600 with its id, its bytes dropped as they come
    after = _message(8)
    stream = big + b"\n" + after + b"\n"
    forwarded, replies = _serve_lines([stream[i:i + 1500] for i in range(0, len(stream), 1500)])
    assert forwarded == [after.decode() + "\n"]
    [reply] = replies
    assert reply["id"] == 7 and reply["error"]["code"] == -32600 and "over 4096 bytes" in reply["error"]["message"]


def test_a_line_at_the_cap_passes_and_one_byte_more_is_refused() -> None:
    at = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"' + b"x" * 4000
    at += b"x" * (4096 - len(at) - 3) + b'"}}'
    assert len(at) == 4096
    forwarded, replies = _serve_lines([at + b"\n"])
    assert forwarded == [at.decode() + "\n"] and replies == []
    over = at[:-3] + b'x"}}'
    forwarded, replies = _serve_lines([over + b"\n"])
    assert forwarded == [] and replies[0]["error"]["code"] == -32600


def test_an_oversized_line_cut_by_the_end_is_answered() -> None:
    forwarded, replies = _serve_lines([_message(9, 10_000)[:-5]])
    assert forwarded == [] and [r["error"]["code"] for r in replies] == [-32600]
