"""A small persistent cache in the platformdirs user cache directory, for what is costly to recompute in a
fresh process (a CLI run, a restarted server) and cheap to key by content: parsed rule files and rule checks.

One small file per entry (`<cache>/<name>/<table>/<key>.json`), so a lookup costs one file read however many
projects share the cache. Best effort by design: an unreadable, corrupt or unwritable entry costs a
recomputation, never a failure. Keys are content digests, so a stale entry is never served for changed content.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from sgtools.core.atomic import write_atomic

APP_NAME = "context-sherpa"
_KEY = re.compile(r"[A-Za-z0-9_-]{1,100}")  # other keys are hashed into a file name
_MISSING = object()


def cache_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_path(APP_NAME))


class JsonCache:
    """Tables of JSON values, one file per entry, remembered in memory once read or written."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._memory: dict[tuple[str, str], Any] = {}

    def _path(self, table: str, key: str) -> Path:
        name = key if _KEY.fullmatch(key) else hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        return cache_root() / self.name / table / f"{name}.json"

    def _lookup(self, table: str, key: str) -> Any:
        hit = self._memory.get((table, key), _MISSING)
        if hit is not _MISSING:
            return hit
        path = self._path(table, key)
        try:
            value = json.loads(path.read_text(encoding="utf-8"))["value"]
        except (OSError, ValueError, KeyError, TypeError):
            return _MISSING
        self._memory[(table, key)] = value
        return value

    def get(self, table: str, key: str) -> Any:
        value = self._lookup(table, key)
        return None if value is _MISSING else value

    def has(self, table: str, key: str) -> bool:
        return self._lookup(table, key) is not _MISSING

    def put(self, table: str, key: str, value: Any) -> None:
        self._memory[(table, key)] = value
        path = self._path(table, key)
        with contextlib.suppress(OSError, TypeError, ValueError):
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps({"value": value}, separators=(",", ":")).encode("utf-8"))


def json_safe(value: Any) -> bool:
    """Whether `value` survives a JSON round trip unchanged (YAML can hold int keys, dates, ...)."""
    try:
        return bool(json.loads(json.dumps(value)) == value)
    except (TypeError, ValueError):
        return False
