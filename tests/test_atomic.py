"""core/atomic.write_atomic, the one atomic file write: every writer (workspace files, caches, the search index,
scan rule files) goes through it, so none leaves a temp file behind when the rename fails."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sgtools.community import search
from sgtools.core.atomic import write_atomic
from sgtools.core.cache import JsonCache, cache_root
from sgtools.project.workspace import Workspace


def test_replaces_the_whole_file_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    target.write_bytes(b"old")
    write_atomic(target, b"new", durable=True)
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_failed_rename_removes_the_temp_file(tmp_path: Path) -> None:
    # A non-empty directory where the file should go: the rename fails for real.
    (tmp_path / "f.json").mkdir()
    (tmp_path / "f.json" / "inside").write_text("x")
    with pytest.raises(OSError):
        write_atomic(tmp_path / "f.json", b"new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]


def test_a_long_name_still_gets_a_temp_file(tmp_path: Path) -> None:
    target = tmp_path / ("n" * 250)
    write_atomic(target, b"x")
    assert target.read_bytes() == b"x"


def test_the_search_index_save_no_longer_leaks_its_temp_file(tmp_path: Path) -> None:
    """The old copy in community/search.py renamed without a cleanup: a failed save left `.search-*.tmp`."""
    key = "k" * 40
    (tmp_path / f"search-{key}.json").mkdir()
    (tmp_path / f"search-{key}.json" / "inside").write_text("x")
    search._memory.clear()
    index = search.load_or_build(key, lambda: [], tmp_path)  # the save fails; the index is still served
    assert index is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"search-{key}.json"]


def test_cache_and_workspace_writes_leave_no_temp_files(tmp_path: Path) -> None:
    cache = JsonCache("atomic-test")
    cache.put("t", "k", {"a": 1})
    assert JsonCache("atomic-test").get("t", "k") == {"a": 1}
    assert [p.name for p in (cache_root() / "atomic-test" / "t").iterdir()] == ["k.json"]
    (tmp_path / "ws").mkdir()
    ws = Workspace(tmp_path / "ws")
    os.chmod(ws.write_text("a.txt", "one"), 0o640)
    ws.write_text("a.txt", "two")  # keeps the mode of the file it replaces
    assert stat.S_IMODE((tmp_path / "ws" / "a.txt").stat().st_mode) == 0o640
    assert list(tmp_path.rglob("*.tmp")) == []
