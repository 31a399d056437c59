"""scan_code with `files` over a real MCP stdio session: a pending change of five files in two languages, whose
rules' `files`/`ignores` globs, languageGlobs and a global util decide, checked in one call exactly as ast-grep
scans the same files once written; bad input refused with a SPEC code."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.conftest import fails, ok, stdio_client
from tests.conftest import snapshot_tree
from tests.test_overlay import CHANGE, RULES, UTIL

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.slow]


def _project(root: Path) -> None:
    (root / "sgconfig.yml").write_text("ruleDirs: [rules]\nutilDirs: [utils]\nlanguageGlobs:\n  python: ['*.pyx']\n",
                                       encoding="utf-8")
    for d in ("rules", "utils"):
        (root / d).mkdir()
    (root / "rules" / "rules.yml").write_text(RULES, encoding="utf-8")
    (root / "utils" / "is-print.yml").write_text(UTIL, encoding="utf-8")


async def test_a_pending_change_is_checked_together_as_if_written(root: Path, server_env: dict[str, str]) -> None:
    _project(root)
    before = snapshot_tree(root)
    async with stdio_client(root, server_env) as client:
        pending = await ok(client, "scan_code", {"files": CHANGE})
        assert snapshot_tree(root) == before
        for f in CHANGE:
            (root / f["path"]).parent.mkdir(parents=True, exist_ok=True)
            (root / f["path"]).write_text(f["code"], encoding="utf-8")
        written = await ok(client, "scan_code", {"paths": [f["path"] for f in CHANGE]})
    assert pending["issues"] == written["issues"]
    assert sorted({d["file"] for d in pending["issues"]}) == ["src/app.py", "src/fast.pyx", "web/main.js"]
    assert pending["counts"] == {"error": 1, "warning": 3, "info": 0, "hint": 0}


async def test_bad_files_get_a_spec_code_and_the_next_step(root: Path, server_env: dict[str, str]) -> None:
    _project(root)
    env = {**server_env, "SGTOOLS_MAX_OVERLAY_FILES": "3"}
    one = {"path": "src/a.py", "code": "x = 1\n"}
    async with stdio_client(root, env) as client:
        dup = await fails(client, "scan_code", {"files": [one, {**one, "path": "src/../src/a.py"}]}, "bad-input")
        assert "are both src/a.py" in dup
        outside = await fails(client, "scan_code", {"files": [{"path": "../elsewhere.py", "code": "x"}]},
                              "outside-workspace")
        assert "Pass a path inside the root" in outside
        many = await fails(client, "scan_code", {"files": [{"path": f"f{i}.py", "code": "x"} for i in range(4)]},
                           "too-large")
        assert "SGTOOLS_" in many
        await fails(client, "scan_code", {"files": [{"path": "a.py", "code": 7}]}, "bad-input")
        both = await fails(client, "scan_code", {"code": "x", "language": "python", "files": [one]}, "bad-input")
        assert "not both" in both
        assert (await ok(client, "scan_code", {"files": [one]}))["success"]  # the server is still well
