"""project/transaction.write_all: the one multi-file write with rollback, used by the rule store and by every
source edit (write_files). The fault is real: a non-empty directory where a file should be written makes the
rename fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.core.errors import IoFailure
from sgtools.engine.process import Engine
from sgtools.project.transaction import write_all
from sgtools.project.workspace import Workspace
from sgtools.rules import store
from tests.conftest import snapshot_tree


def _block(path: Path) -> None:
    path.mkdir(parents=True)
    (path / "keep").write_text("x")


def test_a_failed_write_undoes_creations_updates_and_removals(ws: Workspace) -> None:
    (ws.root / "a.yml").write_bytes(b"A1")
    (ws.root / "gone.yml").write_bytes(b"G")
    _block(ws.root / "blocked.yml")
    before = snapshot_tree(ws.root)
    writes: dict[Path, bytes | None] = {ws.root / "new.yml": b"N", ws.root / "a.yml": b"A2",
                                        ws.root / "gone.yml": None, ws.root / "blocked.yml": b"X"}
    with ws.lock(), pytest.raises(IoFailure, match=r"writing blocked.yml failed.*3 file\(s\) written before it "
                                                       r"were restored"):
        write_all(ws, writes)
    assert snapshot_tree(ws.root) == before


def test_all_writes_land_when_none_fails(ws: Workspace) -> None:
    (ws.root / "gone.yml").write_bytes(b"G")
    with ws.lock():
        write_all(ws, {ws.root / "d" / "new.yml": b"N", ws.root / "gone.yml": None})
    assert (ws.root / "d" / "new.yml").read_bytes() == b"N" and not (ws.root / "gone.yml").exists()


def test_the_rule_store_leaves_nothing_when_its_test_file_cannot_be_written(initialized: Workspace,
                                                                            engine: Engine) -> None:
    _block(initialized.root / "rule-tests" / "no-print-test.yml")
    before = snapshot_tree(initialized.root)
    with pytest.raises(IoFailure, match=r"no-print-test\.yml.*restored"):
        store.add_or_update_rule(initialized, engine, "no-print", "language: python\nrule: {pattern: print($A)}\n",
                                 ["x"], ["print(1)"])
    assert snapshot_tree(initialized.root) == before
