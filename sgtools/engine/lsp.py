"""One long-lived `ast-grep lsp` process: documents in, `publishDiagnostics` and quick fixes out.

What ast-grep 0.51.1's language server does, measured here (a spike against the real binary, 2026-11-26) and
read in its source (crates/lsp):
- `initialize` announces no `positionEncoding`, yet positions are not UTF-16: `character` counts Unicode code
  points from the line start (an emoji is one), lines split at `\\n` only (a `\\r` is a character), exactly the
  `column` of `ast-grep scan --json`. engine/warm.py turns them into byte offsets with the document text.
- After `initialized` it sends a `client/registerCapability` request (a watcher of `**/*.{yml,yaml}`); diagnostics
  only flow once it is answered. Every server request is answered here (null; `workspace/configuration` gets one
  null per item).
- `didOpen` of a document under the workspace root with a known extension gets one `publishDiagnostics` for that
  URI (an empty list for clean code); a document outside the root or with an unknown extension gets none.
  `didClose` publishes nothing. Each document here gets a fresh URI, so no answer can belong to older text.
- A diagnostic carries `code` (the rule id), `message` (metavariables interpolated; the rule id when the rule's
  message is empty), `severity` (1 error .. 4 hint), `range`, `codeDescription.href` (the url), and
  `relatedInformation` only for labels that have a message. Not carried: `note`, labels without a message
  (those of `inside`/`has`), metavariables, and the fix: `textDocument/codeAction` for one diagnostic answers a
  `quickfix` "Fix `<id>` with ast-grep" whose edit holds the replacement and its range; for several, one flat
  list (each diagnostic's fixes in order, the first of each `isPreferred`, none for one without a fix).
- Cost, 20 Python rules, 30-line snippet: first open ~4-6 ms, later opens ~0.4-0.6 ms, 20 documents pipelined
  ~2.4 ms, against 5-8 ms for one spawned `ast-grep scan`.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sgtools.engine.lsp_protocol import FrameReader, ProtocolError, encode, write_all
from sgtools.engine.spawn import Advice, LongLived, kill_group, spawn_long_lived

PUBLISH = "textDocument/publishDiagnostics"
# How ast-grep's server (tower-lsp, serde) serialises its `window/logMessage` notifications.
LOG_MESSAGE = b'{"jsonrpc":"2.0","method":"window/logMessage",'
Diag = dict[str, Any]


class LspSession:
    """A started, initialised `ast-grep lsp`; every method takes a monotonic deadline and raises `ProtocolError`
    (after killing the process) when the server dies, hangs or answers nonsense. Not thread-safe: the pool
    (engine/warm.py) holds a lock per session."""

    def __init__(self, argv: Sequence[str], root: Path, *, max_bytes: int, deadline: float) -> None:
        self.root = root
        self.proc: LongLived = spawn_long_lived(
            argv, cwd=root, name="ast-grep lsp",
            advice=Advice("Reinstall ast-grep-cli.", "Retry.", "Narrow the request."))
        assert self.proc.stdin is not None and self.proc.stdout is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.reader = FrameReader(self.proc.stdout.fileno(), max_bytes)
        self.ids = itertools.count(1)
        self.docs = itertools.count(1)
        self.published: dict[str, list[Diag]] = {}
        self.waiting: set[str] = set()
        self.responses: dict[int, dict[str, Any]] = {}
        self.rules_loaded: bool | None = None
        try:
            self.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {},
                                        "workspaceFolders": [{"uri": root.as_uri(), "name": "sgtools"}]}, deadline)
            self._send({"jsonrpc": "2.0", "method": "initialized", "params": {}}, deadline)
            self._pump(deadline, lambda: self.rules_loaded is not None)
            if not self.rules_loaded:
                raise ProtocolError("the server could not load the rules")
            self.reader.skip = LOG_MESSAGE  # read only to learn whether the rules loaded (`_note_rules`)
        except ProtocolError:
            self.kill()
            raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        kill_group(self.proc)

    # ---- requests ---------------------------------------------------------------------------------

    def request(self, method: str, params: dict[str, Any], deadline: float) -> Any:
        return self.requests([(method, params)], deadline)[0]

    def requests(self, calls: Sequence[tuple[str, dict[str, Any]]], deadline: float) -> list[Any]:
        """Several requests sent at once; their results in order."""
        ids = [next(self.ids) for _ in calls]
        self._send_many([{"jsonrpc": "2.0", "id": i, "method": m, "params": p}
                         for i, (m, p) in zip(ids, calls, strict=True)], deadline)
        self._pump(deadline, lambda: all(i in self.responses for i in ids))
        out = []
        for i in ids:
            reply = self.responses.pop(i)
            if "error" in reply:
                self.kill()
                raise ProtocolError(f"the server answered an error: {str(reply['error'])[:200]}")
            out.append(reply.get("result"))
        return out

    def open(self, name: str, language_id: str, texts: Sequence[str],
             deadline: float, folder: str = "") -> tuple[list[str], list[list[Diag]]]:
        """Each text opened as its own document `<root>/<folder><n>/<name>`: the URIs and the diagnostics per text,
        in order (a rule's `files` glob can tell documents apart by `folder`). The caller closes the URIs (`close`)
        once done with them, so memory stays bounded."""
        uris = [(self.root / f"{folder}{next(self.docs)}" / name).as_uri() for _ in texts]
        self.waiting.update(uris)
        self._send_many([{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": language_id, "version": 1, "text": text}}}
            for uri, text in zip(uris, texts, strict=True)], deadline)
        try:
            self._pump(deadline, lambda: all(u in self.published for u in uris))
        finally:
            self.waiting.difference_update(uris)
        return uris, [self.published.pop(u) for u in uris]

    def close(self, uris: Sequence[str], deadline: float) -> None:
        self._send_many([{"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": u}}}
                         for u in uris], deadline)

    def quick_fixes(self, wanted: Sequence[tuple[str, Diag]], deadline: float) -> list[list[dict[str, Any]]]:
        """The quick fixes of each (open document URI, diagnostic of it) pair, as `{"range", "newText"}` edits of
        that document: one codeAction request per document holding all its diagnostics, every document's sent
        together (one round trip). The server answers a flat list, each diagnostic's actions in order, the first
        of each marked `isPreferred`; when those marks do not split it into one group per diagnostic (one had no
        fix), that document's diagnostics are asked one request each, as the answer cannot be told apart."""
        by_uri: dict[str, list[Diag]] = {}
        for uri, d in wanted:
            by_uri.setdefault(uri, []).append(d)
        answers = self.requests([_code_action(uri, diags) for uri, diags in by_uri.items()], deadline)
        fixes: dict[str, list[list[dict[str, Any]]]] = {}
        alone: list[tuple[str, Diag]] = []
        for (uri, diags), answer in zip(by_uri.items(), answers, strict=True):
            groups = _per_diagnostic(answer)
            if groups is not None and len(groups) == len(diags):
                fixes[uri] = [_edits(uri, g) for g in groups]
            else:
                alone += [(uri, d) for d in diags]
        if alone:
            single = self.requests([_code_action(uri, [d]) for uri, d in alone], deadline)
            for (uri, _d), answer in zip(alone, single, strict=True):
                fixes.setdefault(uri, []).append(_edits(uri, answer if isinstance(answer, list) else []))
        taken = {uri: iter(lists) for uri, lists in fixes.items()}
        return [next(taken[uri]) for uri, _d in wanted]

    def shutdown(self, deadline: float) -> None:
        """A polite `shutdown` + `exit`, then the kill that makes sure (and reaps)."""
        try:
            self.request("shutdown", {}, deadline)
            self._send({"jsonrpc": "2.0", "method": "exit"}, deadline)
        except ProtocolError:
            pass
        finally:
            self.kill()

    # ---- plumbing ---------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any], deadline: float) -> None:
        self._send_many([message], deadline)

    def _send_many(self, messages: Sequence[dict[str, Any]], deadline: float) -> None:
        assert self.proc.stdin is not None
        try:
            write_all(self.proc.stdin.fileno(), b"".join(encode(m) for m in messages), deadline)
        except ProtocolError:
            self.kill()
            raise

    def _pump(self, deadline: float, done: Any) -> None:
        """Read messages until `done()`: answers are kept by id, diagnostics by URI, server requests answered."""
        try:
            while not done():
                self._handle(self.reader.read(deadline), deadline)
        except ProtocolError:
            self.kill()
            raise

    def _handle(self, message: dict[str, Any], deadline: float) -> None:
        method = message.get("method")
        if method is None:
            if isinstance(message.get("id"), int):
                self.responses[message["id"]] = message
            return
        if "id" in message:  # a request from the server: answer it, or it holds diagnostics back
            params = message.get("params")
            items = params.get("items") if isinstance(params, dict) else None
            result = [None] * len(items) if method == "workspace/configuration" and isinstance(items, list) else None
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": result}, deadline)
        elif method in ("window/logMessage", "window/showMessage") and self.rules_loaded is None:
            self._note_rules(message.get("params"))
        elif method == PUBLISH:
            params = message.get("params")
            if not isinstance(params, dict) or not isinstance(params.get("diagnostics"), list):
                raise ProtocolError("a publishDiagnostics without diagnostics")
            uri = str(params.get("uri"))
            if uri in self.waiting:
                self.published[uri] = params["diagnostics"]


    def _note_rules(self, params: object) -> None:
        """Whether the rules loaded, from the start-up log: "Rules reloaded successfully..." or an error message
        (type 1) such as "Failed to load rules: ...", after which the server would answer every document clean."""
        if not isinstance(params, dict):
            return
        text = str(params.get("message", ""))
        if params.get("type") == 1:
            self.rules_loaded = False
        elif text.startswith("Rules reloaded successfully"):
            self.rules_loaded = True


def _code_action(uri: str, diags: Sequence[Diag]) -> tuple[str, dict[str, Any]]:
    """A codeAction request for `diags` of one document (the server reads their ranges and ids, not `range`)."""
    return "textDocument/codeAction", {"textDocument": {"uri": uri}, "range": diags[0]["range"],
                                       "context": {"diagnostics": list(diags)}}


def _per_diagnostic(answer: object) -> list[list[Any]] | None:
    """A codeAction answer for several diagnostics split into each one's actions: a group starts at each action
    marked `isPreferred` (the server marks its first fix of each); None when the answer does not start with
    one."""
    if not isinstance(answer, list):
        return None if answer is not None else []
    groups: list[list[Any]] = []
    for action in answer:
        if isinstance(action, dict) and action.get("isPreferred") is True:
            groups.append([])
        elif not groups:
            return None
        groups[-1].append(action)
    return groups


def _edits(uri: str, actions: Sequence[Any]) -> list[dict[str, Any]]:
    """The text edits of `uri` in the quick-fix actions of one diagnostic."""
    edits: list[dict[str, Any]] = []
    for action in actions:
        if not isinstance(action, dict) or action.get("kind") != "quickfix":
            continue
        changes = ((action.get("edit") or {}).get("changes") or {}).get(uri) or []
        edits.extend(e for e in changes if isinstance(e, dict))
    return edits
