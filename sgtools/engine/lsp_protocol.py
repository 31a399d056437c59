"""JSON-RPC over the LSP base protocol: `Content-Length` framed messages, written and read with a deadline.

The warm engine (engine/lsp.py) talks to `ast-grep lsp` through this and nothing else. Reads never block past
the caller's deadline (a hung server is a `ProtocolError`, never a hung tool call), and a malformed frame is a
`ProtocolError` too: either way the caller kills the process and answers from the spawn path.
"""

from __future__ import annotations

import json
import os
import select
import time
from typing import Any

_HEADER_END = b"\r\n\r\n"
_MAX_HEADER = 4096
_CHUNK = 65536


class ProtocolError(Exception):
    """The server broke the protocol, closed its output, or did not answer before the deadline (`hang`)."""

    def __init__(self, message: str, *, hang: bool = False) -> None:
        super().__init__(message)
        self.hang = hang


def encode(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameReader:
    """Messages from one file descriptor, parsed as bytes arrive; at most `max_bytes` per message."""

    def __init__(self, fd: int, max_bytes: int) -> None:
        self.fd = fd
        self.max_bytes = max_bytes
        self.buf = bytearray()
        # Messages whose body starts with this are dropped unread (the server's log lines, four per document,
        # once nothing reads them); a body serialised otherwise is decoded as usual.
        self.skip: bytes | None = None

    def read(self, deadline: float) -> dict[str, Any]:
        """The next message; `ProtocolError` on end of stream, a bad frame, or when `deadline` (monotonic) passes."""
        while True:
            message = self._parse()
            if message is not None:
                return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ProtocolError("no answer before the deadline", hang=True)
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                raise ProtocolError("no answer before the deadline", hang=True)
            try:
                chunk = os.read(self.fd, _CHUNK)
            except OSError as exc:
                raise ProtocolError(f"reading failed: {exc}") from None
            if not chunk:
                raise ProtocolError("the server closed its output")
            self.buf += chunk

    def _parse(self) -> dict[str, Any] | None:
        body = self._body()
        while body is not None and self.skip is not None and body.startswith(self.skip):
            body = self._body()
        if body is None:
            return None
        try:
            message = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ProtocolError("a message that is not JSON") from None
        if not isinstance(message, dict):
            raise ProtocolError("a message that is not a JSON object")
        return message

    def _body(self) -> bytes | None:
        """The next whole message body taken from the buffer, or None until one has arrived."""
        end = self.buf.find(_HEADER_END)
        if end < 0:
            if len(self.buf) > _MAX_HEADER:
                raise ProtocolError("a header without an end")
            return None
        length = _content_length(bytes(self.buf[:end]))
        if length > self.max_bytes:
            raise ProtocolError(f"a message of {length} bytes, over the {self.max_bytes}-byte cap")
        start = end + len(_HEADER_END)
        if len(self.buf) < start + length:
            return None
        body = bytes(self.buf[start:start + length])
        del self.buf[:start + length]
        return body


def _content_length(header: bytes) -> int:
    for line in header.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if sep and name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                break
            if length >= 0:
                return length
    raise ProtocolError(f"a header without a valid Content-Length: {header[:200]!r}")


def write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write `data` to a non-blocking pipe; `ProtocolError` when the server is gone or stops reading past `deadline`."""
    view = memoryview(data)
    while view:
        try:  # at once when the pipe has room (nearly every message): no select first
            written = os.write(fd, view[:_CHUNK])
        except BlockingIOError:  # the fd is non-blocking: the pipe is full until the server reads
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ProtocolError("the server stopped reading its input", hang=True) from None
            _, ready, _ = select.select([], [fd], [], remaining)
            if not ready:
                raise ProtocolError("the server stopped reading its input", hang=True) from None
            continue
        except OSError as exc:  # BrokenPipe: it died
            raise ProtocolError(f"writing failed: {exc}") from None
        view = view[written:]
