"""Whole-project collection for `sgtools scan` and the hook: every page, every batch, same order as one call."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan.collect import batches, collect, rule_source

SAMPLE = Path(__file__).resolve().parent.parent / "e2e" / "sample_repo"


def test_batches_respect_the_byte_limit_and_keep_order() -> None:
    paths = [f"src/file{i:03}.py" for i in range(50)]  # 16 bytes each with the separator
    groups = batches(paths, 16 * 8)
    assert [p for g in groups for p in g] == paths
    assert all(len(g) == 8 for g in groups[:-1]) and len(groups) == 7
    assert batches(["a-very-long-path.py"], 4) == [["a-very-long-path.py"]]  # one path never splits


def test_collect_follows_pages_and_batches(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    ws = Workspace(root)
    whole = collect(ws, Engine(), rule_source(ws, Engine()), paths=None)
    assert len(whole.issues) == 6
    tiny = Engine(settings=Settings(hard_max_results=2, scan_batch_bytes=12))  # 3 pages, one file per call
    files = ["go/main.go", "js/app.js", "js/debug.js", "python/calc.py", "python/clean.py"]
    paged = collect(ws, tiny, rule_source(ws, tiny), paths=files)
    assert [(d["file"], d["byteStart"], d["ruleId"]) for d in paged.issues] == \
        [(d["file"], d["byteStart"], d["ruleId"]) for d in whole.issues]
    assert collect(ws, tiny, rule_source(ws, tiny), paths=[]).issues == []  # empty means nothing, not everything


def test_rule_source_without_sgconfig_is_the_bundled_index(ws: Workspace) -> None:
    source = rule_source(ws, Engine())
    assert source.bundled and source.scan_config is source.config
    assert source.rule_count > 0
    assert source.description == "bundled community rules"


class _CountingEngine(Engine):
    """The real engine, counting its passes over the project (fix-it verification scans temporary copies)."""

    scans = 0

    def scan(self, **kwargs: Any) -> list[dict[str, Any]]:
        self.scans += kwargs.get("watch") is not None
        return super().scan(**kwargs)


def test_collect_runs_the_engine_once_however_many_findings(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root)
    ws = Workspace(root)
    whole = collect(ws, Engine(), rule_source(ws, Engine()), paths=None)
    tiny = _CountingEngine(settings=Settings(hard_max_results=2))  # 6 findings: 3 pages of the MCP tool
    found = collect(ws, tiny, rule_source(ws, tiny), paths=None)
    assert tiny.scans == 1  # paging used to re-run ast-grep once per page
    assert found.issues == whole.issues and found.files_checked == whole.files_checked
