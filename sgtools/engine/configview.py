"""The `sgconfig.yml` ast-grep is given: the project's own, or, when a folder it declares is missing, a copy without
that folder.

Git keeps no empty folder, so a fresh clone (or `git clean -fdx`, `git stash -u`) of a project whose `utils/`,
`rule-tests/` or `rules/` held nothing has no such folder, and ast-grep then refuses every call with exit 6
("Cannot read rule directory"). A missing folder holds no rule, util or test, so leaving it out changes nothing
that ast-grep would do with it present and empty. The copy names the remaining folders by absolute path and lives
in a private directory of its own (never an ancestor of a scanned path): ast-grep matches a rule's `files` and
`ignores` against the path relative to the cwd when the config does not sit above it, and every caller runs it
from the project root (tested in tests/test_clone_setup.py). The project itself is never written.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

_lock = threading.Lock()
# config path -> ((mtime_ns, size), the parsed mapping or None when unusable)
_parsed: dict[str, tuple[tuple[int, int], dict[str, Any] | None]] = {}
_DIR_KEYS = ("ruleDirs", "utilDirs")


def declared_dirs(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, folder as written) for every folder the config declares: ruleDirs, utilDirs, testConfigs' testDir."""
    out: list[tuple[str, str]] = []
    for key in _DIR_KEYS:
        value = data.get(key)
        if isinstance(value, list):
            out += [(key, d) for d in value if isinstance(d, str)]
    tests = data.get("testConfigs")
    if isinstance(tests, list):
        out += [("testConfigs", t["testDir"]) for t in tests
                if isinstance(t, dict) and isinstance(t.get("testDir"), str)]
    return out


def _load(path: Path) -> dict[str, Any] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    key = str(path)
    with _lock:
        hit = _parsed.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    from sgtools.core import yamlio

    data: dict[str, Any] | None
    try:
        loaded = yamlio.load_one(path.read_bytes())
        data = loaded if isinstance(loaded, dict) else None
    except (OSError, ValueError, UnicodeDecodeError):
        data = None  # ast-grep reports a broken config itself, with its own words
    with _lock:
        _parsed[key] = (stamp, data)
    return data


def missing_dirs(config: Path | str) -> list[tuple[str, str]]:
    """(key, folder as written) for each declared folder that does not exist; [] for /dev/null or no config."""
    if str(config) == os.devnull:
        return []
    path = Path(config)
    data = _load(path)
    if data is None:
        return []
    return [(key, d) for key, d in declared_dirs(data) if not (path.parent / d).is_dir()]


def engine_config(config: Path | str) -> str:
    """The config to hand ast-grep for `config`: itself, or a copy without its missing folders."""
    missing = missing_dirs(config)
    if not missing:
        return str(config)
    path = Path(config)
    data = _load(path)
    assert data is not None  # missing_dirs found folders in it
    return str(_write_view(path, absolute_view(path.parent, data)))


def absolute_view(root: Path, data: dict[str, Any]) -> dict[str, Any]:
    """`data` with its missing folders left out and every relative path in it made absolute (also the private
    config a rule's snapshot is made under, rules/snapshot.py)."""
    view = dict(data)
    for key in _DIR_KEYS:
        if isinstance(data.get(key), list):
            view[key] = [str(root / d) for d in data[key] if isinstance(d, str) and (root / d).is_dir()]
    if isinstance(data.get("testConfigs"), list):
        tests = []
        for t in data["testConfigs"]:
            if isinstance(t, dict) and isinstance(t.get("testDir"), str) and (root / t["testDir"]).is_dir():
                tests.append({**t, "testDir": str(root / t["testDir"])})
        view["testConfigs"] = tests
    custom = data.get("customLanguages")
    if isinstance(custom, dict):
        view["customLanguages"] = {name: _absolute_library(root, spec) for name, spec in custom.items()}
    return view


def _absolute_library(root: Path, spec: Any) -> Any:
    if not isinstance(spec, dict):
        return spec
    lib = spec.get("libraryPath")
    if isinstance(lib, str):
        return {**spec, "libraryPath": str(root / lib)}
    if isinstance(lib, dict):
        return {**spec, "libraryPath": {k: str(root / v) if isinstance(v, str) else v for k, v in lib.items()}}
    return spec


def _write_view(config: Path, view: dict[str, Any]) -> Path:
    """The copy's file, written once per distinct content into its own private directory."""
    from sgtools.core.atomic import write_atomic
    from sgtools.core.digest import sha256
    from sgtools.engine.tempdirs import tmp_root

    body = json.dumps(view, sort_keys=True)  # JSON is YAML: ast-grep reads it as is
    digest = sha256(f"{config}\0{body}".encode()).hexdigest()[:24]
    target = tmp_root() / f"config-{digest}" / "sgconfig.yml"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, body.encode("utf-8"))
    return target
