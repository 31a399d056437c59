"""The README's module map names every module of the package in its folder's row, so that a newcomer finds any
capability's one home from the map and the file names alone (it had missed five core and suggest modules before).
The CLI's row names its shared modules; its command modules are one per command, named by the command."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_COMMANDS = {"community", "doctor", "explain", "hook", "init", "lang", "rule", "rule_lint", "serve", "setup",
             "trust"}  # `sgtools <command>`: the CLI row says "one module per command"


def _rows() -> dict[str, str]:
    rows = {}
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `([\w/]+)/` \| (.*)", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def _row(rows: dict[str, str], folder: str) -> str | None:
    """The folder's row, or its parent's where that names it (`importers/` in the `fixits/` row)."""
    parent, _, leaf = folder.rpartition("/")
    return rows.get(folder) or (rows[parent] if f"`{leaf}/`" in rows.get(parent, "") else None)


def test_every_folder_of_the_package_has_a_row() -> None:
    rows = _rows()
    folders = {str(p.parent.relative_to(REPO / "sgtools")) for p in (REPO / "sgtools").rglob("*.py")} - {"."}
    assert not [f for f in sorted(folders) if _row(rows, f) is None]


def _names(row: str, folder: str, name: str, own_row: bool) -> bool:
    """A module of a folder with its own row is named in backticks; one of a folder its parent's row covers, as a
    word there (`importers/`: go, python, java, rust)."""
    if own_row:
        return f"`{name}`" in row or f"`{folder}/{name}" in row
    return re.search(rf"\b{re.escape(name)}\b", row) is not None


def test_every_module_is_named_in_its_folders_row() -> None:
    rows = _rows()
    missing = []
    for path in sorted((REPO / "sgtools").rglob("*.py")):
        folder, name = str(path.parent.relative_to(REPO / "sgtools")), path.stem
        row = _row(rows, folder)
        if folder == "." or row is None or name == "__init__" or (folder == "cli" and name in _COMMANDS):
            continue
        if not _names(row, folder, name, folder in rows):
            missing.append(f"{folder}/{name}")
    assert not missing, f"modules the README's map does not name: {missing}"
