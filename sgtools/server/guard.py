"""Every message gets an answer: a JSON-RPC guard in front of the SDK's transports, and escaping on the way out.

The SDK drops what it cannot parse or validate (malformed JSON, batches, a wrong `jsonrpc`, `id` or `params`
type, deep nesting, lone surrogates), so the client waits forever. `check_message` looks at each raw message
before the SDK does and either passes its text on or returns the JSON-RPC error to send (-32700 parse error,
-32600 invalid request, -32602 invalid params), or for a tool call a `[bad-input]` tool result. The stdio
transport (server/wire.py `serve_stdio`) and the HTTP one (`JsonRpcGuard`) read through it; the SDK itself is
unchanged.

Text read from disk can hold lone surrogates (a YAML escape `"\\udcff"`, a file name that is not UTF-8): the
SDK cannot serialise those and used to kill the server; `escape_surrogates` writes them as `\\udcXX` text.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sgtools.core.settings import get_settings

log = logging.getLogger("sgtools.server.guard")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
_SURROGATE = re.compile("[\ud800-\udfff]")


# ---- escaping text on the way out ------------------------------------------------------------------------------


def _escape_text(text: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def escape_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (keys too) written as `\\udcXX`; unchanged objects are
    returned as they are, so the common case costs one scan of the text."""
    if isinstance(value, str):
        return _escape_text(value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        items = [(escape_surrogates(k), escape_surrogates(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True)):
            return value
        return dict(items)
    if isinstance(value, (list, tuple)):
        out = [escape_surrogates(v) for v in value]
        return value if all(a is b for a, b in zip(out, value, strict=True)) else type(value)(out)
    return value


# ---- checking a message on the way in --------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """`forward`: the message text to hand to the SDK (`message`: that text parsed); else `reply`: the response
    to send (None: say nothing, a notification that cannot be answered)."""
    forward: str | None = None
    reply: dict[str, Any] | None = None
    status: int = 200  # HTTP status of the reply
    message: dict[str, Any] | None = None


def _error(code: int, message: str, msg_id: Any = None, status: int = 400) -> Verdict:
    return Verdict(reply={"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}},
                   status=status)


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _depth(text: str, limit: int) -> bool:
    """Is the JSON text nested deeper than `limit`? One linear pass, brackets inside strings skipped. The depth
    cannot exceed the number of opening brackets, which C counts: most messages (a scan_code call has a handful)
    never take the pass, which costs ~0.1 ms per KB of message in Python, on every call."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def _bad_text(value: Any, where: str) -> str | None:
    """The first place (`arguments.code`, ...) whose text holds a lone surrogate or undecodable bytes."""
    if isinstance(value, str):
        return where if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _bad_text(k, f"{where} (a key)") or _bad_text(v, f"{where}.{k}" if where else str(k))
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _bad_text(v, f"{where}[{i}]")
            if found:
                return found
    return None


def _envelope_problem(msg: dict[str, Any]) -> str | None:
    if msg.get("jsonrpc") != "2.0":
        return 'the "jsonrpc" member must be exactly "2.0"'
    if "id" in msg and not _valid_id(msg["id"]):
        return 'the "id" must be a string or an integer'
    if "method" in msg:
        if not isinstance(msg["method"], str):
            return 'the "method" must be a string'
        if "params" in msg and not isinstance(msg["params"], dict):
            return 'the "params" must be an object'
        return None
    if "id" not in msg or ("result" in msg) == ("error" in msg):
        return 'a message needs a "method" (request or notification) or an "id" with "result" or "error"'
    return None


def _bad_input_result(msg_id: Any, where: str) -> Verdict:
    text = (f"[bad-input] `{where}` holds a lone surrogate or bytes that are not UTF-8, which no file or tool can "
            "take. Send that argument as valid Unicode text (UTF-8 on the wire).")
    return Verdict(reply={"jsonrpc": "2.0", "id": msg_id,
                          "result": {"content": [{"type": "text", "text": text}], "isError": True}})


def check_message(raw: bytes | str) -> Verdict:
    """What to do with one raw JSON-RPC message (one stdio line, one HTTP body)."""
    text = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
    if not text.strip():
        return Verdict()  # a blank line is not a message
    if _depth(text, get_settings().max_json_depth):
        msg_id = _id_of_deep(text)
        return _error(INVALID_REQUEST, f"Invalid Request: JSON nested deeper than {get_settings().max_json_depth} "
                                       "levels (SGTOOLS_MAX_JSON_DEPTH)", msg_id)
    try:
        msg = json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError) as exc:
        return _error(PARSE_ERROR, f"Parse error: {str(exc)[:200]}")
    if isinstance(msg, list):
        return _error(INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported; send one message "
                                       "at a time" if msg else "Invalid Request: empty batch")
    if not isinstance(msg, dict):
        return _error(INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    problem = _envelope_problem(msg)
    msg_id = msg.get("id") if _valid_id(msg.get("id")) else None
    if problem is not None:
        return _error(INVALID_REQUEST, f"Invalid Request: {problem}", msg_id)
    envelope = _bad_text({k: v for k, v in msg.items() if k != "params"}, "")
    if envelope is not None:
        return _error(INVALID_REQUEST, f"Invalid Request: {envelope} holds a lone surrogate or bytes that are not "
                                       "UTF-8", None if envelope == "id" else msg_id)
    where = _bad_text(msg.get("params"), "params")
    if where is None:
        return Verdict(forward=text, message=msg)
    if "method" not in msg or "id" not in msg:
        log.warning("dropped a notification or response with undecodable text at %s", where)
        return Verdict()
    if msg["method"] == "tools/call" and where.startswith("params.arguments"):
        return _bad_input_result(msg_id, where.removeprefix("params."))
    return _error(INVALID_PARAMS, f"Invalid params: {_escape_text(where)} holds a lone surrogate or bytes that "
                                  "are not UTF-8", msg_id)


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _id_of_deep(text: str) -> Any:
    """The id of an over-deep message when it parses anyway (so the client can match the error), else None."""
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return msg.get("id") if isinstance(msg, dict) and _valid_id(msg.get("id")) else None


HEAD_SCAN = 1 << 20  # bytes of an oversized message searched for its top-level "id"
TAIL_KEEP = 4096
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
_ID_AT_END = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*}\s*$')


def _id_of_oversized(head: bytes, tail: bytes) -> Any:
    """The top-level "id" of a message too big to parse, so the client can match the error to its request: found
    as a key of the outer object in the first MiB (where clients put it: jsonrpc, id, method, params), or as the
    outer object's last member at the very end. None when it cannot be told (JSON-RPC's id for that case)."""
    depth, key_next = 0, False
    for match in _TOKEN.finditer(head, 0, HEAD_SCAN):
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and token == b'"id"' and key_next:
            value = _id_value(head[match.end():match.end() + 1024].lstrip().removeprefix(b":"))
            if value is not None:
                return value
        key_next = depth == 1 and token in (b"{", b",")
    end = _ID_AT_END.search(tail)
    return None if end is None else _id_value(end.group(1))


def _id_value(data: bytes) -> Any:
    try:
        value, _ = json.JSONDecoder().raw_decode(data.decode("utf-8", "strict").lstrip())
    except (ValueError, UnicodeDecodeError):
        return None
    return value if _valid_id(value) else None


def oversized_reply(limit: int, head: bytes, tail: bytes = b"") -> dict[str, Any]:
    """The -32600 answer to a message over `limit` bytes, with its id when it can be read."""
    text = f"Invalid Request: the message is over {limit} bytes (SGTOOLS_MAX_MESSAGE_BYTES); send less at once"
    reply = _error(INVALID_REQUEST, text, _id_of_oversized(head, tail)).reply
    assert reply is not None
    return reply


def encode_reply(reply: dict[str, Any]) -> str:
    return json.dumps(escape_surrogates(reply), ensure_ascii=False, separators=(",", ":"))


# ---- HTTP ------------------------------------------------------------------------------------------------------


class JsonRpcGuard:
    """ASGI middleware: a POSTed body is checked like a stdio line; a message the SDK would drop is answered here
    (HTTP 400 with the JSON-RPC error, or 200 with a `[bad-input]` tool result); others pass on unchanged."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([message], receive), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_body:  # answered as stdio answers it: -32600 with the id when it can be read
                head = b"".join(chunks)[:HEAD_SCAN]
                tail = await _drain_tail(receive, chunks[-1][-TAIL_KEEP:], size, more)
                await _answer(send, oversized_reply(self.max_body, head, tail), 413)
                return
        body = b"".join(chunks)
        verdict = check_message(body)
        if verdict.forward is not None or verdict.reply is None:
            await self.app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive),
                           send)
            return
        await _answer(send, verdict.reply, verdict.status)


async def _drain_tail(receive: Receive, tail: bytes, size: int, more: bool) -> bytes:
    """The body's last bytes, read on (keeping only them) while it stays within HEAD_SCAN, so an id written last is
    found however the body arrived in chunks (a test saw null for one that came in pieces); empty when the end was
    not reached: a larger body is not read to its end."""
    while more and size <= HEAD_SCAN:
        message = await receive()
        if message["type"] != "http.request":
            return b""
        part = message.get("body", b"")
        size += len(part)
        tail = (tail + part)[-TAIL_KEEP:]
        more = message.get("more_body", False)
    return b"" if more else tail


async def _answer(send: Send, reply: dict[str, Any], status: int) -> None:
    payload = encode_reply(reply).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})


def _replay(messages: list[Message], then: Receive) -> Receive:
    """The body already read, then the client's own stream (disconnects)."""
    queue = list(messages)

    async def receive() -> Message:
        return queue.pop(0) if queue else await then()

    return receive
