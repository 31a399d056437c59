"""Reads confined like writes: what ast-grep reported is kept only if the file it names, opened inside the root
with no symlink followed (`Workspace.open_file`), holds exactly the reported text at the reported offsets.

ast-grep walks folders by path: a folder swapped for a symlink to outside while it walks is read through, and
its matches name an inside-looking path. A match is returned only when the confined file has the same bytes at
every range the match quotes (its text and its labels' texts), so no text from outside the root reaches the
caller: where an inside file has the same bytes, those bytes are the inside file's own. A file that changed or
moved during the scan loses its matches, and the caller says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from sgtools.core.errors import SgToolsError
from sgtools.project.workspace import Workspace


def _spans(m: dict[str, Any]) -> Iterable[tuple[int, int, str]]:
    offsets = m["range"]["byteOffset"]
    yield int(offsets["start"]), int(offsets["end"]), str(m.get("text", ""))
    for label in m.get("labels") or []:
        lo = label["range"]["byteOffset"]
        yield int(lo["start"]), int(lo["end"]), str(label.get("text", ""))


def _holds(fd: int, m: dict[str, Any]) -> bool:
    for start, end, text in _spans(m):
        want = text.encode("utf-8", "surrogateescape")
        if end - start != len(want) or os.pread(fd, len(want), start) != want:
            return False
    return True


def confined_matches(ws: Workspace, raw: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """(the matches whose file inside the root holds their text, the workspace-relative files whose matches were
    dropped). Each `file` must already be workspace-relative."""
    by_file: dict[str, list[int]] = {}
    for i, m in enumerate(raw):
        by_file.setdefault(str(m["file"]), []).append(i)
    keep = [False] * len(raw)
    dropped: list[str] = []
    for name, indexes in by_file.items():
        try:
            fd = ws.open_file(name)
        except (OSError, SgToolsError):
            dropped.append(name)
            continue
        try:
            for i in indexes:
                keep[i] = _holds(fd, raw[i])
        except OSError:
            pass
        finally:
            os.close(fd)
        if not all(keep[i] for i in indexes):
            dropped.append(name)
    return [m for i, m in enumerate(raw) if keep[i]], sorted(dropped)


def dropped_note(files: Sequence[str]) -> str:
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return (f"Matches in {len(files)} file(s) were left out because the file changed, or a folder on its path was "
            f"swapped for a symlink, while ast-grep read it: {shown}. Run the call again.")
