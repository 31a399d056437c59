"""Several files written as one change: all or nothing.

The rule store (a rule, its test file, its snapshots) and every source edit (`write_files`) go through
`write_all`, so a failure half way never leaves a project with half a change: the files already changed get
their old bytes back, a file the change created is removed again, and the error says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sgtools.core.errors import SgToolsError
from sgtools.core.oserrors import io_error
from sgtools.project.workspace import Workspace


def write_all(ws: Workspace, writes: Mapping[Path, bytes | None]) -> None:
    """Write each file's bytes (None removes it), in order, through the workspace's atomic write. If one
    fails, undo the earlier ones, newest first, and raise with what was restored added to the message (an
    OSError as the SPEC error `io_error` gives it, naming the file). The caller holds the workspace lock."""
    done: list[tuple[Path, bytes | None]] = []
    current: Path | None = None
    try:
        for path, data in writes.items():
            current = path
            old = path.read_bytes() if path.is_file() else None
            if data is None:
                ws.remove(path)
            else:
                ws.write_bytes(path, data)
            done.append((path, old))
    except (OSError, SgToolsError) as exc:
        detail = _undo(ws, done)
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
        _undo(ws, done)  # interrupted: put things back, then let the interruption through
        raise


def _undo(ws: Workspace, done: list[tuple[Path, bytes | None]]) -> str:
    """Put back what `done` changed; a sentence for the error message (empty when nothing was changed)."""
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
        return f" Could not restore {', '.join(failed)}: check them by hand."
    return f" The {len(done)} file(s) written before it were restored." if done else ""
