"""Where community rules come from: the bundled index, local indexes and https indexes (fetched and cached by
community/fetch.py).

Order (first listed wins when two sources hold the same rule id): `SGTOOLS_COMMUNITY_SOURCES` (comma-separated),
then `community_sources = [...]` in the user config file (`<platformdirs user config dir>/context-sherpa/
config.toml`), then the bundled index, always last. A location is an `https://…/index.json` URL (plain http only
on loopback), a local `index.json`, or a directory holding one.

A remote index is untrusted input: the index is schema-checked and its paths confined to its own location, and
a rule's bytes are used only when their sha256 matches the index.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from sgtools.community.fetch import cached_fetch, check_url, fetch, is_url, write_cache
from sgtools.community.index import INDEX_NAME, check_relpath, parse_index
from sgtools.contracts.common import SourceStatus
from sgtools.core.bundled import bundled_dir
from sgtools.core.cache import cache_root, config_root
from sgtools.core.errors import BadInput, NetworkError, NotFound, SgToolsError, TooLarge
from sgtools.core.settings import get_settings

SOURCES_ENV = "SGTOOLS_COMMUNITY_SOURCES"
CONFIG_FILE = "config.toml"
CONFIG_KEY = "community_sources"
BUNDLED_LOCATION = "bundled"


# ---- where things live -------------------------------------------------------------------------------------


def config_path() -> Path:
    return config_root() / CONFIG_FILE


def cache_dir() -> Path:
    return cache_root() / "community"


def _blob_path(sha256: str) -> Path:
    return cache_dir() / "blobs" / f"{sha256}.yml"


def configured_locations() -> tuple[list[tuple[str, str]], list[SourceProblem]]:
    """(location, where it was configured) in priority order, bundled excluded; plus config-file problems."""
    out: list[tuple[str, str]] = []
    problems: list[SourceProblem] = []
    for item in os.environ.get(SOURCES_ENV, "").split(","):
        if item.strip():
            out.append((item.strip(), SOURCES_ENV))
    path = config_path()
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            items = data.get(CONFIG_KEY, [])
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise ValueError(f"`{CONFIG_KEY}` must be a list of strings")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError) as exc:
            problems.append(SourceProblem(str(path), "config", BadInput(
                f"The config file {path} could not be read: {exc}. Fix it (e.g. `{CONFIG_KEY} = "
                "[\"https://example.org/rules/index.json\"]`) or remove it.")))
        else:
            for item in items:
                if item.strip():
                    text = item.strip()
                    if not is_url(text):
                        text = str(path.parent / Path(text).expanduser())
                    out.append((text, str(path)))
    seen: set[str] = {BUNDLED_LOCATION}  # always present, always last
    unique: list[tuple[str, str]] = []
    for loc, why in out:
        if loc not in seen:
            seen.add(loc)
            unique.append((loc, why))
    return unique, problems


# ---- sources ---------------------------------------------------------------------------------------------


@dataclass
class SourceProblem:
    location: str
    kind: str
    error: SgToolsError

    def to_dict(self) -> SourceStatus:
        return {"name": self.location, "location": self.location, "kind": self.kind, "ruleCount": 0,
                "status": "error", "error": self.error.render()}


@dataclass
class Source:
    location: str
    kind: str  # "bundled" | "local" | "url"
    base: str  # the directory (local) or URL prefix ending in "/" that entry paths resolve against
    raw: bytes
    status: str = "ok"  # "ok" | "stale"
    warning: str | None = None
    _index: dict[str, Any] | None = field(default=None, repr=False)

    @functools.cached_property
    def digest(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()

    @property
    def index(self) -> dict[str, Any]:
        if self._index is None:
            # The bundled index ships with the package and is checked against the schema by its own tests;
            # the id and path checks still run on it like on any other.
            self._index = _parse(self.raw, self.digest, self.location, schema=self.kind != "bundled")
        return self._index

    @property
    def name(self) -> str:
        return str(self.index.get("name") or self.location)

    @property
    def entries(self) -> list[dict[str, Any]]:
        return list(self.index["rules"])

    def to_dict(self) -> SourceStatus:
        out: SourceStatus = {"name": self.name, "location": self.location, "kind": self.kind,
                             "ruleCount": len(self.entries), "status": self.status}
        if self.warning:
            out["warning"] = self.warning
        return out

    # ---- the files an entry names ----

    def read_rule(self, entry: dict[str, Any]) -> bytes:
        """The rule file's bytes, only if their sha256 is the one the index promises."""
        rel = check_relpath(entry["path"], self.location)
        want = str(entry["sha256"])
        cap = get_settings().max_rule_bytes
        if self.kind == "url":
            cached = _blob_path(want)
            if cached.is_file() and cached.stat().st_size <= cap:
                data = cached.read_bytes()
                if hashlib.sha256(data).hexdigest() == want:
                    return data
            data = fetch(self._url(rel), cap=cap).body
        else:
            data = _read_in_index(self.base, rel, cap, f"rule {entry['id']} of {self.location}")
        got = hashlib.sha256(data).hexdigest()
        if got != want:
            advice = ("The source may have been tampered with or changed since its index was published; run "
                      "`sgtools community update` and retry." if self.kind == "url" else
                      "The rule file changed after the index was built; rebuild it with `sgtools community "
                      "build-index`.")
            raise NetworkError(
                f"Refused rule {entry['id']} from {self.location}: its file {rel} has sha256 {got[:16]}…, but the "
                f"index says {want[:16]}…. Nothing was written. {advice}"
            )
        if self.kind == "url":
            write_cache(_blob_path(want), data)
        return data

    def read_tests(self, entry: dict[str, Any]) -> bytes | None:
        """The rule's test file, or None when the index names none. Tests carry no digest: they are only data
        handed to ast-grep's test runner, never trusted as rules."""
        if entry.get("tests") is None:
            return None
        rel = check_relpath(entry["tests"], self.location, "tests")
        cap = get_settings().http_max_bytes
        if self.kind == "url":
            return cached_fetch(self._url(rel), cap=cap, cache=cache_dir() / "http").body
        return _read_in_index(self.base, rel, cap, f"tests of {entry['id']} in {self.location}")

    def _url(self, rel: str) -> str:
        url = urljoin(self.base, rel)
        if not url.startswith(self.base):
            raise BadInput(f"The community index {self.location} names {rel!r}, outside its location. Refused.")
        return url


@dataclass
class SourceSet:
    sources: list[Source]
    problems: list[SourceProblem]
    order: list[str]  # every location in priority order, failed ones included

    def warnings(self) -> list[str]:
        out = [p.error.render() for p in self.problems]
        out += [s.warning for s in self.sources if s.warning]
        return out

    def resolved(self) -> list[tuple[Source, dict[str, Any]]]:
        """Every rule once: the entry of the first source (in priority order) that has its id."""
        seen: set[str] = set()
        out: list[tuple[Source, dict[str, Any]]] = []
        for src in self.sources:
            for entry in src.entries:
                if entry["id"] not in seen:
                    seen.add(entry["id"])
                    out.append((src, entry))
        return out

    def find(self, rule_id: str) -> tuple[Source, dict[str, Any]]:
        """The source and entry a rule id resolves to. A failed source listed before the one that has the id
        (or any failed source, when none has it) is raised: it might have held the rule with priority."""
        failed = {p.location: p for p in self.problems}
        for loc in self.order:
            if loc in failed:
                raise failed[loc].error
            src = next(s for s in self.sources if s.location == loc)
            for entry in src.entries:
                if entry["id"] == rule_id:
                    return src, entry
        raise NotFound(f"No community rule has the id {rule_id!r}.", closest=[])

    def to_dicts(self) -> list[SourceStatus]:
        by_loc: dict[str, SourceStatus] = {p.location: p.to_dict() for p in self.problems}
        for s in self.sources:
            try:
                by_loc[s.location] = s.to_dict()
            except SgToolsError as exc:
                by_loc[s.location] = SourceProblem(s.location, s.kind, exc).to_dict()
        return [by_loc[loc] for loc in self.order if loc in by_loc]


_parsed: dict[str, dict[str, Any]] = {}  # index digest -> checked index, for this process
_MAX_PARSED = 32
_MAX_VALIDATED = 256


def _parse(raw: bytes, digest: str, where: str, *, schema: bool = True) -> dict[str, Any]:
    """Parse and check an index once per content: the schema pass (and the ~100 ms jsonschema import) is skipped
    for bytes whose digest passed it before, in this process or an earlier one (recorded in the cache dir)."""
    if digest in _parsed:
        return _parsed[digest]
    if not schema:
        index = parse_index(raw, where, schema=False)
        _parsed[digest] = index
        return index
    record = cache_dir() / "validated.json"
    try:
        known: list[str] = json.loads(record.read_text(encoding="utf-8"))
        if not isinstance(known, list):
            known = []
    except (OSError, ValueError):
        known = []
    index = parse_index(raw, where, schema=digest not in known)
    if digest not in known:
        known = [*known[-(_MAX_VALIDATED - 1):], digest]
        write_cache(record, json.dumps(known).encode("utf-8"))
    if len(_parsed) >= _MAX_PARSED:
        _parsed.clear()
    _parsed[digest] = index
    return index


def load_sources(*, refresh: bool = False) -> SourceSet:
    """Every configured source, the bundled one last. A source that fails becomes a problem, never hides the
    others; each source's index is parsed and checked here, so a bad one is reported by name."""
    locations, problems = configured_locations()
    sources: list[Source] = []
    order: list[str] = [p.location for p in problems]  # a broken config file may have listed sources first
    for loc, _why in [*locations, (BUNDLED_LOCATION, "bundled")]:
        order.append(loc)
        try:
            src = open_source(loc, refresh=refresh)
            src.index  # noqa: B018 - parse and check now, so a broken index is a problem, not a surprise later
        except SgToolsError as exc:
            kind = "bundled" if loc == BUNDLED_LOCATION else ("url" if is_url(loc) else "local")
            problems.append(SourceProblem(loc, kind, exc))
            continue
        sources.append(src)
    return SourceSet(sources, problems, order)


def open_source(location: str, *, refresh: bool = False) -> Source:
    """One source's index bytes (not yet parsed): bundled, local file or directory, or URL."""
    cap = get_settings().http_max_bytes
    if location == BUNDLED_LOCATION:
        path = bundled_dir() / INDEX_NAME
        raw = _read_local(path, cap, "the bundled community index")
        return Source(location, "bundled", str(path.parent), raw)
    if is_url(location):
        check_url(location)
        result = cached_fetch(location, cap=cap, cache=cache_dir() / "http", refresh=refresh)
        base = urljoin(location, ".")  # the index's directory, without its query string
        return Source(location, "url", base, result.body, status="stale" if result.stale else "ok",
                      warning=result.warning)
    path = Path(location).expanduser()
    path = Path(os.path.abspath(path))
    if path.is_dir():
        path = path / INDEX_NAME
    raw = _read_local(path, cap, f"the community index {location}")
    return Source(location, "local", str(path.parent), raw)


def _read_in_index(base: str, rel: str, cap: int, what: str) -> bytes:
    """A file a local index names, only if it lies inside the index's directory once links are resolved: a rule
    or test file that is a symlink to outside the index (its `..`-free path notwithstanding) is refused."""
    root = os.path.realpath(base)
    real = os.path.realpath(os.path.join(base, rel))
    if os.path.commonpath([root, real]) != root:
        raise BadInput(f"{what} ({rel}) is a link to {real}, outside the index's directory {root}. Refused; nothing "
                       "was written. Replace the link with the file, or remove that source.")
    return _read_local(Path(real), cap, what)


def _read_local(path: Path, cap: int, what: str) -> bytes:
    if path.exists() and not path.is_file():  # a directory, FIFO or device: never open it
        raise BadInput(f"{what} ({path}) is not a regular file. Refused.")
    try:
        with open(path, "rb") as fh:
            data = fh.read(cap + 1)
    except FileNotFoundError:
        raise NotFound(f"{what} ({path}) does not exist. Fix the source location, or rebuild the index with "
                       "`sgtools community build-index`.") from None
    except IsADirectoryError:
        raise BadInput(f"{what} ({path}) is a directory, not a file. Refused.") from None
    except OSError as exc:
        raise NotFound(f"{what} ({path}) cannot be read: {exc.strerror or exc}.") from None
    if len(data) > cap:
        raise TooLarge(f"{what} ({path}) is larger than {cap} bytes. Refused; nothing was written.")
    return data
