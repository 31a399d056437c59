"""One rule set per scan, utils included (issue 33.2): a path scan hands ast-grep a private copy of the project's
config and utils, read once (scan/rulefiles.scan_config), so a util edited while the scan runs cannot give it a
second rule set; the next scan reads the new util."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.scan.paths import scan_path

UTIL = "id: is-bad\nlanguage: python\nrule: {{pattern: {name}($X)}}\n"


def test_a_util_edited_during_a_scan_does_not_reach_it(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    ws = Workspace(root)
    project.initialize(ws)
    util = root / "utils" / "is-bad.yml"
    util.write_text(UTIL.format(name="bad"))
    (root / "rules" / "no-bad.yml").write_text(
        "id: no-bad\nlanguage: python\nseverity: error\nmessage: no bad\nrule: {matches: is-bad}\n")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("bad(1)\nworse(2)\n")
    engine = Engine()
    real_scan = engine.scan

    def scan_with_an_edit(*args: Any, **kwargs: Any) -> Any:
        # The util is rewritten after the scan took its rule set and before ast-grep reads anything: a real edit
        # of the real file, at the one moment a slower scan's race would hit.
        util.write_text(UTIL.format(name="worse"))
        return real_scan(*args, **kwargs)

    engine.scan = scan_with_an_edit  # type: ignore[method-assign]
    first = scan_path(ws, engine)
    assert [i["line"] for i in first["issues"]] == [1], first["issues"]  # the util as the scan read it
    engine.scan = real_scan  # type: ignore[method-assign]
    second = scan_path(ws, engine)
    assert [i["line"] for i in second["issues"]] == [2], second["issues"]  # the next scan reads the new one
