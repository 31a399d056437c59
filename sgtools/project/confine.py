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
from typing import TYPE_CHECKING, TypeVar, cast

from sgtools.core.errors import SgToolsError
from sgtools.project.workspace import Workspace

if TYPE_CHECKING:  # no TypeVar at run time: its string bound would be compiled by typing on the CLI's path
    from sgtools.engine.match import MatchLabel, PatternMatch

    M = TypeVar("M", bound=PatternMatch)  # ast-grep's matches, with or without a rule's keys


def _spans(m: PatternMatch) -> Iterable[tuple[int, int, str]]:
    offsets = m["range"]["byteOffset"]
    yield int(offsets["start"]), int(offsets["end"]), str(m.get("text", ""))
    for label in cast("list[MatchLabel]", m.get("labels") or []):  # a rule's match has labels, a pattern's none
        lo = label["range"]["byteOffset"]
        yield int(lo["start"]), int(lo["end"]), str(label.get("text", ""))


def _holds(fd: int, m: PatternMatch) -> bool:
    for start, end, text in _spans(m):
        want = text.encode("utf-8", "surrogateescape")
        if end - start != len(want) or os.pread(fd, len(want), start) != want:
            return False
    return True


# ---- file names that are not UTF-8 ----------------------------------------------------------------------------
# ast-grep 0.51 prints such a name with U+FFFD for each bad byte sequence, and panics on one given as an argument.
# Here a name is a `str` with the bad bytes as lone surrogates (`surrogateescape`), as Python's os functions give
# it, so it names the real file; the MCP server writes those surrogates as `\udcXX` text, and takes them back.

_LOSSY = "\ufffd"


def _real_name(ws: Workspace, name: str) -> str | None:
    """The real workspace-relative name of a file ast-grep reported with U+FFFD in it: each such part matched, in
    its folder, with the one entry whose bytes decode to it (None when there is not exactly one)."""
    parts = name.split("/")
    for i, part in enumerate(parts):
        if _LOSSY not in part:
            continue
        try:
            entries = os.listdir(os.fsencode(os.path.join(ws.root, *parts[:i])))
        except OSError:
            return None
        hits = [e for e in entries if e.decode("utf-8", "replace") == part]
        if len(hits) != 1:
            return None
        parts[i] = hits[0].decode("utf-8", "surrogateescape")
    return "/".join(parts)


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def engine_paths(rels: Sequence[str]) -> tuple[list[str], list[str] | None]:
    """The workspace-relative paths to hand ast-grep for `rels`: a path whose name is not UTF-8 (ast-grep would
    panic on it) becomes its nearest folder whose name is; second, the paths asked for when any was so widened
    (then `within` keeps only their matches), else None."""
    out: list[str] = []
    widened = False
    for rel in rels:
        path = rel
        while not _utf8(path):
            widened = True
            path = os.path.dirname(path) or "."
        if path not in out:
            out.append(path)
    return out, (list(rels) if widened else None)


def within(raw: Sequence[M], asked: Sequence[str] | None) -> list[M]:
    """The matches inside the paths asked for (all of them when `asked` is None)."""
    if asked is None:
        return list(raw)
    if "." in asked:
        return list(raw)
    prefixes = tuple(a.rstrip("/") + "/" for a in asked)
    return [m for m in raw if str(m["file"]) in asked or str(m["file"]).startswith(prefixes)]


def confined_matches(ws: Workspace, raw: Sequence[M]) -> tuple[list[M], list[str]]:
    """(the matches whose file inside the root holds their text, the workspace-relative files whose matches were
    dropped). Each `file` must already be workspace-relative; a name ast-grep printed with U+FFFD for bytes that
    are not UTF-8 is given back its real name first (it would match no file)."""
    real: dict[str, str | None] = {}
    for m in raw:
        name = str(m["file"])
        if _LOSSY in name:
            if name not in real:
                real[name] = _real_name(ws, name)
            m["file"] = real[name] or name
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
