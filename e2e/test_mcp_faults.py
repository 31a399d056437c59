"""Fault catalogue, protocol families: every malformed message gets the JSON-RPC error it deserves, over stdio
(a real `python -m sgtools serve` fed raw bytes) and HTTP, and the server answers correctly afterwards; a lone
surrogate or undecodable bytes in any string argument of any tool is `[bad-input]`; text from disk that cannot
be encoded (a YAML `"\\udcff"` escape, a file name that is not UTF-8) never breaks a response."""

from __future__ import annotations

import json
import os
import select
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from e2e.conftest import http_server, serve_command
from tests.faults import report

pytestmark = pytest.mark.e2e

REPLY_TIMEOUT = 30.0
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "faults", "version": "1"}}}

# (raw message, expected: ("error", code, id) | ("bad-input", id) | None for "no reply")
Expect = tuple[Any, ...] | None


def _protocol_probes() -> list[tuple[bytes, Expect]]:
    probes: list[tuple[bytes, Expect]] = []
    parse = [b"{", b"{not json", b'{"a":}', b"[1,", b"'single'", b'{"jsonrpc":"2.0","id":1,"method":"ping"',
             b'{"jsonrpc":"2.0","id":1,"method":"ping",}', b"nul", b"tru", b'{"jsonrpc":"2.0" "id":1}',
             b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}',
             b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":Infinity}}', b'{"a":"\x01"}', b"}", b"]",
             b'{"jsonrpc":"2.0","id":1,"method":"ping"}}', b"\xef\xbb\xbf{", b'"unterminated', b"01", b"{,}"]
    probes += [(raw, ("error", -32700, None)) for raw in parse]
    invalid_null_id = [b"[]", b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]', b"[1,2]", b"[[]]", b"1", b'"x"',
                       b"null", b"true", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
                       b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
                       b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
                       b'{"jsonrpc":"2.0","id":"\\udcff","method":"ping"}', b"{}",
                       b'{"jsonrpc":"2.0","method":"ping","id":' + b"[" * 100 + b"]" * 100 + b"}"]
    probes += [(raw, ("error", -32600, None)) for raw in invalid_null_id]
    with_id = [
        (b'{"jsonrpc":"1.0","id":3,"method":"ping"}', 3), (b'{"jsonrpc":2.0,"id":4,"method":"ping"}', 4),
        (b'{"id":5,"method":"ping"}', 5), (b'{"jsonrpc":null,"id":6,"method":"ping"}', 6),
        (b'{"jsonrpc":"2.0","id":7,"method":5}', 7), (b'{"jsonrpc":"2.0","id":8,"method":null}', 8),
        (b'{"jsonrpc":"2.0","id":9,"method":["ping"]}', 9),
        (b'{"jsonrpc":"2.0","id":10,"method":"ping","params":[1]}', 10),
        (b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":"x"}', 11),
        (b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":5}', 12),
        (b'{"jsonrpc":"2.0","id":13,"method":"tools/call","params":true}', 13),
        (b'{"jsonrpc":"2.0","id":14,"method":"tools/call","params":null}', 14),
        (b'{"jsonrpc":"2.0","id":15}', 15), (b'{"jsonrpc":"2.0","id":16,"result":1,"error":{}}', 16),
        (b'{"jsonrpc":"2.0","id":"s17","method":"pi\\udcffng"}', "s17"),
        (b'{"jsonrpc":"2.0","id":18,"method":"pi\xffng"}', 18),
    ]
    for depth in (65, 100, 1000, 10_000):
        with_id.append((b'{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"scan_code","arguments":'
                        b'{"code":' + b"[" * depth + b"]" * depth + b"}}}", 19 if depth <= 900 else None))
    probes += [(raw, ("error", -32600, msg_id)) for raw, msg_id in with_id]
    probes += [
        (b'{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"scan_\\udcffcode","arguments":{}}}',
         ("error", -32602, 20)),
        (b'{"jsonrpc":"2.0","id":21,"method":"resources/read","params":{"uri":"sgtools://\\ud800"}}',
         ("error", -32602, 21)),
        (b'{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"scan_code","arguments":'
         b'{"code":"\\udcff","language":"python"}}}', ("bad-input", 22)),
        (b'{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"scan_code","arguments":'
         b'{"code":"\xff\xfe","language":"python"}}}', ("bad-input", 23)),
        (b'{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"scan_code","arguments":'
         b'{"code":"x","language":"py\\ud83d"}}}', ("bad-input", 24)),
        (b'{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"scan_code","arguments":'
         b'{"code\\udcff":"x"}}}', ("bad-input", 25)),
        (b'{"jsonrpc":"2.0","id":26,"method":"nope"}', ("error", -32601, 26)),
        (b'{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{}}', ("error", -32602, 27)),
        (b'{"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":5}}', ("error", -32602, 28)),
        (b'{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"scan_code","arguments":[1]}}',
         ("error", -32602, 29)),
        # Nothing to answer: notifications and responses, however broken their content.
        (b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\udcff"}}', None),
        (b'{"jsonrpc":"2.0","id":99999,"result":{}}', None),
        (b'{"jsonrpc":"2.0","method":"ping"}', None),
        (b"", None), (b"   ", None),
    ]
    return probes


def _matches(reply: dict[str, Any] | None, expected: Expect) -> bool:
    if expected is None:
        return reply is None
    if reply is None or reply.get("jsonrpc") != "2.0":
        return False
    if expected[0] == "error":
        return reply.get("id") == expected[2] and reply.get("error", {}).get("code") == expected[1]
    result = reply.get("result") or {}
    texts = [c.get("text", "") for c in result.get("content", [])]
    return reply.get("id") == expected[1] and result.get("isError") is True and texts[0].startswith("[bad-input] ")


class StdioWire:
    """A server process spoken to in raw lines."""

    def __init__(self, root: Path, env: dict[str, str], errlog: Path) -> None:
        self.proc = subprocess.Popen(serve_command(root), env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=errlog.open("wb"))
        self.next_id = 1000

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = REPLY_TIMEOUT) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        if not line:
            return None
        reply: dict[str, Any] = json.loads(line)  # every line the server writes must be strict JSON
        return reply

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any] | None:
        self.next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(json.dumps(msg).encode())
        return self.read()

    def exchange(self, raw: bytes, expected: Expect) -> dict[str, Any] | None:
        """Send a probe; when no reply is expected, a ping right after must be the next thing answered."""
        self.send(raw)
        if expected is not None:
            return self.read()
        self.next_id += 1
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "ping"}).encode())
        reply = self.read()
        return None if reply is not None and reply.get("id") == self.next_id else {"unexpected": reply}

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def wire(root: Path, server_env: dict[str, str], tmp_path: Path) -> Iterator[StdioWire]:
    w = StdioWire(root, server_env, tmp_path / "server.log")
    w.send(json.dumps(INIT).encode())
    assert w.read() is not None, (tmp_path / "server.log").read_text()
    w.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield w
    w.close()


def _still_correct(w: StdioWire) -> list[str]:
    """After the storm: ping, tools/list and a real scan answer as they should."""
    problems = []
    if (w.request("ping") or {}).get("result") != {}:
        problems.append("ping")
    tools = (w.request("tools/list") or {}).get("result", {}).get("tools", [])
    if not any(t["name"] == "scan_code" for t in tools):
        problems.append("tools/list")
    res = w.request("tools/call", {"name": "initialize_ast_grep", "arguments": {}}) or {}
    if res.get("result", {}).get("isError"):
        problems.append(f"initialize_ast_grep: {res}")
    res = w.request("tools/call", {"name": "scan_code", "arguments": {"code": "x = 1\n", "language": "python"}}) or {}
    if res.get("result", {}).get("structuredContent", {}).get("issues") != []:
        problems.append(f"scan_code: {str(res)[:300]}")
    if w.proc.poll() is not None:
        problems.append("server exited")
    return problems


@pytest.mark.slow
def test_catalogue_protocol_over_stdio(wire: StdioWire) -> None:
    probes = _protocol_probes()
    failures = []
    for i, (raw, expected) in enumerate(probes):
        reply = wire.exchange(raw, expected)
        if not _matches(reply, expected):
            failures.append((raw[:80], expected, str(reply)[:200]))
        if i % 10 == 9 and (wire.request("ping") or {}).get("result") != {}:
            failures.append((f"ping after probe {i}", "answered", "no answer"))
    failures += _still_correct(wire)
    answered = sum(1 for _, e in probes if e is not None)
    assert answered >= 60
    report(f"protocol over stdio ({answered} malformed messages answered, {len(probes) - answered} silent)",
           len(probes), failures)


def _string_paths(schema: dict[str, Any]) -> Iterator[tuple[list[str | int], dict[str, Any]]]:
    """Every place in a tool's arguments that takes a string: (path, a minimal valid value around it)."""
    for name, prop in (schema.get("properties") or {}).items():
        kinds = prop.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "string" in kinds:
            yield [name], prop
        if "array" in kinds:
            items = prop.get("items") or {}
            if items.get("type") == "string" or "string" in (items.get("type") or []):
                yield [name, 0], items
            elif items.get("type") == "object":
                for sub, _ in _string_paths(items):
                    yield [name, 0, *sub], items


def _filler(prop: dict[str, Any]) -> Any:
    kinds = prop.get("type")
    kind = kinds[0] if isinstance(kinds, list) else kinds
    if "enum" in prop:
        return prop["enum"][0]
    return {"string": "x", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}.get(kind, "x")


def _arguments(schema: dict[str, Any], path: list[str | int], bad: str) -> dict[str, Any]:
    args = {name: _filler(schema["properties"][name]) for name in schema.get("required", [])}
    head = path[0]
    assert isinstance(head, str)
    if len(path) == 1:
        args[head] = bad
    elif len(path) == 2:
        args[head] = [bad]
    else:
        item_schema = schema["properties"][head]["items"]
        item = {n: _filler(item_schema["properties"][n]) for n in item_schema.get("required", [])}
        item[str(path[2])] = bad
        args[head] = [item]
    return args


@pytest.mark.slow
def test_catalogue_surrogates_in_every_string_argument_of_every_tool(wire: StdioWire) -> None:
    tools = (wire.request("tools/list") or {})["result"]["tools"]
    failures = []
    probes = 0
    fields = 0
    for tool in tools:
        for path, _ in _string_paths(tool["inputSchema"]):
            fields += 1
            for variant, marker in (("escape", "\udcff"), ("escape-high", "\ud800x"), ("bytes", "\x00BAD\x00")):
                args = _arguments(tool["inputSchema"], path, f"a{marker}b")
                raw = json.dumps({"jsonrpc": "2.0", "id": 5000 + probes, "method": "tools/call",
                                  "params": {"name": tool["name"], "arguments": args}}).encode()
                if variant == "bytes":  # raw bytes that are not UTF-8, where the JSON text has the marker
                    raw = raw.replace(b"\\u0000BAD\\u0000", b"\xff\xc0")
                reply = wire.exchange(raw, ("bad-input", 5000 + probes))
                if not _matches(reply, ("bad-input", 5000 + probes)):
                    failures.append((tool["name"], path, variant, str(reply)[:200]))
                probes += 1
    assert fields >= 30, f"only {fields} string fields found"  # 36 in this build
    failures += _still_correct(wire)
    report(f"lone surrogates / undecodable bytes in every string argument ({fields} fields of {len(tools)} tools)",
           probes, failures)


@pytest.mark.slow
def test_text_from_disk_that_cannot_be_encoded_never_breaks_a_response(root: Path, server_env: dict[str, str],
                                                                       tmp_path: Path) -> None:
    w = StdioWire(root, server_env, tmp_path / "server.log")
    w.send(json.dumps(INIT).encode())
    w.read()
    w.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    try:
        assert not (w.request("tools/call", {"name": "initialize_ast_grep", "arguments": {}}) or {})["result"].get(
            "isError")
        rule = 'language: python\nseverity: error\nmessage: "m\\udcff"\nrule: {pattern: eval($X)}\n'
        (root / "rules" / "s.yml").write_text('id: "s\\udcff"\n' + rule)
        os.makedirs(root / "rules", exist_ok=True)
        with open(os.path.join(os.fsencode(root / "rules"), b"bad\xff.yml"), "w") as f:
            f.write("id: t2\n" + rule)
        (root / "rules" / "ok.yml").write_text("id: ok-rule\n" + rule)
        failures = []
        calls = [("list_rules", {}), ("scan_code", {"code": "eval(x)\n", "language": "python"}),
                 ("list_rules", {"rule_id": "ok-rule"}), ("scan_code", {}), ("list_rules", {"rule_id": "t2"})]
        for name, args in calls:
            reply = w.request("tools/call", {"name": name, "arguments": args})
            result = (reply or {}).get("result") or {}
            body = " ".join(c.get("text", "") for c in result.get("content", []))
            if reply is None or "engine-failed" in body or not body:
                failures.append((name, str(reply)[:300]))
        listed = w.request("tools/call", {"name": "list_rules", "arguments": {}}) or {}
        errors = listed["result"]["structuredContent"]["ruleErrors"]
        if not any("not valid UTF-8" in e["message"] for e in errors):
            failures.append(("the non-UTF-8 file name is not reported", errors))
        for method in ("resources/list", "ping"):
            if (w.request(method) or {}).get("result") is None:
                failures.append((method, "no result"))
        report("text from disk that cannot be encoded", len(calls) + 3, failures)
    finally:
        w.close()


def test_a_file_name_that_is_not_utf8_round_trips_through_the_tools(root: Path, server_env: dict[str, str],
                                                                     tmp_path: Path) -> None:
    """Issue 33.9: a file whose name is not UTF-8 (`caf\\xe9.py`, Latin-1) is found under its name escaped as the
    SPEC says (`caf\\udce9.py`), and that name passed back to a rewrite (find_code with `rewrite`, rewrite_code)
    and to apply_fixes edits that very file. Before, find_code left it out (ast-grep prints U+FFFD for the byte,
    which named no file), a rewrite answered [not-found] and apply_fixes skipped it with `skipped: []`; ast-grep
    itself panics on such a path argument."""
    w = StdioWire(root, server_env, tmp_path / "server.log")
    w.send(json.dumps(INIT).encode())
    w.read()
    w.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    odd = os.path.join(os.fsencode(root / "src"), b"caf\xe9.py")
    try:
        assert not (w.request("tools/call", {"name": "initialize_ast_grep", "arguments": {}}) or {})["result"].get(
            "isError")
        (root / "rules" / "no-eval.yml").write_text(
            "id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nmetadata: {fixSafety: safe}\n"
            "rule: {pattern: eval($X)}\nfix: safe_eval($X)\n")
        (root / "src").mkdir()
        (root / "src" / "ok.py").write_text("b = eval(y)\nc = print(y)\n")
        with open(odd, "wb") as f:
            f.write(b"a = eval(x)\nd = print(x)\n")

        def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            result: dict[str, Any] = (w.request("tools/call", {"name": name, "arguments": args}) or {})["result"]
            assert not result.get("isError"), (name, result)
            return dict(result.get("structuredContent") or {})

        found = call("find_code", {"pattern": "eval($X)", "language": "python"})
        names = sorted(m["file"] for m in found["matches"])
        assert names == ["src/caf\\udce9.py", "src/ok.py"], names  # the SPEC's escape, as JSON text
        rewritten = call("find_code", {"pattern": "print($X)", "rewrite": "log($X)", "language": "python",
                                       "paths": ["src/caf\\udce9.py"], "apply": True})
        assert rewritten["changedFiles"] == ["src/caf\\udce9.py"], rewritten
        fixed = call("apply_fixes", {"paths": ["src/caf\\udce9.py"], "apply": True, "include_unsafe": True})
        assert fixed["changedFiles"] == ["src/caf\\udce9.py"] and fixed["skipped"] == [], fixed
        with open(odd, "rb") as f:
            assert f.read() == b"a = safe_eval(x)\nd = log(x)\n"
        assert (root / "src" / "ok.py").read_text() == "b = eval(y)\nc = print(y)\n"  # only the file asked for
    finally:
        w.close()


def _post(client: httpx2.Client, url: str, body: bytes, session: str | None) -> tuple[int, dict[str, Any] | None]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session:
        headers["mcp-session-id"] = session
        headers["mcp-protocol-version"] = "2025-06-18"
    resp = client.post(url, content=body, headers=headers)
    if resp.status_code == 202 or not resp.content:
        return resp.status_code, None
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in resp.text.splitlines() if line.startswith("data:")]
        return resp.status_code, json.loads(data[-1]) if data and data[-1] else None
    return resp.status_code, resp.json()


@pytest.mark.slow
def test_catalogue_protocol_over_http(root: Path, server_env: dict[str, str], tmp_path: Path) -> None:
    with http_server(root, server_env, log=tmp_path / "http.log") as srv, httpx2.Client(timeout=60) as client:
        resp = client.post(srv.url, json=INIT, headers={"accept": "application/json, text/event-stream"})
        session = resp.headers.get("mcp-session-id")
        _post(client, srv.url, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', session)
        failures = []
        probes = [(raw, e) for raw, e in _protocol_probes() if e is not None and raw.strip()]
        for raw, expected in probes:
            status, reply = _post(client, srv.url, raw, session)
            if not _matches(reply, expected) or status >= 500:
                failures.append((raw[:80], expected, status, str(reply)[:200]))
        _, pong = _post(client, srv.url, b'{"jsonrpc":"2.0","id":7777,"method":"ping"}', session)
        if (pong or {}).get("result") != {}:
            failures.append(("ping after the probes", str(pong)[:200]))
        if srv.proc.poll() is not None:
            failures.append("server exited")
        report(f"protocol over HTTP ({len(probes)} malformed messages)", len(probes), failures)


def test_an_oversized_line_is_refused_and_the_next_one_served(root: Path, server_env: dict[str, str],
                                                              tmp_path: Path) -> None:
    w = StdioWire(root, {**server_env, "SGTOOLS_MAX_MESSAGE_BYTES": "4096"}, tmp_path / "server.log")
    try:
        w.send(json.dumps(INIT).encode())
        assert w.read() is not None
        big = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": "scan_code", "arguments": {"code": "x" * 100_000}}}).encode()
        reply = w.exchange(big, ("error", -32600, 2))  # answered with its id, so the client's call completes
        assert _matches(reply, ("error", -32600, 2)) and "over 4096 bytes" in str(reply)
        assert (w.request("ping") or {}).get("result") == {}
        for raw, msg_id in _oversized_messages():
            reply = w.exchange(raw, ("error", -32600, msg_id))
            assert _matches(reply, ("error", -32600, msg_id)), (raw[:60], raw[-60:], reply)
        assert (w.request("ping") or {}).get("result") == {}
    finally:
        w.close()


def _oversized_messages() -> list[tuple[bytes, Any]]:
    """Messages over a 4096-byte cap and the id their answer must carry: the outer object's id wherever it is
    readable (first, or last member at the very end), never an id nested in params, null when it cannot be told."""
    code = "x" * 100_000
    call = {"name": "scan_code", "arguments": {"code": code}}
    return [
        (json.dumps({"id": "first", "jsonrpc": "2.0", "method": "tools/call", "params": call}).encode(), "first"),
        (json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": call, "id": 41}).encode(), 41),
        (json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {**call, "id": 5}}).encode(), None),
        (json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"a": code, "b": {"id": 6}}}).encode(), None),
        (json.dumps([{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"a": code}}]).encode(), None),
        (json.dumps({"jsonrpc": "2.0", "id": True, "method": "ping", "params": {"a": code}}).encode(), None),
    ]


def test_an_oversized_http_body_is_a_json_rpc_error(root: Path, server_env: dict[str, str], tmp_path: Path) -> None:
    """Over SGTOOLS_MAX_MESSAGE_BYTES: HTTP 413 whose body is the JSON-RPC -32600 error (the SDK's was plain text),
    with the request's id when it can be read; the server serves the next request."""
    env = {**server_env, "SGTOOLS_MAX_MESSAGE_BYTES": "4096"}
    with http_server(root, env, log=tmp_path / "server.log") as srv, httpx2.Client(timeout=REPLY_TIMEOUT) as client:
        big = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": "scan_code", "arguments": {"code": "x" * 100_000}}}).encode()
        for raw, msg_id in [(big, 2), *_oversized_messages()]:
            status, reply = _post(client, srv.url, raw, None)
            assert status == 413 and _matches(reply, ("error", -32600, msg_id)), (raw[:60], status, reply)
            assert "over 4096 bytes" in str(reply)
        status, reply = _post(client, srv.url, json.dumps(INIT).encode(), None)
        assert status == 200 and "result" in (reply or {}), reply
