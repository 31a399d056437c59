"""A rule's test snapshot made before the rule is written, so that it joins the rule's all-or-nothing write.

`ast-grep test --update-all` writes the snapshot itself. Run in the project after the rule and its test were
written, a SIGKILL between the two left the rule without its snapshot (or with the previous version's), and the
project's own `ast-grep test` failed (issue 33.5). So the tests run first, in a private copy: the rule's new file,
the test files that test it (new bytes where this call writes them) and its current snapshots, under a config that
names the project's utils, custom languages and language globs by absolute path. The snapshots ast-grep writes
there are read back and handed to the same `write_all` (project/transaction, with its crash journal) as the rule
and its tests: after any crash the project holds all of them new or all of them old.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.contracts.rules import RuleTestReport
from sgtools.core.errors import SgToolsError
from sgtools.engine.configview import absolute_view
from sgtools.engine.process import Engine
from sgtools.project.config import ProjectConfig
from sgtools.project.workspace import Workspace
from sgtools.rules.locate import SNAPSHOT_SUFFIX, test_files_for


class _Layout:
    """The project's test configs, each with its test and snapshot folders, and their private counterparts."""

    def __init__(self, cfg: ProjectConfig, tmp: Path) -> None:
        self.tests: list[tuple[Path, Path, Path, str]] = []  # (test dir, snapshot dir, private test dir, snap name)
        for i, item in enumerate(cfg.raw.get("testConfigs") or []):
            if isinstance(item, dict) and isinstance(item.get("testDir"), str):
                snap = str(item.get("snapshotDir") or "__snapshots__")
                test_dir = (cfg.root / item["testDir"]).resolve()
                self.tests.append((test_dir, (test_dir / snap).resolve(), tmp / f"tests{i}", snap))

    def private(self, path: Path) -> Path | None:
        """Where a project test file goes in the private copy (None: in no test folder)."""
        for test_dir, _snap, mine, _name in self.tests:
            if path.is_relative_to(test_dir):
                return mine / path.relative_to(test_dir)
        return None


def _config(cfg: ProjectConfig, layout: _Layout, rules: Path) -> dict[str, Any]:
    view = absolute_view(cfg.root, cfg.raw)
    view["ruleDirs"] = [str(rules)]
    view["testConfigs"] = [{"testDir": str(mine), "snapshotDir": name} for _t, _s, mine, name in layout.tests]
    return view


def tested_with_snapshots(ws: Workspace, engine: Engine, cfg: ProjectConfig, rule_id: str, rule_file: Path,
                          file_text: str, test_writes: Mapping[Path, str],
                          ) -> tuple[RuleTestReport, dict[Path, bytes]]:
    """Run the rule's tests as the project will hold them once `rule_file` has `file_text` and each test file of
    `test_writes` its text; return the report and, when they pass, the snapshot files to write with the rule
    (those whose bytes change). A failing test leaves every snapshot as it is, as before."""
    from sgtools.engine.tempdirs import tmp_root

    with tempfile.TemporaryDirectory(prefix="snapshot-", dir=tmp_root()) as tmp_name:
        tmp = Path(tmp_name)
        layout = _Layout(cfg, tmp)
        rules = tmp / "rules"
        rules.mkdir()
        (rules / rule_file.name).write_text(file_text, encoding="utf-8")
        for _t, _s, mine, _n in layout.tests:
            mine.mkdir(parents=True)
        for path in {*test_files_for(cfg, rule_id), *test_writes}:
            copy = layout.private(path)
            if copy is not None:
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_bytes(test_writes[path].encode("utf-8") if path in test_writes else path.read_bytes())
        name = f"{rule_id}{SNAPSHOT_SUFFIX}"
        old: dict[Path, bytes | None] = {}
        for _t, snap, mine, snap_name in layout.tests:
            real = snap / name
            old[real] = real.read_bytes() if real.is_file() else None
            if old[real] is not None:
                (mine / snap_name).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(real, mine / snap_name / name)
        config = tmp / "sgconfig.yml"
        config.write_text(json.dumps(_config(cfg, layout, rules)), encoding="utf-8")
        try:
            report = engine.test(config, cwd=ws.root, rule_filter=f"^{re.escape(rule_id)}$", update_snapshots=True,
                                 languages_of=cfg.path)
        except SgToolsError as exc:
            # The rule is checked; a broken util or a test file elsewhere can still stop `ast-grep test`.
            return {"passed": False, "summary": f"could not run the tests: {exc.message}", "failures": []}, {}
        snapshots: dict[Path, bytes] = {}
        if report.passed:
            for _t, snap, mine, snap_name in layout.tests:
                made = mine / snap_name / name
                new = made.read_bytes() if made.is_file() else None
                if new is not None and new != old[snap / name]:
                    snapshots[snap / name] = new
    result: RuleTestReport = {
        "passed": report.passed,
        "summary": report.summary,
        "failures": [{"kind": f.kind, "ruleId": f.rule_id, "code": f.code} for f in report.failures],
    }
    return result, snapshots
