"""The CI pipeline is a workflow a caller other than the CLI can run: typed options in, the findings and what
the baseline hid out, notes said through a callback (workflows/ci_scan.py). The CLI's bytes are in
tests/test_cli_scan_goldens.py."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sgtools.core.errors import BadInput
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.ci_scan import ci_scan

if TYPE_CHECKING:
    from sgtools.contracts.scan import CiScanOptions

SAMPLE = Path(__file__).resolve().parent.parent / "e2e" / "sample_repo"


def _options(**changes: object) -> CiScanOptions:
    options: CiScanOptions = {
        "paths": [], "subfolder": None, "min_severity": None, "rule_ids": None, "fix": False, "unsafe_fixes": False,
        "changed_since": None, "baseline": None, "write_baseline": None, "shard": None, "default_excludes": None,
        "profile": False, "verify_fixits": False, "with_suppress": False, "fingerprints": False,
        "rule_metadata": False}
    options.update(changes)  # type: ignore[typeddict-item]
    return options


def test_the_workflow_scans_writes_a_baseline_and_hides_what_it_holds(tmp_path: Path, engine: Engine,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root)
    monkeypatch.chdir(root)
    ws, notes = Workspace(root), list[str]()
    first = ci_scan(ws, engine, _options(paths=["python"], rule_metadata=True), notes.append)
    assert sorted(d["ruleId"] for d in first.diagnostics) == ["no-eval", "prefer-logging"]
    assert first.findings.files_checked == 2 and first.baselined == [] and notes == []
    assert {r["id"] for r in first.rules} >= {"no-eval", "no-var"}  # every runnable rule, for SARIF
    assert "fingerprint" not in first.diagnostics[0]  # not asked for, no baseline: not hashed

    wrote = ci_scan(ws, engine, _options(write_baseline="base.json"), notes.append)
    assert wrote.diagnostics == [] and len(wrote.baselined) == 6 and wrote.baseline_file == "base.json"
    assert notes == ["wrote 6 finding(s) to the baseline base.json"]
    again = ci_scan(ws, engine, _options(baseline="base.json", fingerprints=True), notes.append)
    assert again.diagnostics == [] and len(again.baselined) == 6


def test_fix_without_own_rules_is_refused_after_the_bundled_note(tmp_path: Path, engine: Engine) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    notes: list[str] = []
    with pytest.raises(BadInput, match="--fix applies the fixes of this project's own rules"):
        ci_scan(Workspace(tmp_path), engine, _options(fix=True), notes.append)
    assert len(notes) == 1 and "bundled community rules" in notes[0]


def test_scan_path_takes_the_tool_arguments_and_one_options_record(tmp_path: Path, engine: Engine) -> None:
    """scan_path's signature is the MCP tool's arguments (ScanPathArgs) plus one internal record (PathScan); an
    internal switch passed as a keyword, as before the record, is refused rather than ignored."""
    import inspect

    from sgtools.scan.paths import PathScan, scan_path

    assert list(inspect.signature(scan_path).parameters) == ["ws", "engine", "options", "args"]
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root)
    ws = Workspace(root)
    with pytest.raises(TypeError, match="verify_fixits"):
        scan_path(ws, engine, verify_fixits=False)  # type: ignore[call-arg]
    unverified = scan_path(ws, engine, PathScan(verify_fixits=False), paths=["js"], max_results=1)
    assert unverified["truncated"] and unverified["nextOffset"] == 1 and unverified["filesChecked"] == 2
    assert unverified["issues"][0]["fixits"] == [] or not unverified["issues"][0]["fixits"][0]["verified"]
