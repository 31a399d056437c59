"""Where the bundled community index lives, installed or in a source checkout."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

INDEX_NAME = "index.json"


def bundled_dir() -> Path:
    """The directory holding the bundled `index.json`, `rules/` and `rule-tests/`."""
    try:
        path = Path(str(importlib.resources.files("sgtools.community_data")))
        if path.is_dir():
            return path
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parents[2] / "community_index"
