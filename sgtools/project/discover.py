"""Which project a command run in a sub-folder belongs to, found the way `ast-grep scan` finds it.

ast-grep walks up from the current directory to the nearest `sgconfig.yml`. We do the same, but stop at the
repository root (the first directory holding `.git`), so a stray config above a checkout is never picked up.
An explicit `--root` or `SGTOOLS_ROOT` always wins; this is only the default of the CLI.
"""

from __future__ import annotations

import os
from pathlib import Path

from sgtools.project.config import CONFIG_NAME
from sgtools.project.workspace import ROOT_ENV


def find_config_dir(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding an `sgconfig.yml`, not above the repository root."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
        if (folder / ".git").exists():
            return None
    return None


def default_root(explicit: str | None) -> tuple[str | None, Path | None]:
    """The root a CLI command should use, and the folder it was run from when that is below the root.

    `--root` or `SGTOOLS_ROOT` as given (None lets the workspace apply its own rules); else the nearest project
    above the current directory; else the current directory."""
    if explicit is not None or os.environ.get(ROOT_ENV):
        return explicit, None
    cwd = Path.cwd().resolve()
    found = find_config_dir(cwd)
    if found is None or found == cwd:
        return None, None
    return str(found), cwd
