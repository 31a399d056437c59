"""Byte-offset edits on text, git-style diffs, and the one all-or-nothing write of several source files.

ast-grep reports offsets in UTF-8 bytes, so edits are applied to the encoded text, never to `str` indices.
`rewrite_code`, `apply_fixes` and `scan --fix` all write through `write_files`, so every source write in the
package shares one set of guarantees: confined paths, one lock, a check that nobody changed a file since it
was read, newline style and BOM kept, and a restore of the earlier files if a later write fails.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import bisect
import itertools
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

from sgtools.contracts.common import Position
from sgtools.core.errors import BadInput, Conflict, NotFound, TooLarge
from sgtools.core.lazyre import LazyRe
from sgtools.project.workspace import Workspace

OverlapPolicy = Literal["error", "skip"]
OVERLAP_POLICIES: tuple[str, ...] = ("error", "skip")
BOM = "\ufeff"
_BARE_LF = LazyRe(r"(?<!\r)\n")
_LINE_END = LazyRe(r"(?<=\n)")


class Span(NamedTuple):
    """One validated edit: replace bytes [start, end) with `new_text`; `source` is the caller's dict
    (a NamedTuple: every CLI start defines it, and a dataclass costs several times more to define)."""

    start: int
    end: int
    new_text: str
    source: Mapping[str, Any]

    @property
    def empty(self) -> bool:
        return self.start == self.end

    def same_as(self, other: "Span") -> bool:
        return (self.start, self.end, self.new_text) == (other.start, other.end, other.new_text)

    def overlaps(self, other: "Span") -> bool:
        """Two replacements sharing a byte, or two insertions at one point (their order would be a guess).
        An insertion at the edge of a replacement is not an overlap: it goes before or after it."""
        if self.empty and other.empty:
            return self.start == other.start and not self.same_as(other)
        if self.empty or other.empty:
            point, span = (self, other) if self.empty else (other, self)
            return span.start < point.start < span.end
        return self.start < other.end and other.start < self.end and not self.same_as(other)


def to_span(edit: Mapping[str, Any]) -> Span:
    """Check one edit dict's shape; offsets are checked against the text later."""
    if type(edit) is dict:  # the usual edit, checked in one line (the checks below cost ~5 us an edit)
        start, end, new = edit.get("byteStart"), edit.get("byteEnd"), edit.get("newText")
        if type(start) is int and type(end) is int and type(new) is str and 0 <= start <= end:
            return Span(start, end, new, edit)
    if not isinstance(edit, Mapping):
        raise BadInput(f"An edit must be an object with byteStart, byteEnd and newText, not {type(edit).__name__}.")
    start, end, new = edit.get("byteStart"), edit.get("byteEnd"), edit.get("newText")
    for name, value in (("byteStart", start), ("byteEnd", end)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise BadInput(f"Edit {name} must be a non-negative integer byte offset, not {value!r}.")
    if not isinstance(new, str):
        raise BadInput(f"Edit newText must be a string, not {type(new).__name__}.")
    assert isinstance(start, int) and isinstance(end, int)
    if end < start:
        raise BadInput(f"Edit byteEnd {end} is before byteStart {start}. Give the range start first.")
    return Span(start, end, new, edit)


def _order(span: Span) -> tuple[int, int, int]:
    # At one start offset: an insertion first, then the widest replacement (an outer match beats a nested one).
    return (span.start, 0 if span.empty else 1, -span.end)


def split_overlapping(edits: Iterable[Mapping[str, Any]]) -> tuple[list[Span], list[Span]]:
    """The edits in application order, and those dropped because they overlap one kept before them.

    Policy: sort by start (insertions first at a point, then the widest span); keep an edit unless it
    overlaps one already kept. Exact duplicates collapse into one and are not reported as skipped.
    """
    spans = sorted((to_span(e) for e in edits), key=_order)
    kept: list[Span] = []
    skipped: list[Span] = []
    for span in spans:
        near = list(_neighbours(kept, span))
        if any(span.same_as(k) for k in near):
            continue
        if any(span.overlaps(k) for k in near):
            skipped.append(span)
        else:
            kept.append(span)
    return kept, skipped


def _neighbours(kept: list[Span], span: Span) -> Iterable[Span]:
    # Kept spans are sorted and disjoint, so only the last few can reach `span`'s start.
    for k in reversed(kept):
        if k.end < span.start:
            break
        yield k


def _check_bounds(data: bytes, spans: Sequence[Span]) -> None:
    size = len(data)
    for s in spans:
        if s.end > size:
            raise BadInput(
                f"Edit range {s.start}..{s.end} is past the end of the text ({size} bytes). "
                "The file probably changed since it was scanned; scan again."
            )
        for off in (s.start, s.end):
            if off < size and (data[off] & 0xC0) == 0x80:
                raise BadInput(
                    f"Edit offset {off} falls inside a UTF-8 character. Offsets must be UTF-8 byte offsets "
                    "as ast-grep reports them; the file probably changed since it was scanned."
                )


def _encode(text: str) -> bytes:
    if not isinstance(text, str):
        raise BadInput(f"Expected text, not {type(text).__name__}.")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("The text contains unpaired surrogates and cannot be encoded as UTF-8.") from None


def apply_edits_skipping(text: str, edits: Iterable[Mapping[str, Any]]) -> tuple[str, list[Span], list[Span]]:
    """Apply the non-overlapping edits; return the new text, the applied spans and the skipped ones."""
    data = _encode(text)
    kept, skipped = split_overlapping(edits)
    _check_bounds(data, kept)
    out = bytearray()
    pos = 0
    for span in kept:
        out += data[pos:span.start]
        out += _encode(span.new_text)
        pos = span.end
    out += data[pos:]
    return out.decode("utf-8"), kept, skipped


def apply_edits(text: str, edits: Iterable[Mapping[str, Any]], *, on_overlap: OverlapPolicy = "error") -> str:
    """Apply byte-offset edits to `text`. Overlapping edits raise `Conflict` (`on_overlap="error"`), or
    the later ones are dropped (`on_overlap="skip"`; use `apply_edits_skipping` to learn which)."""
    if on_overlap not in OVERLAP_POLICIES:
        raise BadInput(f"on_overlap must be one of {', '.join(OVERLAP_POLICIES)}, not {on_overlap!r}.")
    new_text, _kept, skipped = apply_edits_skipping(text, edits)
    if skipped and on_overlap == "error":
        s = skipped[0]
        raise Conflict(
            f"{len(skipped)} edit(s) overlap others, the first at bytes {s.start}..{s.end}. "
            "Drop or merge the overlapping edits, or apply them in separate passes."
        )
    return new_text


def position(raw_range: Mapping[str, Any]) -> Position:
    """ast-grep ranges: 0-based lines and 0-based code-point columns; the SPEC wants both 1-based. (Here, beside
    LineIndex, so that structural search gets it without importing the diagnostics machinery.)"""
    start = raw_range["start"]
    end = raw_range["end"]
    return {
        "line": int(start["line"]) + 1,
        "column": int(start["column"]) + 1,
        "endLine": int(end["line"]) + 1,
        "endColumn": int(end["column"]) + 1,
    }


class LineIndex:
    """Byte offset -> 1-based (line, code-point column), as the SPEC's positions count them."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        # What callers derive from one line and would otherwise redo for each finding on it (fixits/build.py).
        self.memo: dict[Any, Any] = {}
        # Line start offsets at C speed (a regex scan with a Python list comprehension is 5x slower on big files).
        self.starts = list(itertools.accumulate(map((1).__add__, map(len, data.split(b"\n")[:-1])), initial=0))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        if start == offset:
            return line + 1, 1
        return line + 1, len(self.data[start:offset].decode("utf-8", "replace")) + 1

    def span(self, start: int, end: int) -> Position:
        line, column = self.position(start)
        end_line, end_column = (line, column) if end == start else self.position(end)
        return {"line": line, "column": column, "endLine": end_line, "endColumn": end_column}


def unified_diff(path: str, old: str, new: str, *, context: int = 3) -> str:
    """A git-style diff of one file (`diff --git a/p b/p`); empty when nothing changed. Line endings are
    kept as they are, and a last line without a newline is marked as git marks it."""
    if old == new:
        return ""
    import difflib  # a scan that only reads positions (the CLI's one-file check) never diffs

    a = _lines(old)
    b = _lines(new)
    out = [f"diff --git a/{path} b/{path}\n"]
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}", n=context, lineterm="\n"):
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    # Only "\n" ends a line, as in git; str.splitlines would also split on \r, \f, U+2028 and others.
    return [line for line in _LINE_END.split(text) if line]


def combined_diff(texts: Mapping[str, tuple[str, str]]) -> str:
    """One diff for several files, in path order so that the same change always gives the same text."""
    return "".join(unified_diff(path, old, new) for path, (old, new) in sorted(texts.items()))


def write_previewed(ws: Workspace, texts: Mapping[str, tuple[str, str]], originals: Mapping[str, bytes], *,
                    apply: bool, expected_diff: str | None, what: str) -> tuple[str, list[str]]:
    """The diff of `texts` ({path: (old, new)}) and, with `apply`, the paths written: only if the diff is
    `expected_diff` (when given: the preview that was reviewed) and no file changed since it was read
    (`originals`). `what` starts the refusal, e.g. "The change differs from the preview it was"."""
    diff = combined_diff(texts)
    if apply and expected_diff is not None and expected_diff != diff:
        raise Conflict(
            f"{what} meant to apply (the files changed since). Nothing was written; preview again and review "
            "the new diff."
        )
    written = write_files(ws, {f: new for f, (_old, new) in texts.items()}, expected=originals) \
        if apply and texts else []
    return diff, written


def read_source(ws: Workspace, path: str | Path) -> tuple[Path, bytes, str]:
    """A source file's resolved path, bytes and text; too big or not UTF-8 is refused."""
    target = ws.resolve(path, must_exist=True)
    if not target.is_file():
        raise BadInput(f"{path} is not a file. Pass a source file.")
    limit = ws.settings.max_file_bytes
    size = target.stat().st_size
    if size > limit:
        raise TooLarge(
            f"{ws.relative(target)} is {size} bytes, over the {limit}-byte limit for files that are edited. "
            "Leave it out of paths, or raise SGTOOLS_MAX_FILE_BYTES."
        )
    data = ws.read_bytes(ws.relative(target))  # confined: never through a folder swapped for a symlink since
    return target, data, decode_source(data, ws.relative(target))


def decode_source(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(
            f"{name} is not valid UTF-8 (byte {exc.start}). Only UTF-8 source files are edited; convert it first."
        ) from None


def match_style(old: bytes, old_text: str, new_text: str) -> str:
    """Keep the file's BOM, and its CRLF line ends when every line had them. Callers apply it before
    diffing too, so that a preview shows the bytes that will be written."""
    if old_text.startswith(BOM) and not new_text.startswith(BOM):
        new_text = BOM + new_text
    crlf = old.count(b"\r\n")
    if crlf and crlf == old.count(b"\n"):
        new_text = _BARE_LF.sub("\r\n", new_text)
    return new_text


class _Pending(NamedTuple):
    """One file of a write (a NamedTuple: cheaper than a dataclass to define on every CLI start)."""

    target: Path
    rel: str
    new: bytes


def write_files(
    ws: Workspace, changes: Mapping[str, str], *, expected: Mapping[str, bytes] | None = None
) -> list[str]:
    """Write new texts for existing UTF-8 files, all or nothing, under one workspace lock.

    Everything is checked before the first byte is written: confinement, size, encoding, and (for each path
    in `expected`) that the file still holds exactly the bytes the caller computed its change from;
    otherwise `Conflict` and nothing is written. If a write fails midway, the files already written get
    their old bytes back. Returns the relative paths whose bytes changed, sorted.
    """
    if not changes:
        return []
    limit = ws.settings.max_file_bytes
    resolved: dict[Path, str] = {}
    for key, text in changes.items():
        if not isinstance(text, str):
            raise BadInput(f"The new content for {key} must be text, not {type(text).__name__}.")
        target = ws.resolve(key)
        if target in resolved:
            raise BadInput(f"{key} and {resolved[target]} name the same file. Give each file once.")
        resolved[target] = key
    with ws.lock():
        pending: list[_Pending] = []
        for target, key in sorted(resolved.items()):
            rel = ws.relative(target)
            if not target.exists():
                raise NotFound(f"{rel} does not exist (any more). Scan again before writing.")
            if not target.is_file():
                raise BadInput(f"{rel} is not a regular file. Only existing source files are edited.")
            if target.stat().st_size > limit:
                raise TooLarge(f"{rel} is over the {limit}-byte limit for edited files. Raise SGTOOLS_MAX_FILE_BYTES.")
            old = target.read_bytes()
            if expected is not None and key in expected and old != expected[key]:
                raise Conflict(
                    f"{rel} changed since it was read, so the edits no longer fit it. Nothing was written; "
                    "run the tool again to compute the change from the current file."
                )
            old_text = decode_source(old, rel)
            new = _encode(match_style(old, old_text, changes[key]))
            if len(new) > limit:
                raise TooLarge(f"The new {rel} would be {len(new)} bytes, over the {limit}-byte limit.")
            if new != old:
                pending.append(_Pending(target, rel, new))
        from sgtools.project.transaction import write_all  # a scan only reads: the journal is for writes

        write_all(ws, {item.target: item.new for item in pending})
    return sorted(item.rel for item in pending)
