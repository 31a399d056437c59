"""suggest_rule's workspace proof keeps the bytes of the files it read between calls (workflows/suggest/proof.py
`_bytes`): a later proof reads no unchanged file again, and a changed one is read again, even when an edit keeps
its size and its mtime (only its ctime then tells), so the counts are never stale. Real files, real ast-grep."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.workflows.suggest import proof

BODY = {"rule": {"pattern": "eval($A)"}}


def _project(root: Path) -> list[Path]:
    files = []
    for i in range(6):
        f = root / "pkg" / f"m{i}.py"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"x{i} = {'eval' if i % 2 == 0 else 'exec'}(s)\n", encoding="utf-8")
        files.append(f)
    return files


def _flags(root: Path, engine: Engine) -> int:
    summary, [found] = proof.prove(engine, root, "python", [BODY], Settings())
    assert summary["complete"]
    return found["flags"]


def test_unchanged_files_are_not_read_again_and_an_edit_keeping_size_and_mtime_is_seen(
        tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _project(tmp_path)
    monkeypatch.setattr(proof, "_RACY_NS", 0)  # stands for the files' 2 s window having passed
    monkeypatch.setattr(proof, "_kept", {})
    assert _flags(tmp_path, engine) == 3
    assert {str(f) for f in files} <= set(proof._kept)  # each file's bytes kept

    opened: list[str] = []
    real_open = open

    def counting(path: object, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", counting)
    assert _flags(tmp_path, engine) == 3
    assert not [p for p in opened if p.endswith(".py")], "an unchanged file was read again"
    monkeypatch.setattr("builtins.open", real_open)

    time.sleep(0.05)  # past the file system's timestamp tick, so the edit's ctime differs
    target = files[1]  # exec -> eval: same size; its mtime is put back, so only its ctime says it changed
    st = target.stat()
    target.write_text(target.read_text(encoding="utf-8").replace("exec", "eval"), encoding="utf-8")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert target.stat().st_size == st.st_size and target.stat().st_mtime_ns == st.st_mtime_ns
    assert _flags(tmp_path, engine) == 4


def test_a_file_written_in_the_last_two_seconds_is_not_kept(tmp_path: Path, engine: Engine,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    files = _project(tmp_path)
    monkeypatch.setattr(proof, "_kept", {})
    assert _flags(tmp_path, engine) == 3
    assert not {str(f) for f in files} & set(proof._kept)
