"""Where the project's rules and their tests live: which file defines each rule id, which test files test it.

A store of hundreds of rules asks for every file's ids on each call, so ids are cached by file content.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sgtools.core import yamlio
from sgtools.core.cache import SETTLE_NS, JsonCache, StatMemo
from sgtools.core.digest import blake2b
from sgtools.project.config import ProjectConfig
from sgtools.rules.ruleset import parse_rule_docs

TEST_SUFFIX = "-test.yml"
SNAPSHOT_SUFFIX = "-snapshot.yml"


_ids_cache: dict[tuple[str, str, bytes], list[str] | None] = {}
_ids_lock = threading.Lock()
_IDS_CACHE_MAX = 16384
_ids_on_disk = StatMemo("rule-ids-v2", "ids")
# Files too recent for the stat-keyed memo (written in the last SETTLE_NS: the rule and test file the previous call
# just added, when rules are added one after another) are looked up by their bytes' digest instead.
_ids_by_digest = JsonCache("rule-ids-by-content-v1")


def _by_content(kind: str, path: Path, compute: Callable[[Path, str], list[str] | None]) -> list[str] | None:
    """`compute(path, text)`, cached by the file's bytes: reading and hashing a file costs microseconds, parsing
    it (pure-Python YAML) milliseconds, and a store of hundreds of rules asks for every file's ids on each call.
    Keyed by content, not mtime, so an in-place edit within one timestamp tick is never served stale. Across
    processes (each CLI call) a settled file's ids come from the stat-keyed disk cache, without reading it."""
    try:
        st = path.stat()
    except OSError:
        return None
    remembered = _ids_on_disk.get(kind, path, st)
    if remembered is not StatMemo.missing and (remembered is None or isinstance(remembered, list)):
        return remembered
    try:
        data = path.read_bytes()
    except OSError:
        return None
    key = _content_key(kind, path, data)
    with _ids_lock:
        if key in _ids_cache:
            return _ids_cache[key]
    recent = time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < SETTLE_NS
    hit: Any = _recent_ids(kind, key) if recent else StatMemo.missing
    value: list[str] | None
    if hit is not StatMemo.missing:
        value = hit
    else:
        try:
            value = compute(path, data.decode("utf-8"))
        except UnicodeDecodeError:
            value = None
        if recent:
            _ids_by_digest.put(kind, _disk_key(key), value)
    _remember(key, value)
    _ids_on_disk.put(kind, path, st, value)
    return value


def _recent_ids(kind: str, key: tuple[str, str, bytes]) -> Any:
    """The ids remembered for these bytes at this path, or `StatMemo.missing`."""
    disk_key = _disk_key(key)
    if not _ids_by_digest.has(kind, disk_key):
        return StatMemo.missing
    value = _ids_by_digest.get(kind, disk_key)
    if value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return value
    return StatMemo.missing


def _disk_key(key: tuple[str, str, bytes]) -> str:
    """The file's path and digest: a document without `id` takes the file's name, so the path is part of it."""
    return f"{key[1]}\0{key[2].hex()}"


def _remember(key: tuple[str, str, bytes], value: list[str] | None) -> None:
    with _ids_lock:
        if len(_ids_cache) > _IDS_CACHE_MAX:
            _ids_cache.clear()
        _ids_cache[key] = value


def prime_ids(kind: str, path: Path, text: str, ids: list[str]) -> None:
    """Record the ids of a file just written, sparing the next call its parse (in this process, and in the next
    ones while the file is too recent for the stat-keyed memo)."""
    key = _content_key(kind, path, text.encode("utf-8"))
    _remember(key, ids)
    _ids_by_digest.put(kind, _disk_key(key), ids)


def _content_key(kind: str, path: Path, data: bytes) -> tuple[str, str, bytes]:
    """The one key `_by_content` looks up and `prime_ids` fills: a different digest here would never be hit."""
    return kind, str(path), blake2b(data, digest_size=20).digest()


def _rule_ids_of(path: Path, text: str) -> list[str] | None:
    try:
        docs = parse_rule_docs(text, path)
    except yamlio.YamlError:
        return None
    return [doc_id(d, path) for d in docs]


def doc_id(doc: dict[str, Any], path: Path) -> str:
    """A document's rule id as ast-grep reads it: its `id`, else the file stem. `Target.ids_after` primes the
    id cache with this, so it must agree with `_rule_ids_of`."""
    return str(doc["id"]) if doc.get("id") is not None else path.stem


def file_ids(path: Path) -> list[str] | None:
    """The rule ids one file defines (the file stem for a document without `id`); None if unreadable."""
    return _by_content("rules", path, _rule_ids_of)


def _test_ids_of(path: Path, text: str) -> list[str]:
    """The `id` of each test document in a test file ("" for a document without one); [] if unreadable."""
    try:
        docs = [d for d in yamlio.load_all(text) if d is not None]
    except yamlio.YamlError:
        return []
    return [str(d.get("id")) if isinstance(d, dict) and d.get("id") is not None else "" for d in docs]


def test_file_ids(path: Path) -> list[str]:
    return _by_content("tests", path, _test_ids_of) or []


def project_ids(cfg: ProjectConfig, unreadable: list[Path] | None = None) -> dict[str, list[tuple[Path, int]]]:
    """Where each rule id is defined; the rule files that cannot be read are appended to `unreadable`."""
    out: dict[str, list[tuple[Path, int]]] = {}
    for path in cfg.rule_files():
        ids = file_ids(path)
        if ids is None and unreadable is not None:
            unreadable.append(path)
        for index, rid in enumerate(ids or []):
            out.setdefault(rid, []).append((path, index))
    _ids_on_disk.flush()
    return out


def unknown_id_message(cfg: ProjectConfig, rule_id: str) -> str:
    known = sorted(project_ids(cfg))
    import difflib  # only to word this error

    close = difflib.get_close_matches(rule_id, known, n=3, cutoff=0.5)
    if close:
        return f"No rule with id {rule_id}. Did you mean {', '.join(close)}? (list_rules shows all.)"
    return f"No rule with id {rule_id} in the project ({len(known)} rules). Use list_rules to see the ids."


def load_docs_quietly(path: Path) -> list[Any]:
    try:
        return [d for d in yamlio.load_all(path.read_text(encoding="utf-8")) if d is not None]
    except (yamlio.YamlError, UnicodeDecodeError, OSError):
        return []


def test_files_for(cfg: ProjectConfig, rule_id: str) -> list[Path]:
    out = []
    # String prefixes, not `Path.parents` (a lazy sequence of new Paths per test file per snapshot directory).
    snapshots = tuple(os.path.join(d, "") for d in cfg.snapshot_dirs)
    for path in cfg.test_files():
        if str(path).startswith(snapshots):
            continue
        if rule_id in test_file_ids(path):
            out.append(path)
    _ids_on_disk.flush()
    return out


def tested_ids(cfg: ProjectConfig) -> set[str]:
    ids: set[str] = set()
    for path in cfg.test_files():
        ids.update(i for i in test_file_ids(path) if i)
    _ids_on_disk.flush()
    return ids


def _proven_ids_of(path: Path, text: str) -> list[str]:
    """The ids of the test documents with at least one invalid case (proof the rule fires)."""
    try:
        docs = yamlio.load_all(text)
    except yamlio.YamlError:
        return []
    return [str(d["id"]) for d in docs
            if isinstance(d, dict) and d.get("id") is not None and isinstance(d.get("invalid"), list)
            and any(c is not None for c in d["invalid"])]


def proven_ids(cfg: ProjectConfig) -> set[str]:
    """Rule ids whose test has an invalid case; every other rule is unproven (listed, never refused on scan)."""
    ids: set[str] = set()
    snapshots = tuple(os.path.join(d, "") for d in cfg.snapshot_dirs)
    for path in cfg.test_files():
        if not str(path).startswith(snapshots):
            ids.update(_by_content("proven", path, _proven_ids_of) or [])
    _ids_on_disk.flush()
    return ids


def has_invalid_case(cfg: ProjectConfig, rule_id: str) -> bool:
    """Whether a test document for `rule_id` already has an invalid case (what a changed rule is proven by)."""
    return any(rule_id in (_by_content("proven", p, _proven_ids_of) or []) for p in test_files_for(cfg, rule_id))


def unproven_ids(cfg: ProjectConfig) -> list[str]:
    """The project's rule ids with no invalid test case, sorted."""
    proven = proven_ids(cfg)
    return sorted(i for i in project_ids(cfg) if i not in proven)


def existing_test_file(cfg: ProjectConfig, rule_id: str) -> Path | None:
    found = test_files_for(cfg, rule_id)
    return found[0] if found else None


def test_file_for(cfg: ProjectConfig, rule_id: str) -> Path | None:
    """Update the one test file that already tests this id; otherwise `<first test dir>/<id>-test.yml`."""
    found = test_files_for(cfg, rule_id)
    if len(found) == 1 and len(test_file_ids(found[0])) == 1:
        return found[0]
    first = cfg.first_test_dir
    return first / f"{rule_id}{TEST_SUFFIX}" if first is not None else None
