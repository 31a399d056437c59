"""A small persistent cache in the platformdirs user cache directory, for what is costly to recompute in a
fresh process (a CLI run, a restarted server) and cheap to key by content: parsed rule files and rule checks.

One small file per entry (`<cache>/<name>/<table>/<key>.json`), so a lookup costs one file read however many
projects share the cache; `StatMemo` keeps one file per directory of the files it describes, read once. Best
effort by design: an unreadable, corrupt or unwritable entry costs a recomputation, never a failure. Keys are
content digests, so a stale entry is never served for changed content.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from sgtools.core.atomic import write_atomic
from sgtools.core.digest import sha256

APP_NAME = "context-sherpa"
_KEY = re.compile(r"[A-Za-z0-9_-]{1,100}")  # other keys are hashed into a file name
_MISSING = object()
_MAX_MISSES = 100_000  # remembered misses kept at most (then forgotten at once: each costs one read again)


def cache_root() -> Path:
    """Asked once per cache entry (hundreds per CLI call on a large rule store): platformdirs is asked once per
    environment (XDG_CACHE_HOME and HOME, which tests and users may change at run time)."""
    return _user_dir("cache", os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"))


def config_root() -> Path:
    """The user config directory (community sources, the trust store), found as cache_root finds its own."""
    return _user_dir("config", os.environ.get("XDG_CONFIG_HOME"), os.environ.get("HOME"))


@functools.lru_cache(maxsize=8)
def _user_dir(kind: str, xdg_home: str | None, home: str | None) -> Path:
    if sys.platform == "linux":
        # What platformdirs answers on Linux, in the cases where all its versions agree (an absolute
        # XDG_*_HOME; else an absolute HOME), without importing it: with the tempfile and random modules it
        # loads, that was about 7 ms of every CLI start. Anything else asks platformdirs.
        if xdg_home and os.path.isabs(xdg_home):
            return Path(xdg_home) / APP_NAME
        if not xdg_home and home and os.path.isabs(home):
            return Path(os.path.expanduser(f"~/.{kind}")) / APP_NAME
    import platformdirs

    ask = platformdirs.user_cache_path if kind == "cache" else platformdirs.user_config_path
    return Path(ask(APP_NAME))


class JsonCache:
    """Tables of JSON values, one file per entry, remembered in memory once read or written.

    `miss_ttl` (seconds, 0: never) also remembers a missing entry for that long, for tables that a long-lived
    process asks on every call (the analysis of each rule, on every scan): a miss otherwise costs a file open
    each time. A `put` in this process ends its miss at once; another process's write is seen within `miss_ttl`."""

    def __init__(self, name: str, *, miss_ttl: float = 0.0) -> None:
        self.name = name
        self._memory: dict[tuple[str, str], Any] = {}
        self._miss_ttl = miss_ttl
        self._misses: dict[tuple[str, str], float] = {}  # (table, key) -> monotonic time the miss expires

    def _path(self, table: str, key: str) -> str:
        """The entry's file as a string: a scan looks up a few entries per rule, and joining them as `Path`s cost
        more than reading them."""
        name = key if _KEY.fullmatch(key) else sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(cache_root(), self.name, table, f"{name}.json")

    def _lookup(self, table: str, key: str) -> Any:
        hit = self._memory.get((table, key), _MISSING)
        if hit is not _MISSING:
            return hit
        if self._miss_ttl and self._misses.get((table, key), 0.0) > time.monotonic():
            return _MISSING
        try:
            with open(self._path(table, key), "rb") as fh:
                value = json.loads(fh.read())["value"]  # bytes: json detects UTF-8 (as written) itself
        except (OSError, ValueError, KeyError, TypeError):
            if self._miss_ttl:
                if len(self._misses) > _MAX_MISSES:
                    self._misses.clear()
                self._misses[(table, key)] = time.monotonic() + self._miss_ttl
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
        self._misses.pop((table, key), None)
        path = Path(self._path(table, key))
        with contextlib.suppress(OSError, TypeError, ValueError):
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps({"value": value}, separators=(",", ":")).encode("utf-8"))


def json_safe(value: Any) -> bool:
    """Whether `value` survives a JSON round trip unchanged (YAML can hold int keys, dates, ...)."""
    try:
        return bool(json.loads(json.dumps(value)) == value)
    except (TypeError, ValueError):
        return False


SETTLE_NS = 2_000_000_000  # a file changed this recently may change again within one timestamp tick


class StatMemo:
    """Values derived from files, remembered across processes by each file's stat (device, inode, size,
    modification and change times), so a later CLI run answers for an unchanged file without reading it.

    The entries of one directory's files share one cache file, read once per process: a store of 200 rules and
    200 test files costs two reads, not 400. Puts are kept in memory until `flush` (one write per directory),
    which merges them into what other processes wrote meanwhile; a lost race costs a recomputation, never a
    wrong value.

    Only a settled file (last changed at least SETTLE_NS ago) is remembered: an edit in the same clock tick as
    the read could leave its stat unchanged (git's "racy" files), so a recent file is read and computed anew
    each time. A rename, a copy or an in-place edit changes the inode or the change time, so a stale value is
    never served."""

    def __init__(self, name: str, table: str) -> None:
        self._name = name
        self._table = table
        self._groups: dict[str, dict[str, Any]] = {}
        self._dirty: dict[str, set[str]] = {}

    @staticmethod
    def key(st: os.stat_result) -> str:
        return ":".join(str(p) for p in (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))

    def _file(self, group: str) -> Path:
        digest = sha256(group.encode("utf-8", "surrogatepass")).hexdigest()
        return cache_root() / self._name / self._table / f"{digest}.json"

    def _read(self, group: str) -> dict[str, Any]:
        try:
            data = json.loads(self._file(group).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _group(self, kind: str, path: Path) -> tuple[str, dict[str, Any]]:
        group = f"{kind}\0{path.absolute().parent}"
        entries = self._groups.get(group)
        if entries is None:
            entries = self._groups[group] = self._read(group)
        return group, entries

    def get(self, kind: str, path: Path, st: os.stat_result) -> Any:
        """The remembered value, or the MISSING sentinel (`StatMemo.missing`)."""
        _group, entries = self._group(kind, path)
        hit = entries.get(path.name)
        if isinstance(hit, dict) and hit.get("k") == self.key(st) and "v" in hit:
            return hit["v"]
        return _MISSING

    def put(self, kind: str, path: Path, st: os.stat_result, value: Any) -> None:
        """Remember `value` (JSON data) for this stat, when the file has settled; written by `flush`."""
        if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) >= SETTLE_NS and json_safe(value):
            group, entries = self._group(kind, path)
            entries[path.name] = {"k": self.key(st), "v": value}
            self._dirty.setdefault(group, set()).add(path.name)

    def flush(self) -> None:
        """Write the directories that gained entries, each merged into its file as it is on disk now."""
        for group, names in sorted(self._dirty.items()):
            merged = self._read(group)
            merged.update({n: self._groups[group][n] for n in names})
            self._groups[group] = merged
            path = self._file(group)
            with contextlib.suppress(OSError, TypeError, ValueError):
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, json.dumps(merged, separators=(",", ":")).encode("utf-8"))
        self._dirty.clear()

    missing = _MISSING
