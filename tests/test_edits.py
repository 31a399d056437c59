"""Byte-offset edits, diffs and the all-or-nothing write, on real files in a temp workspace."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from sgtools.core.errors import BadInput, Conflict, IoFailure, NotFound, OutsideWorkspace, TooLarge
from sgtools.core.settings import Settings
from sgtools.edit import text as edits
from sgtools.edit.text import LineIndex, apply_edits, apply_edits_skipping, split_overlapping, unified_diff, write_files
from sgtools.project.workspace import Workspace
from tests.conftest import snapshot_tree


def e(start: int, end: int, new: str) -> dict[str, object]:
    return {"byteStart": start, "byteEnd": end, "newText": new}


# ---- apply_edits ------------------------------------------------------------------------------------

def test_edits_use_utf8_byte_offsets() -> None:
    text = 's = "héllo😀"; print(s)'
    start = text.encode().index(b"print")
    assert start == 18  # the offset ast-grep reports, not the str index 14
    assert apply_edits(text, [e(start, start + 8, "log(s)")]) == 's = "héllo😀"; log(s)'


def test_edits_apply_in_offset_order_whatever_the_input_order() -> None:
    text = "a b c"
    assert apply_edits(text, [e(4, 5, "C"), e(0, 1, "A"), e(2, 3, "B")]) == "A B C"


def test_insertion_at_the_edge_of_a_replacement_is_not_an_overlap() -> None:
    text = "abcdef"
    assert apply_edits(text, [e(2, 4, "XY"), e(2, 2, "<"), e(4, 4, ">")]) == "ab<XY>ef"


def test_overlapping_edits_raise_conflict_by_default() -> None:
    with pytest.raises(Conflict, match="overlap"):
        apply_edits("abcdef", [e(0, 3, "X"), e(2, 5, "Y")])
    with pytest.raises(Conflict):
        apply_edits("abc", [e(1, 1, "x"), e(1, 1, "y")])  # two insertions at one point: order unknowable


def test_skip_policy_keeps_the_outer_edit_and_reports_the_nested_one() -> None:
    text = "foo(foo(1))"
    outer, inner = e(0, 11, "bar(foo(1))"), e(4, 10, "bar(1)")
    assert apply_edits(text, [inner, outer], on_overlap="skip") == "bar(foo(1))"
    _new, kept, skipped = apply_edits_skipping(text, [inner, outer])
    assert [s.source for s in kept] == [outer]
    assert [s.source for s in skipped] == [inner]


def test_identical_edits_collapse_into_one() -> None:
    kept, skipped = split_overlapping([e(1, 2, "X"), e(1, 2, "X")])
    assert len(kept) == 1 and skipped == []
    assert apply_edits("abc", [e(1, 2, "X"), e(1, 2, "X")]) == "aXc"


@pytest.mark.parametrize(
    "edit, message",
    [
        (e(-1, 2, "x"), "non-negative"),
        (e(3, 2, "x"), "before byteStart"),
        (e(0, 99, "x"), "past the end"),
        ({"byteStart": 0, "byteEnd": 1}, "newText"),
        ({"byteStart": True, "byteEnd": 1, "newText": ""}, "non-negative integer"),
        (e(7, 8, "x"), "inside a UTF-8 character"),  # byte 7 is the second byte of "é"
    ],
)
def test_bad_edits_are_refused(edit: dict[str, object], message: str) -> None:
    with pytest.raises(BadInput, match=message):
        apply_edits('s = "héllo"', [edit])


def test_bad_overlap_policy_is_refused() -> None:
    with pytest.raises(BadInput, match="on_overlap"):
        apply_edits("a", [], on_overlap="merge")  # type: ignore[arg-type]


# ---- positions and diffs -------------------------------------------------------------------------

def test_line_index_counts_code_points_one_based() -> None:
    data = 's = "héllo😀"; print(s)\r\nprint(1)\n'.encode()
    index = LineIndex(data)
    assert index.position(18) == (1, 15)
    second = data.index(b"print(1)")
    assert index.span(second, second + 8) == {"line": 2, "column": 1, "endLine": 2, "endColumn": 9}
    assert index.position(len(data)) == (3, 1)


def test_unified_diff_is_git_style_and_stable() -> None:
    old = "a\nb\nc\n"
    new = "a\nB\nc\n"
    diff = unified_diff("src/x.py", old, new)
    assert diff == (
        "diff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    )
    assert unified_diff("src/x.py", old, new) == diff
    assert unified_diff("src/x.py", old, old) == ""


def test_unified_diff_marks_a_missing_final_newline_and_keeps_crlf() -> None:
    diff = unified_diff("x.py", "a\r\nb", "a\r\nc")
    assert "-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n" in diff
    assert " a\r\n" in diff
    # a form feed is not a line end (str.splitlines would say it is)
    assert unified_diff("x.py", "a\fb\n", "a\fc\n").count("\n-a") == 1


# ---- write_files -----------------------------------------------------------------------------------

def put(ws: Workspace, rel: str, data: bytes) -> Path:
    p = ws.root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def test_write_files_writes_every_file_and_reports_the_changed_ones(ws: Workspace) -> None:
    put(ws, "a.py", b"print(1)\n")
    put(ws, "sub/b.py", b"print(2)\n")
    written = write_files(ws, {"sub/b.py": "log(2)\n", "a.py": "print(1)\n"})
    assert written == ["sub/b.py"]  # a.py was unchanged, so it is not rewritten
    assert (ws.root / "sub/b.py").read_bytes() == b"log(2)\n"


def test_write_previewed_writes_only_the_reviewed_diff(ws: Workspace) -> None:
    put(ws, "a.py", b"one\n")
    texts = {"a.py": ("one\n", "ONE\n")}
    originals = {"a.py": b"one\n"}
    what = "The change differs from the preview it was"
    diff, written = edits.write_previewed(ws, texts, originals, apply=False, expected_diff=None, what=what)
    assert diff.startswith("diff --git a/a.py b/a.py\n") and written == []
    assert (ws.root / "a.py").read_bytes() == b"one\n"
    with pytest.raises(Conflict, match=r"^The change differs from the preview it was meant to apply"):
        edits.write_previewed(ws, texts, originals, apply=True, expected_diff=diff + " ", what=what)
    assert (ws.root / "a.py").read_bytes() == b"one\n"
    assert edits.write_previewed(ws, texts, originals, apply=True, expected_diff=diff, what=what) == (diff, ["a.py"])
    assert (ws.root / "a.py").read_bytes() == b"ONE\n"


def test_write_files_keeps_crlf_and_bom(ws: Workspace) -> None:
    put(ws, "crlf.py", b"\xef\xbb\xbfa = 1\r\nb = 2\r\n")
    write_files(ws, {"crlf.py": "\ufeffa = 1\r\nb = [\n  2,\n]\r\n"})
    assert (ws.root / "crlf.py").read_bytes() == b"\xef\xbb\xbfa = 1\r\nb = [\r\n  2,\r\n]\r\n"
    put(ws, "mixed.py", b"a\r\nb\n")  # mixed endings: nothing is normalised
    write_files(ws, {"mixed.py": "a\r\nb\nc\n"})
    assert (ws.root / "mixed.py").read_bytes() == b"a\r\nb\nc\n"
    put(ws, "bom.py", b"\xef\xbb\xbfx\n")  # a caller that dropped the BOM gets it back
    write_files(ws, {"bom.py": "y\n"})
    assert (ws.root / "bom.py").read_bytes() == b"\xef\xbb\xbfy\n"


def test_write_files_refuses_a_file_changed_since_it_was_read(ws: Workspace) -> None:
    put(ws, "a.py", b"one\n")
    put(ws, "b.py", b"two\n")
    before = snapshot_tree(ws.root)
    with pytest.raises(Conflict, match="changed since it was read"):
        write_files(ws, {"a.py": "ONE\n", "b.py": "TWO\n"}, expected={"a.py": b"one\n", "b.py": b"stale\n"})
    assert snapshot_tree(ws.root) == before


@pytest.mark.parametrize("bad", ["../x.py", "/etc/passwd", "link/x.py"])
def test_write_files_refuses_paths_outside_the_root_and_writes_nothing(ws: Workspace, tmp_path: Path,
                                                                      bad: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("secret\n")
    os.symlink(outside, ws.root / "link")
    put(ws, "a.py", b"one\n")
    before = snapshot_tree(ws.root)
    with pytest.raises(OutsideWorkspace):
        write_files(ws, {"a.py": "ONE\n", bad: "pwned\n"})
    assert snapshot_tree(ws.root) == before
    assert (outside / "x.py").read_text() == "secret\n"


def test_write_files_refuses_non_utf8_missing_and_huge_files(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    put(ws, "latin1.py", "café\n".encode("latin-1"))
    put(ws, "ok.py", b"ok\n")
    before = snapshot_tree(ws.root)
    with pytest.raises(BadInput, match="not valid UTF-8"):
        write_files(ws, {"ok.py": "OK\n", "latin1.py": "cafe\n"})
    with pytest.raises(NotFound):
        write_files(ws, {"ok.py": "OK\n", "new.py": "x\n"})
    (ws.root / "adir").mkdir()
    with pytest.raises(BadInput, match="not a regular file"):
        write_files(ws, {"ok.py": "OK\n", "adir": "x\n"})
    (ws.root / "adir").rmdir()
    monkeypatch.setattr(ws, "settings", Settings(max_file_bytes=10))
    put(ws, "big.py", b"x" * 11)
    before = snapshot_tree(ws.root)
    with pytest.raises(TooLarge, match=r"big\.py"):
        write_files(ws, {"ok.py": "OK\n", "big.py": "y\n"})
    with pytest.raises(TooLarge, match="would be"):
        write_files(ws, {"ok.py": "O" * 20})
    assert snapshot_tree(ws.root) == before


def test_write_files_refuses_two_names_for_one_file(ws: Workspace) -> None:
    put(ws, "a.py", b"one\n")
    os.symlink(ws.root / "a.py", ws.root / "alias.py")
    with pytest.raises(BadInput, match="same file"):
        write_files(ws, {"a.py": "A\n", "alias.py": "B\n"})
    assert (ws.root / "a.py").read_bytes() == b"one\n"


def test_a_failed_later_write_restores_the_earlier_files(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    # Mocked fault: a full disk on the second file cannot be caused for real here (and the tests run as root,
    # so a read-only directory would not stop the write either). Only that one write is made to fail.
    put(ws, "a.py", b"one\n")
    put(ws, "b.py", b"two\n")
    real = Workspace.write_bytes
    calls: list[str] = []

    def flaky(self: Workspace, path: str | os.PathLike[str], data: bytes) -> Path:
        calls.append(Path(path).name)
        if Path(path).name == "b.py" and data == b"TWO\n":
            raise OSError(28, "No space left on device")
        return real(self, path, data)

    monkeypatch.setattr(Workspace, "write_bytes", flaky)
    with pytest.raises(IoFailure, match=r"disk is full.*restored"):
        write_files(ws, {"a.py": "ONE\n", "b.py": "TWO\n"})
    assert [c for c in calls if c != ".sgtools-journal.json"] == ["a.py", "b.py", "a.py"]  # b.py failed, a.py restored
    assert (ws.root / "a.py").read_bytes() == b"one\n"
    assert (ws.root / "b.py").read_bytes() == b"two\n"
    assert sorted(p.name for p in ws.root.iterdir()) == ["a.py", "b.py"]  # no temp files left


def test_concurrent_writers_from_the_same_read_one_wins_one_conflicts(ws: Workspace) -> None:
    # Two callers computed a change from the same bytes; the lock serialises them, and the second one's
    # expected bytes no longer match, so it is refused instead of overwriting the first one's work.
    put(ws, "a.py", b"one\n")
    results: list[str] = []

    def writer(text: str) -> None:
        try:
            write_files(ws, {"a.py": text}, expected={"a.py": b"one\n"})
            results.append("ok:" + text)
        except Conflict:
            results.append("conflict")

    threads = [threading.Thread(target=writer, args=(t,)) for t in ("A\n", "B\n")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.split(":")[0] for r in results) == ["conflict", "ok"]
    winner = next(r for r in results if r.startswith("ok:"))[3:]
    assert (ws.root / "a.py").read_text() == winner
