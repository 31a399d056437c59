"""Where the bundled community index lives, installed or in a source checkout."""

from __future__ import annotations

from pathlib import Path

INDEX_NAME = "index.json"
_PACKAGE = Path(__file__).resolve().parent.parent


def bundled_dir() -> Path:
    """The directory holding the bundled `index.json`, `rules/` and `rule-tests/`.

    A wheel installs it as the data package `sgtools/community_data`; a source checkout (or an editable
    install) keeps it at the repository's `community_index/`.
    """
    installed = _PACKAGE / "community_data"
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / "community_index"
