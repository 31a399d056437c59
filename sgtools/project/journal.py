"""Multi-file writes that are all or nothing, across crashes too: an intent journal.

Each file is replaced atomically, but a set of files (a rule and its test file, the files of one rewrite) is not:
a SIGKILL between two renames used to leave the project half-updated. So before the first rename, the old and
new bytes of every file go into `.sgtools-journal.json` at the root (atomic, fsynced); the journal is removed
after the last one. A failure while writing puts back what was written; a crash leaves the journal, and the next
`Workspace` (the start of any command or server) replays it: each file still at its old bytes gets its new ones,
so the project ends entirely new. A file that is neither (edited by hand since) is left alone and named in the
log; the journal is then kept aside as `.sgtools-journal.json.stale` for the user to inspect.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.core.errors import SgToolsError, Timeout
from sgtools.project.workspace import JOURNAL_NAME, Workspace

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    """The journal's logger, made when there is something to say: importing `logging` (with traceback and
    string) cost every writing CLI command ~25 million instructions, and a journal is rarely replayed."""
    import logging

    return logging.getLogger("sgtools.project.journal")

_VERSION = 1


class Change:
    """One file of a set: its bytes before (None: absent) and after (None: removed)."""

    __slots__ = ("new", "old", "target")

    def __init__(self, target: Path, old: bytes | None, new: bytes | None) -> None:
        self.target = target
        self.old = old
        self.new = new


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: Any) -> bytes | None:
    return None if text is None else base64.b64decode(str(text))


def _put(ws: Workspace, target: Path, data: bytes | None) -> None:
    if data is None:
        ws.remove(target)
    else:
        ws.write_bytes(target, data)


def _current(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def begin(ws: Workspace, changes: Sequence[Change]) -> bool:
    """Record the set before its first rename (the caller holds `ws.lock()`); a single file needs no journal,
    its own write is atomic. Returns whether a journal was written (then `end` it once the set is whole)."""
    if sum(1 for c in changes if c.old != c.new) < 2:
        return False
    entries = [{"path": ws.relative(c.target), "old": _b64(c.old), "new": _b64(c.new)} for c in changes]
    ws.write_bytes(JOURNAL_NAME, json.dumps({"version": _VERSION, "files": entries}).encode("utf-8"))
    return True


def end(ws: Workspace) -> None:
    """The set is whole again (all new, or all put back): forget it."""
    ws.remove(JOURNAL_NAME)


def pending(root: Path) -> bool:
    return os.path.lexists(root / JOURNAL_NAME)


def recover(ws: Workspace) -> list[str]:
    """Finish a set a crash interrupted (see the module docstring); returns the files written. `Workspace`
    does this when it is made and whenever its lock is taken."""
    try:
        with ws.lock():
            return replay_held(ws)
    except Timeout:
        _log().info("journal replay postponed: the project is locked by another writer")
        return []


def replay_held(ws: Workspace) -> list[str]:
    """`recover` with the lock already held. Never raises for a fault of its own: a command must still run
    (the journal stays for the next one)."""
    if not pending(ws.root):
        return []
    try:
        return _replay(ws)
    except (OSError, SgToolsError, ValueError, KeyError, TypeError) as exc:
        _log().warning("could not replay %s: %s", ws.root / JOURNAL_NAME, exc)
        return []


def _replay(ws: Workspace) -> list[str]:
    data = json.loads((ws.root / JOURNAL_NAME).read_bytes())
    changes = [Change(ws.resolve(e["path"]), _unb64(e["old"]), _unb64(e["new"])) for e in data["files"]]
    strangers = [c for c in changes if _current(c.target) not in (c.old, c.new)]
    if strangers:
        names = ", ".join(ws.relative(c.target) for c in strangers)
        _log().warning("an interrupted write was not replayed: %s changed since; the journal is kept as %s.stale",
                    names, JOURNAL_NAME)
        with contextlib.suppress(OSError):
            os.replace(ws.root / JOURNAL_NAME, ws.root / (JOURNAL_NAME + ".stale"))
        return []
    written = []
    for change in changes:
        if _current(change.target) != change.new:
            _put(ws, change.target, change.new)
            written.append(ws.relative(change.target))
    end(ws)
    if written:
        _log().warning("replayed an interrupted write: %s", ", ".join(written))
    return written
