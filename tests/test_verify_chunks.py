"""Fix-it verification scales past the engine's per-call limit (issue 30, point 5): the re-scans of a path scan
go to ast-grep in chunks of whole files (a file's original and all its copies in one call), at most the
`fixit_verify_chunk_bytes` setting per call, instead of one call per language over every copy of the scan. One
call per language left every fix-it of a large package unverified when that call ran past the 30 s limit (sqlalchemy:
184 of 184). Real ast-grep and real files throughout; only the time-limit fault is simulated (below)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from sgtools.core.errors import Timeout
from sgtools.core.settings import Settings
from sgtools.engine import texts as engine_texts
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.scan import checker
from sgtools.scan.paths import scan_path

RULE = ("id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nmetadata: {fixSafety: safe}\n"
        "rule: {pattern: eval($X)}\nfix: safe_eval($X)\n")
FILES = 12


def _project(root: Path, lines: int = 40) -> Workspace:
    root.mkdir()
    ws = Workspace(root)
    project.initialize(ws)
    (root / "rules" / "no-eval.yml").write_text(RULE)
    for f in range(FILES):
        (root / f"m{f:02}.py").write_text("".join(f"a{i} = eval(x{i})  # {'.' * 30}\n" for i in range(lines)))
    return ws


def _recorded(monkeypatch: pytest.MonkeyPatch, fail_over: int | None = None) -> list[list[str]]:
    """Every batch the verification hands to ast-grep (the real scan_texts runs it). `fail_over`: a batch of
    more bytes than that raises the engine's Timeout instead, as a call past the per-call limit does; that
    fault is simulated because a real one depends on the machine's load, which a test cannot hold steady."""
    calls: list[list[str]] = []
    real = engine_texts.scan_texts

    def recording(engine: Engine, cfg: Any, rules_path: Path, file_name: str,
                  texts: Sequence[str]) -> list[list[dict[str, Any]]]:
        calls.append(list(texts))
        if fail_over is not None and sum(len(t) for t in texts) > fail_over:
            raise Timeout("ast-grep did not finish within 30 s and was stopped.")
        return real(engine, cfg, rules_path, file_name, texts)

    monkeypatch.setattr(checker, "scan_texts", recording)
    return calls


def _fixits(result: Any) -> list[dict[str, Any]]:
    return [fx for d in result["issues"] for fx in d.get("fixits", [])]


def test_copies_go_in_chunks_of_whole_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _project(tmp_path / "p")
    size = len((ws.root / "m00.py").read_text())
    calls = _recorded(monkeypatch)
    # two or three files (original and copy) per call
    engine = Engine(settings=Settings(fixit_verify_chunk_bytes=5 * size))
    fixits = _fixits(scan_path(ws, engine, max_results=1000))
    assert len(fixits) == FILES * 40 and all(fx["verified"] for fx in fixits)
    assert 4 <= len(calls) <= 6  # 12 files, 2 texts each: one call would hold all 24
    originals = {(ws.root / f"m{f:02}.py").read_text() for f in range(FILES)}
    for batch in calls:
        assert sum(len(t) for t in batch) <= 5 * size
        # each file's original comes with its copy: as many originals as edited copies in every call
        assert sum(t in originals for t in batch) * 2 == len(batch)


def test_a_chunk_past_the_time_limit_is_split_not_given_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _project(tmp_path / "p")
    size = len((ws.root / "m00.py").read_text())
    calls = _recorded(monkeypatch, fail_over=4 * size)  # a call of more than two files runs past the limit
    fixits = _fixits(scan_path(ws, Engine(), max_results=1000))
    assert len(fixits) == FILES * 40
    assert all(fx["verified"] for fx in fixits), {fx.get("verification", {}).get("reason") for fx in fixits}
    assert len(calls) < 3 * FILES  # halving: a failed chunk is tried again in halves, not file by file first


def test_a_file_too_big_for_one_call_is_the_only_one_unchecked(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _project(tmp_path / "p")
    size = len((ws.root / "m00.py").read_text())
    (ws.root / "m00.py").write_text("".join(f"b{i} = eval(y{i})  # {'.' * 30}\n" for i in range(400)))
    _recorded(monkeypatch, fail_over=4 * size)
    result = scan_path(ws, Engine(), max_results=1000)
    fixits = _fixits(result)
    big = [fx for d in result["issues"] if d["file"] == "m00.py" for fx in d.get("fixits", [])]
    assert len(big) == 400
    assert all(not fx["verified"] and "within 30 s" in fx["verification"]["reason"] for fx in big)
    assert sum(fx["verified"] for fx in fixits) == (FILES - 1) * 40


DROP_NONE = ("id: get-none\nlanguage: python\nseverity: info\nmessage: default None\nmetadata: {fixSafety: safe}\n"
             "rule: {pattern: '$D.get($K, None)'}\nfix: $D.get($K)\n")


def test_a_fix_that_could_drop_a_token_shares_a_copy_past_the_missing_count_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Such a fix is checked alone only to count MISSING tokens in its own copy; past the cap on those counts
    (here 2) it shares a copy like any other fix: 10 of them in one file cost 2 copies alone and 1 shared, not
    10 copies of the whole file."""
    root = tmp_path / "p"
    root.mkdir()
    ws = Workspace(root)
    project.initialize(ws)
    (root / "rules" / "get-none.yml").write_text(DROP_NONE)
    (root / "m.py").write_text("".join(f"a{i} = d.get(k{i}, None)\n" for i in range(10)))
    calls = _recorded(monkeypatch)
    fixits = _fixits(scan_path(ws, Engine(settings=Settings(fixit_missing_check_max=2)), max_results=1000))
    assert len(fixits) == 10 and all(fx["verified"] for fx in fixits)
    assert [len(batch) for batch in calls] == [1 + 2 + 1]  # the original, 2 alone with their count, 1 shared
    counted = [fx for fx in fixits if "missingAfter" in fx["verification"]]
    assert len(counted) == 2
