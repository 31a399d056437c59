"""The warm engine: long-lived `ast-grep lsp` processes (engine/lsp.py), one per distinct rule set, reused across
MCP calls so a snippet check costs a document round trip (~0.5 ms) instead of a process start that re-reads and
re-compiles every rule (5-8 ms each, two or three per scan_code call before).

Decision, from measurements (engine/lsp.py has the protocol facts): LSP mode gives the same matches, messages,
severities and code-point positions as `ast-grep scan`, and the fix's replacement through a code action. It does
not give labels without a message (the secondary nodes of `inside`/`has`...) or the style of labelled ones:
scan/warmscan.py adds a label twin of each relational rule (labels with a marker message) and leaves the few
rules a twin cannot stand for to a spawn. Fix-it verification only needs rule ids and byte ranges, so it is always warm.

Life cycle: a process is started lazily for a key (binary, generated sgconfig, a freshness stamp of the config
and util files, the content-addressed rule file, the `--custom-languages` flag), so any change of a rule, a util
or the config is a new key and never a stale answer. At most `warm_engine_max` live processes (least recently
used killed first). A crash, a hang past `warm_engine_timeout` or a protocol error SIGKILLs the process
(reaped), the call falls back to the spawn path (`WarmUnavailable`), and the next call starts a fresh one. atexit
kills them all, and each dies with the server however it ends (engine/lifecycle.py). `SGTOOLS_WARM_ENGINE=0`
turns the whole thing off.

Lanes: a call with several documents (fix-it verification, a pending change) splits them over
`warm_engine_lanes` processes of the same key, answered at the same time on the machine's cores; each lane is
one more process with exactly the life cycle above.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.core.settings import Settings
from sgtools.engine import lifecycle
from sgtools.engine.lsp import Diag, LspSession
from sgtools.engine.lsp_protocol import ProtocolError
from sgtools.engine.tempdirs import tmp_root

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch, MatchLabel, MatchRange

_SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
# Documents opened with `checks` are `<root>/<CHECKS_FOLDER><n>/<name>`, the others `<root>/<n>/<name>`: a rule
# with `files: [CHECKS_GLOB]` (ast-grep matches it against the path under the root) runs on the first only, one
# with `ignores: [CHECKS_GLOB]` on the others.
CHECKS_FOLDER = "checks-"
CHECKS_GLOB = f"{CHECKS_FOLDER}*/*"


class WarmUnavailable(Exception):
    """The warm engine cannot answer this call; the caller uses the spawn path (and says why, in `reason`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class WarmSpec:
    """What one warm scan needs. `config_body` is an sgconfig.yml whose only rule directory gets `rules_path`;
    `stamp` changes whenever a file it refers to (utils, the project config) changes."""

    binary: str
    config_body: str
    stamp: tuple[Any, ...]
    rules_path: Path
    flags: tuple[str, ...]
    file_name: str
    language: str

    def key(self) -> tuple[Any, ...]:
        return (self.binary, self.config_body, self.stamp, str(self.rules_path), self.flags)


@dataclass
class _Slot:
    lock: threading.Lock = field(default_factory=threading.Lock)
    session: LspSession | None = None
    refused: str | None = None  # the rules did not load: this key stays on the spawn path


@dataclass
class WarmStats:
    """What server_info reports: which path served the last snippet call, and how often each did."""

    last: str = "none"
    last_reason: str | None = None
    warm_calls: int = 0
    spawn_calls: int = 0
    starts: int = 0
    kills: int = 0


class WarmEngine:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.stats = WarmStats()
        self._lock = threading.Lock()
        self._slots: OrderedDict[tuple[Any, ...], _Slot] = OrderedDict()
        self._closed = False
        atexit.register(self.close)

    # ---- the calls --------------------------------------------------------------------------------

    def scan(self, spec: WarmSpec, texts: Sequence[str], fixes_for: frozenset[str] = frozenset(), skip: str = "",
             checks: bool = True) -> list[list[AstGrepMatch]]:
        """Each text as a document: its matches in `ast-grep scan --json` shape (byte offsets, 0-based
        code-point columns, `text`; `replacement`/`replacementOffsets` for rules in `fixes_for`), leaving out
        those of rules whose id starts with `skip` (when given) before they are converted. `checks`: the documents
        are opened under `CHECKS_GLOB`, where the rules scoped to it run (fix-it verification's), else outside it.
        `WarmUnavailable` when the warm engine cannot answer; the failed process is then gone.

        Several texts are split over `warm_engine_lanes` processes of the same rule set, each answering its
        share at the same time (a language server works through its documents one at a time, on one core):
        lane n > 0 is a slot of its own, keyed by the spec's key and n, so it starts, fails, restarts and is
        evicted exactly as lane 0 does. When any lane cannot answer, the whole call is `WarmUnavailable`."""
        if not texts:
            return []
        call = lifecycle.current()
        lanes = max(1, min(self.settings.warm_engine_lanes, self.settings.warm_engine_max, len(texts)))
        if lanes == 1:
            return self._scan_lane(spec, 0, texts, fixes_for, skip, checks)
        size = -(-len(texts) // lanes)
        shares = [texts[i:i + size] for i in range(0, len(texts), size)]
        results: list[list[list[AstGrepMatch]] | None] = [None] * len(shares)
        failures: list[Exception] = []

        def run(lane: int) -> None:
            try:
                # the lane thread serves the same call: its end abandons this lane's request too
                results[lane] = lifecycle.run_in(call, self._scan_lane, spec, lane, shares[lane], fixes_for,
                                                skip, checks)
            except Exception as exc:  # raised in the caller's thread below, whatever it is
                failures.append(exc)

        helpers = [threading.Thread(target=run, args=(lane,), name=f"sgtools-warm-lane-{lane}", daemon=True)
                   for lane in range(1, len(shares))]
        for t in helpers:
            t.start()
        run(0)
        for t in helpers:
            t.join()  # bounded: each lane's requests have the warm engine's deadline
        if failures:
            raise failures[0]
        answered = [found for share in results if share is not None for found in share]
        if len(answered) != len(texts):
            raise WarmUnavailable("a lane of the warm engine gave no answer")
        return answered

    def _scan_lane(self, spec: WarmSpec, lane: int, texts: Sequence[str],
                   fixes_for: frozenset[str], skip: str = "", checks: bool = True) -> list[list[AstGrepMatch]]:
        call = lifecycle.current()  # the MCP call this lane serves (None outside one)
        slot = self._slot(spec.key() + ((lane,) if lane else ()))
        if not slot.lock.acquire(timeout=self.settings.warm_engine_timeout):
            raise WarmUnavailable("the warm engine is busy with another call")
        try:
            for retry in (False, True):
                session, fresh = self._session(slot, spec)
                lifecycle.lend(call, session.proc)  # the call's end (cancel, timeout) kills it mid-request
                try:
                    return self._scan(session, spec, texts, fixes_for, skip, checks)
                except (ProtocolError, KeyError, TypeError, ValueError) as exc:  # an answer of the wrong shape too
                    session.kill()
                    slot.session = None
                    self._count("kills")
                    if call is not None and call.ended:
                        raise WarmUnavailable("the call ended: its request was abandoned") from None
                    # A process that died since its last call is only noticed now: one more try with a new one.
                    # A hang (the deadline) or a fresh process that fails is not retried.
                    if fresh or retry or not isinstance(exc, ProtocolError) or exc.hang:
                        raise WarmUnavailable(f"the warm engine failed and was stopped ({exc})") from None
                finally:
                    lifecycle.give_back(call, session.proc)
        finally:
            slot.lock.release()
        raise AssertionError("unreachable")

    def _deadline(self) -> float:
        """When a request started now must have its answer."""
        return time.monotonic() + self.settings.warm_engine_timeout

    def _scan(self, session: LspSession, spec: WarmSpec, texts: Sequence[str],
              fixes_for: frozenset[str], skip: str = "", checks: bool = True) -> list[list[AstGrepMatch]]:
        deadline = self._deadline()
        uris, published = session.open(spec.file_name, spec.language, texts, deadline,
                                       CHECKS_FOLDER if checks else "")
        if skip:
            published = [[d for d in diags if not str(d.get("code", "")).startswith(skip)] for diags in published]
        fixes = self._fixes(session, uris, published, fixes_for, deadline)
        session.close(uris, deadline)
        return [to_matches(text, diags, fx, spec.language)
                for text, diags, fx in zip(texts, published, fixes, strict=True)]

    def note(self, path: str, reason: str | None = None) -> None:
        """Record which path served a snippet call ("warm" or "spawn") and why it was not warm."""
        with self._lock:
            self.stats.last, self.stats.last_reason = path, reason
            if path == "warm":
                self.stats.warm_calls += 1
            else:
                self.stats.spawn_calls += 1

    def pids(self) -> list[int]:
        with self._lock:
            return [s.session.pid for s in self._slots.values() if s.session is not None]

    def close(self) -> None:
        """Stop every process (atexit, and when the server stops)."""
        with self._lock:
            self._closed = True
            slots = list(self._slots.values())
            self._slots.clear()
        for slot in slots:
            if slot.session is not None:
                slot.session.kill()
                slot.session = None

    # ---- plumbing ---------------------------------------------------------------------------------

    def _slot(self, key: tuple[Any, ...]) -> _Slot:
        evicted: list[_Slot] = []
        with self._lock:
            if self._closed:
                raise WarmUnavailable("the warm engine is shut down")
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = _Slot()
            self._slots.move_to_end(key)
            while len(self._slots) > self.settings.warm_engine_max:
                evicted.append(self._slots.popitem(last=False)[1])
        for old in evicted:
            with old.lock:  # a call in flight on it finishes first
                if old.session is not None:
                    old.session.kill()
                    old.session = None
        return slot

    def _session(self, slot: _Slot, spec: WarmSpec) -> tuple[LspSession, bool]:
        """The slot's live process, or a new one (then True)."""
        if slot.refused is not None:
            raise WarmUnavailable(slot.refused)
        if slot.session is not None and slot.session.alive():
            return slot.session, False
        if slot.session is not None:  # it died between calls (killed, crashed): reap it, start another
            slot.session.kill()
            self._count("kills")
        slot.session = None
        root = _config_dir(spec)
        argv = [spec.binary, "lsp", "-c", str(root / "sgconfig.yml"), *spec.flags]
        try:
            slot.session = LspSession(argv, root, max_bytes=self.settings.engine_max_output,
                                      deadline=self._deadline())
        except ProtocolError as exc:
            if "could not load the rules" in str(exc):
                slot.refused = f"the warm engine could not load these rules ({exc})"
            raise WarmUnavailable(f"the warm engine did not start ({exc})") from None
        self._count("starts")
        return slot.session, True

    def _count(self, what: str) -> None:
        with self._lock:  # lanes run on several threads
            setattr(self.stats, what, getattr(self.stats, what) + 1)

    @staticmethod
    def _fixes(session: LspSession, uris: Sequence[str], published: Sequence[list[Diag]], fixes_for: frozenset[str],
               deadline: float) -> list[list[list[dict[str, Any]] | None]]:
        """The quick-fix edits of each diagnostic whose rule has a fix (None for the others), asked of every
        document in one round trip."""
        wanted = [(uri, d) for uri, diags in zip(uris, published, strict=True) for d in diags
                  if str(d.get("code")) in fixes_for]
        edits = iter(session.quick_fixes(wanted, deadline) if wanted else [])
        return [[next(edits) if str(d.get("code")) in fixes_for else None for d in diags] for diags in published]


def _config_dir(spec: WarmSpec) -> Path:
    """A private directory holding the generated sgconfig.yml and `rules/` with a copy of the rule file: the
    server's workspace root, under which the documents are opened."""
    digest = hashlib.sha256(f"{spec.config_body}\0{spec.rules_path}".encode()).hexdigest()[:24]
    root = tmp_root() / f"warm-{digest}"
    if not (root / "sgconfig.yml").is_file():
        tmp = Path(f"{root}.{os.getpid()}.{threading.get_ident()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "rules").mkdir(parents=True)
        shutil.copyfile(spec.rules_path, tmp / "rules" / "rules.yml")
        (tmp / "sgconfig.yml").write_text(spec.config_body, encoding="utf-8")
        try:
            tmp.rename(root)
        except OSError:  # another thread made it first
            shutil.rmtree(tmp, ignore_errors=True)
    return root


class _Lines:
    """Code-point (line, column) -> UTF-8 byte offset in one text; lines split at `\\n` as ast-grep does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8")
        self.lines = text.split("\n")
        self.ascii = len(self.data) == len(text)  # a code point is a byte: no encoding per position
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + (len(line) if self.ascii else len(line.encode("utf-8"))) + 1)

    def offset(self, pos: dict[str, Any]) -> int:
        line, column = int(pos["line"]), int(pos["character"])
        if not 0 <= line < len(self.lines) or column < 0:
            raise ProtocolError(f"a position outside the document: {pos}")
        if self.ascii:
            return self.starts[line] + min(column, len(self.lines[line]))
        return self.starts[line] + len(self.lines[line][:column].encode("utf-8"))

    def label(self, related: dict[str, Any]) -> MatchLabel:
        rng = self.span(related["location"]["range"])
        off = rng["byteOffset"]
        message = related.get("message")
        return {"style": "secondary", "message": None if message == LABEL_MARK or not message else str(message),
                "range": rng, "text": self.data[off["start"]:off["end"]].decode("utf-8", "replace")}

    def span(self, rng: dict[str, Any]) -> MatchRange:
        start, end = rng["start"], rng["end"]
        return {"byteOffset": {"start": self.offset(start), "end": self.offset(end)},
                "start": {"line": int(start["line"]), "column": int(start["character"])},
                "end": {"line": int(end["line"]), "column": int(end["character"])}}


# The message of the labels scan/warmscan.py adds so that the server reports a relational rule's secondary nodes
# (it reports only labels that have a message); such a label is the message-less secondary label of the scan.
LABEL_MARK = "sgtools-secondary-label"


def to_matches(text: str, diags: Sequence[Diag], fixes: Sequence[list[dict[str, Any]] | None],
               language: str) -> list[AstGrepMatch]:
    """LSP diagnostics of one document as `ast-grep scan --json` matches: `relatedInformation` becomes labels
    (secondary; `LABEL_MARK` means no message); `note` is left to the rule, and the primary label (the match
    itself, which SPEC diagnostics drop) is not made up."""
    lines = _Lines(text)
    out: list[AstGrepMatch] = []
    for d, edits in zip(diags, fixes, strict=True):
        rng = lines.span(d["range"])
        off = rng["byteOffset"]
        match: AstGrepMatch = {
            "ruleId": str(d.get("code", "")), "severity": _SEVERITY.get(int(d.get("severity") or 4), "hint"),
            "message": str(d.get("message", "")), "note": None, "file": "STDIN", "language": language,
            "range": rng, "text": lines.data[off["start"]:off["end"]].decode("utf-8", "replace"),
            "labels": [lines.label(r) for r in d.get("relatedInformation") or []]}
        if edits:
            fix_range = lines.span(edits[0]["range"])["byteOffset"]
            match["replacement"] = str(edits[0].get("newText", ""))
            match["replacementOffsets"] = fix_range
        out.append(match)
    return out
