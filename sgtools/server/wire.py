"""The MCP server's stdio transport: `serve_stdio` runs the SDK's server over the process's stdin and stdout, with
every incoming line checked by server/guard.py first (answered there when malformed or too long).

Both sides avoid a thread hop per message where the pipe allows it. A thread hop (`anyio.to_thread`) per line
read and per reply written cost the event loop about 0.4 ms and the worker threads 0.3 ms of CPU each, per MCP
call (B1 from a raw JSON-RPC client, CPU per thread from /proc, 2-core VM under load): about a `ping`'s whole
cost. So a pipe (what an MCP host gives its server) is read when the event loop sees it readable, and a reply
that fits into an empty pipe is written at once; anything else (a terminal, a file, a reply that could block
because the client is not reading) goes through a worker thread as before.
"""

from __future__ import annotations

import fcntl
import os
import stat
import struct
import termios
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

from sgtools.core.settings import get_settings
from sgtools.server.fastcall import FastCalls, for_server
from sgtools.server.guard import HEAD_SCAN, TAIL_KEEP, check_message, encode_reply, oversized_reply

_CHUNK = 1 << 16


class _Wire:
    """The stdout side: whole lines, one writer at a time (the SDK's replies and ours interleave). A write that
    could block (a client not reading yet) goes to a worker thread, so the event loop keeps reading requests;
    one that cannot (`_fits`) is written here."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._file = os.fdopen(fd, "wb", closefd=False)
        self._lock = anyio.Lock()
        self._pipe_size = _pipe_size(fd)
        self.heard: Callable[[str], None] | None = None  # sees every line written (server/fastcall.py)

    async def write(self, text: str) -> None:
        if self.heard is not None:
            self.heard(text)
        data = text.encode("utf-8", "backslashreplace")
        async with self._lock:
            if self._fits(len(data)):
                self._write(data)
            else:
                await anyio.to_thread.run_sync(self._write, data)

    def _fits(self, size: int) -> bool:
        """Whether `size` bytes written now cannot block: stdout is a pipe with nothing unread (what a client
        waiting for its answer leaves), which takes up to its capacity at once."""
        if self._pipe_size is None or size > self._pipe_size:
            return False
        try:
            unread = struct.unpack("i", fcntl.ioctl(self._fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        except OSError:
            return False
        return bool(unread == 0)

    def _write(self, data: bytes) -> None:
        self._file.write(data)
        self._file.flush()

    async def flush(self) -> None:
        return None


def _pipe_size(fd: int) -> int | None:
    """The capacity of the pipe `fd` writes to; None when it is not a pipe or the platform cannot tell (Linux
    can), so every write goes through a thread."""
    getter = getattr(fcntl, "F_GETPIPE_SZ", None)
    try:
        if getter is None or not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        return int(fcntl.fcntl(fd, getter))
    except OSError:
        return None


class _Lines:
    """The stdin side: raw lines, each checked; the SDK sees only the ones it can handle. A line longer than the
    message cap is answered -32600 and its bytes dropped as they come (one huge line cannot exhaust memory; its
    start and end are kept to find its id)."""

    def __init__(self, fd: int, wire: _Wire, fast: FastCalls | None = None) -> None:
        self._fd = fd
        self._fast = fast  # takes the tool calls it answers itself (server/fastcall.py)
        self._file = os.fdopen(fd, "rb", closefd=False)
        self._wire = wire
        mode = os.fstat(fd).st_mode
        self._polled = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)  # readiness works; else a thread reads
        self._buf = bytearray()
        self._scanned = 0  # bytes of `_buf` known to hold no line break
        self._dropping: tuple[bytes, bytes] | None = None  # head and tail of an oversized line being dropped
        self._eof = False

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    def _readline(self) -> bytes | dict[str, Any]:
        """One line through the file object (a worker thread calls it: stdin is not a pipe)."""
        limit = get_settings().max_message_bytes
        raw = self._file.readline(limit + 1)
        if len(raw) <= limit or raw.endswith(b"\n"):
            return raw
        head, tail = raw[:HEAD_SCAN], raw[-TAIL_KEEP:]
        while raw and not raw.endswith(b"\n"):
            raw = self._file.readline(1 << 20)
            tail = (tail + raw)[-TAIL_KEEP:]
        return oversized_reply(limit, head, tail.rstrip(b"\r\n"))

    async def _polled_line(self) -> bytes | dict[str, Any]:
        """The same as `_readline`, from a pipe read when the event loop sees it readable."""
        limit = get_settings().max_message_bytes
        while True:
            found = self._take(limit)
            if found is not None:
                return found
            await anyio.wait_readable(self._fd)
            chunk = os.read(self._fd, _CHUNK)  # readable: returns at once, b"" at the end
            if not chunk:
                self._eof = True
            self._buf += chunk

    def _take(self, limit: int) -> bytes | dict[str, Any] | None:
        """The next line from the buffer (as `readline(limit + 1)` would have it), the -32600 answer once an
        oversized line has ended, or None when more bytes are needed."""
        if self._dropping is not None:
            end = self._buf.find(b"\n")
            stop = len(self._buf) if end < 0 else end + 1
            head, tail = self._dropping
            tail = (tail + bytes(self._buf[:stop]))[-TAIL_KEEP:]
            del self._buf[:stop]
            if end < 0 and not self._eof:
                self._dropping = (head, tail)
                return None
            self._dropping = None
            return oversized_reply(limit, head, tail.rstrip(b"\r\n"))
        end = self._buf.find(b"\n", self._scanned, limit + 1)
        if end >= 0:
            line = bytes(self._buf[:end + 1])
            del self._buf[:end + 1]
            self._scanned = 0
            return line
        if len(self._buf) > limit:  # limit + 1 bytes without a line break
            first = bytes(self._buf[:limit + 1])
            del self._buf[:limit + 1]
            self._scanned = 0
            self._dropping = (first[:HEAD_SCAN], first[-TAIL_KEEP:])
            return self._take(limit)
        self._scanned = len(self._buf)
        if self._eof:
            line = bytes(self._buf)
            self._buf.clear()
            self._scanned = 0
            return line  # the last line without a break, or b"": the end
        return None

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            if self._polled:
                raw = await self._polled_line()
            else:
                raw = await anyio.to_thread.run_sync(self._readline, abandon_on_cancel=True)
            if isinstance(raw, dict):
                await self._wire.write(encode_reply(raw) + "\n")
                continue
            if not raw:
                if self._fast is not None:
                    self._fast.shutdown()
                return
            verdict = check_message(raw.rstrip(b"\r\n"))
            if verdict.forward is not None:
                if self._fast is not None and verdict.message is not None and self._fast.offer(verdict.message):
                    continue
                yield verdict.forward + "\n"
            elif verdict.reply is not None:
                await self._wire.write(encode_reply(verdict.reply) + "\n")


@asynccontextmanager
async def _claimed_stdio() -> AsyncIterator[tuple[int, int]]:
    """Private copies of fd 0 and 1 for the protocol; fd 0 then reads /dev/null and fd 1 writes to stderr, so a
    stray print or a child process cannot corrupt the wire (what the SDK's own stdio transport does too)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    try:
        yield wire_in, wire_out
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        for fd in (saved_in, saved_out):
            os.close(fd)


async def _serve_stdio(server: MCPServer[Any]) -> None:
    async with _claimed_stdio() as (wire_in, wire_out):
        wire = _Wire(wire_out)
        async with anyio.create_task_group() as tg:  # the tool calls answered beside the SDK run here
            fast = for_server(server, wire.write, tg)
            wire.heard = fast.heard if fast is not None else None
            lines = _Lines(wire_in, wire, fast)
            async with stdio_server(stdin=lines, stdout=wire) as (read_stream, write_stream):  # type: ignore[arg-type]
                low = server._lowlevel_server  # the SDK's own run_stdio_async does exactly this with its streams
                await low.run(read_stream, write_stream, low.create_initialization_options())


def serve_stdio(server: MCPServer[Any]) -> None:
    """`server.run("stdio")`, with every incoming line checked first."""
    anyio.run(_serve_stdio, server)
