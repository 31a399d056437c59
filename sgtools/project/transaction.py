"""Several files written as one change: all or nothing.

The rule store (a rule, its test file, its snapshots) and every source edit (`write_files`) go through
`write_all`, so a failure half way never leaves a project with half a change: the files already changed get
their old bytes back, a file the change created is removed again, and the error says so.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from sgtools.core.errors import SgToolsError
from sgtools.core.oserrors import io_error
from sgtools.project import journal
from sgtools.project.workspace import Workspace


def write_all(ws: Workspace, writes: Mapping[Path, bytes | None]) -> None:
    """Write each file's bytes (None removes it), in order, through the workspace's atomic write. If one
    fails, undo the earlier ones, newest first, and raise with what was restored added to the message (an
    OSError as the SPEC error `io_error` gives it, naming the file). The caller holds the workspace lock.
    A crash (SIGKILL, power cut) between two files is covered by the journal written first (project/journal):
    the next start finishes the change."""
    plan = [journal.Change(path, path.read_bytes() if path.is_file() else None, data)
            for path, data in writes.items()]
    journaled = journal.begin(ws, plan)
    done: list[tuple[Path, bytes | None]] = []
    current: Path | None = None
    try:
        for change in plan:
            current = change.target
            if change.new is None:
                ws.remove(change.target)
            else:
                ws.write_bytes(change.target, change.new)
            done.append((change.target, change.old))
    except (OSError, SgToolsError) as exc:
        detail = _undo(ws, done, journaled)
        if isinstance(exc, SgToolsError):
            exc.message += detail
            exc.args = (exc.message,)
            raise
        rel = ws.relative(current) if current is not None else ""
        fault = io_error(OSError(exc.errno, exc.strerror, rel), "writing")
        fault.message += detail
        fault.args = (fault.message,)
        raise fault from None
    except BaseException:
        _undo(ws, done, journaled)  # interrupted: put things back, then let the interruption through
        raise
    if journaled:
        journal.end(ws)


def _undo(ws: Workspace, done: list[tuple[Path, bytes | None]], journaled: bool) -> str:
    """Put back what `done` changed; a sentence for the error message (empty when nothing was changed). When a
    file cannot be put back, the journal stays and the next start completes the change instead."""
    failed: list[str] = []
    for path, old in reversed(done):
        try:
            if old is None:
                ws.remove(path)
            else:
                ws.write_bytes(path, old)
        except (OSError, SgToolsError):
            failed.append(ws.relative(path))
    if failed:
        return (f" Could not restore {', '.join(failed)}: the next command completes the change instead."
                if journaled else f" Could not restore {', '.join(failed)}: check them by hand.")
    if journaled:
        # If even this fails, the next start replays the change: the project ends whole (all new), not torn.
        with contextlib.suppress(OSError, SgToolsError):
            journal.end(ws)
    return f" The {len(done)} file(s) written before it were restored." if done else ""
