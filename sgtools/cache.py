"""A small persistent cache in the platformdirs user cache directory, for what is costly to recompute in a
fresh process (a CLI run, a restarted server) and cheap to key by content: parsed rule files and rule checks.

Best effort by design: an unreadable, corrupt or unwritable cache costs a recomputation, never a failure.
Entries are keyed by content digests, so a stale entry can never be served for changed content.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

APP_NAME = "context-sherpa"
MAX_ENTRIES = 20_000  # per table; past it the table starts afresh (entries are cheap to recompute)


def cache_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_path(APP_NAME))


class JsonCache:
    """Tables of JSON values in one file, loaded on first use and written back by `flush()` if changed."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._data: dict[str, dict[str, Any]] | None = None
        self._dirty = False

    @property
    def path(self) -> Path:
        return cache_root() / f"{self.name}.json"

    def _tables(self) -> dict[str, dict[str, Any]]:
        if self._data is None:
            try:
                loaded = json.loads(self.path.read_text(encoding="utf-8"))
                self._data = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                self._data = {}
        return self._data

    def get(self, table: str, key: str) -> Any:
        return self._tables().get(table, {}).get(key)

    def has(self, table: str, key: str) -> bool:
        return key in self._tables().get(table, {})

    def put(self, table: str, key: str, value: Any) -> None:
        rows = self._tables().setdefault(table, {})
        if len(rows) >= MAX_ENTRIES:
            rows.clear()
        rows[key] = value
        self._dirty = True

    def reset(self) -> None:
        """Forget what was loaded (the file stays): the next lookup reads it again."""
        self._data = None
        self._dirty = False

    def flush(self) -> None:
        if not self._dirty or self._data is None:
            return
        self._dirty = False
        with contextlib.suppress(OSError, TypeError, ValueError):
            root = cache_root()
            root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.name}.", suffix=".tmp", dir=root)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(self._data, fh, separators=(",", ":"))
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise


def json_safe(value: Any) -> bool:
    """Whether `value` survives a JSON round trip unchanged (YAML can hold int keys, dates, ...)."""
    try:
        return bool(json.loads(json.dumps(value)) == value)
    except (TypeError, ValueError):
        return False
