"""Where community rules come from: the bundled index, local indexes and https indexes, fetched safely and cached.

Order (first listed wins when two sources hold the same rule id): `SGTOOLS_COMMUNITY_SOURCES` (comma-separated),
then `community_sources = [...]` in the user config file (`<platformdirs user config dir>/context-sherpa/
config.toml`), then the bundled index, always last. A location is an `https://…/index.json` URL (plain http only
on loopback), a local `index.json`, or a directory holding one.

A remote index is untrusted input: responses are streamed with a byte cap and a deadline, redirects are followed
by hand and only on the same host, the index is schema-checked and its paths confined to its own location, and
a rule's bytes are used only when their sha256 matches the index. Responses are cached in the user cache dir
with their ETag / Last-Modified and revalidated after `Settings.cache_ttl`; when the network is down a stale
copy is served with a warning.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from sgtools.community.bundled import bundled_dir
from sgtools.community.index import INDEX_NAME, check_relpath, parse_index
from sgtools.core.cache import APP_NAME, cache_root
from sgtools.core.errors import BadInput, NetworkError, NotFound, SgToolsError, TooLarge
from sgtools.core.settings import get_settings
from sgtools.project.workspace import Workspace

SOURCES_ENV = "SGTOOLS_COMMUNITY_SOURCES"
CONFIG_FILE = "config.toml"
CONFIG_KEY = "community_sources"
BUNDLED_LOCATION = "bundled"
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")
MAX_REDIRECTS = 5
_CHUNK = 65536


class Unreachable(NetworkError):
    """The network failed (no connection, timeout, 5xx): the one case where a stale cached copy may be served."""


# ---- where things live -------------------------------------------------------------------------------------


def config_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_path(APP_NAME)) / CONFIG_FILE


def cache_dir() -> Path:
    return cache_root() / "community"


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
                    if not _is_url(text):
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

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "location": self.location, "kind": self.kind, "ruleCount": len(self.entries),
               "status": self.status}
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
            data = _read_local(Path(self.base) / rel, cap, f"rule {entry['id']} of {self.location}")
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
            _write_cache(_blob_path(want), data)
        return data

    def read_tests(self, entry: dict[str, Any]) -> bytes | None:
        """The rule's test file, or None when the index names none. Tests carry no digest: they are only data
        handed to ast-grep's test runner, never trusted as rules."""
        if entry.get("tests") is None:
            return None
        rel = check_relpath(entry["tests"], self.location, "tests")
        cap = get_settings().http_max_bytes
        if self.kind == "url":
            return cached_fetch(self._url(rel), cap=cap).body
        return _read_local(Path(self.base) / rel, cap, f"tests of {entry['id']} in {self.location}")

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

    def to_dicts(self) -> list[dict[str, Any]]:
        by_loc: dict[str, dict[str, Any]] = {p.location: p.to_dict() for p in self.problems}
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
        _write_cache(record, json.dumps(known).encode("utf-8"))
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
            kind = "bundled" if loc == BUNDLED_LOCATION else ("url" if _is_url(loc) else "local")
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
    if _is_url(location):
        check_url(location)
        result = cached_fetch(location, cap=cap, refresh=refresh)
        base = urljoin(location, ".")  # the index's directory, without its query string
        return Source(location, "url", base, result.body, status="stale" if result.stale else "ok",
                      warning=result.warning)
    path = Path(location).expanduser()
    path = Path(os.path.abspath(path))
    if path.is_dir():
        path = path / INDEX_NAME
    raw = _read_local(path, cap, f"the community index {location}")
    return Source(location, "local", str(path.parent), raw)


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


# ---- http(s) ------------------------------------------------------------------------------------------------


def _is_url(text: str) -> bool:
    return "://" in text


def check_url(url: str) -> None:
    """https anywhere; plain http only on loopback (a local test or mirror); nothing else (no file://)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme == "https" and host:
        return
    if parts.scheme == "http" and host in LOOPBACK_HOSTS:
        return
    raise NetworkError(
        f"Refused community source URL {url[:200]}: only https:// URLs (or http:// on 127.0.0.1, ::1, localhost) "
        "are allowed. Use an https URL or a local path."
    )


@dataclass
class FetchResult:
    body: bytes
    status: int = 200
    etag: str | None = None
    last_modified: str | None = None
    stale: bool = False
    warning: str | None = None


def _origin(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    return (parts.hostname or "").lower(), parts.port


def fetch(url: str, *, cap: int, headers: dict[str, str] | None = None) -> FetchResult:
    """GET with a byte cap and an overall deadline of `http_timeout`; redirects only on the same host."""
    import requests
    import urllib3

    settings = get_settings()
    timeout = settings.http_timeout
    deadline = time.monotonic() + timeout
    check_url(url)
    session = requests.Session()
    # Loopback never goes through a proxy; elsewhere the usual proxy environment applies.
    session.trust_env = _origin(url)[0] not in LOOPBACK_HOSTS
    current = url
    try:
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                resp = session.get(current, headers=headers or {}, stream=True, allow_redirects=False,
                                   timeout=(timeout, timeout))
            except requests.Timeout:
                raise Unreachable(f"The community source {url} did not answer within {timeout:g} s. Retry later, "
                                  "or raise SGTOOLS_HTTP_TIMEOUT.") from None
            except requests.RequestException as exc:
                raise Unreachable(f"Could not reach the community source {url}: {type(exc).__name__}. Check the "
                                  "network or the URL.") from None
            with resp:
                if resp.status_code in (301, 302, 303, 307, 308):
                    target = urljoin(current, resp.headers.get("Location", ""))
                    if _origin(target) != _origin(url) or urlsplit(target).scheme not in ("http", "https"):
                        raise NetworkError(
                            f"The community source {url} redirected to {target[:200]}, another host or scheme. "
                            "Refused: use the final URL directly if you trust it."
                        )
                    check_url(target)
                    current = target
                    continue
                if resp.status_code == 304:
                    return FetchResult(b"", 304, resp.headers.get("ETag"), resp.headers.get("Last-Modified"))
                if resp.status_code >= 500:
                    raise Unreachable(f"The community source {url} answered HTTP {resp.status_code}. Retry later.")
                if resp.status_code != 200:
                    raise NetworkError(f"The community source {current} answered HTTP {resp.status_code}. Check "
                                       "the URL.")
                length = resp.headers.get("Content-Length")
                if length and length.isdigit() and int(length) > cap:
                    raise TooLarge(f"{current} is {length} bytes, over the {cap}-byte limit. Refused; nothing was "
                                   "written.")
                body = bytearray()
                # read1 returns whatever one socket read gives, so a server that trickles bytes meets the
                # deadline below; iter_content would block until a whole chunk had arrived.
                read1 = getattr(resp.raw, "read1", None)
                chunks = iter(functools.partial(read1, _CHUNK), b"") if read1 is not None \
                    else resp.iter_content(_CHUNK)
                try:
                    for chunk in chunks:
                        body += chunk
                        if len(body) > cap:
                            raise TooLarge(f"{current} sent more than {cap} bytes. Refused; nothing was written.")
                        if time.monotonic() > deadline:
                            raise Unreachable(f"The community source {url} did not finish within {timeout:g} s. "
                                              "Retry later, or raise SGTOOLS_HTTP_TIMEOUT.")
                except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
                    raise Unreachable(f"The download from {url} failed: {type(exc).__name__}. Retry later.") \
                        from None
                return FetchResult(bytes(body), 200, resp.headers.get("ETag"), resp.headers.get("Last-Modified"))
        raise NetworkError(f"The community source {url} redirected more than {MAX_REDIRECTS} times. Refused.")
    finally:
        session.close()


def _cache_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:40]


def _blob_path(sha256: str) -> Path:
    return cache_dir() / "blobs" / f"{sha256}.yml"


def _write_cache(path: Path, data: bytes) -> None:
    """Best effort: an unwritable cache dir (read-only home, full disk) costs a refetch, never a failure."""
    with contextlib.suppress(OSError, SgToolsError):
        path.parent.mkdir(parents=True, exist_ok=True)
        Workspace(path.parent).write_bytes(path.name, data)


def cached_fetch(url: str, *, cap: int, refresh: bool = False,
                 clock: Callable[[], float] = time.time) -> FetchResult:
    """A URL through the cache: fresh copy within the TTL, else a conditional GET (304 keeps the copy), else,
    when the network fails, the stale copy with a warning."""
    entry = cache_dir() / "http" / _cache_key(url)
    body_path, meta_path = entry.with_suffix(".body"), entry.with_suffix(".json")
    meta: dict[str, Any] = {}
    cached: bytes | None = None
    if body_path.is_file() and meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            cached = body_path.read_bytes()
            if meta.get("url") != url or meta.get("sha256") != hashlib.sha256(cached).hexdigest():
                meta, cached = {}, None
        except (OSError, ValueError):
            meta, cached = {}, None
    now = clock()
    if cached is not None and not refresh and now - float(meta.get("fetchedAt", 0)) < get_settings().cache_ttl:
        return FetchResult(cached, 200, meta.get("etag"), meta.get("lastModified"))
    headers: dict[str, str] = {}
    if cached is not None:
        if meta.get("etag"):
            headers["If-None-Match"] = str(meta["etag"])
        if meta.get("lastModified"):
            headers["If-Modified-Since"] = str(meta["lastModified"])
    try:
        result = fetch(url, cap=cap, headers=headers)
    except Unreachable as exc:
        if cached is None:
            raise
        age = now - float(meta.get("fetchedAt", 0))
        return FetchResult(cached, 200, meta.get("etag"), meta.get("lastModified"), stale=True,
                           warning=f"{url}: offline, serving a cached copy {age / 3600:.1f} h old ({exc.message})")
    if result.status == 304 and cached is not None:
        result = FetchResult(cached, 304, result.etag or meta.get("etag"),
                             result.last_modified or meta.get("lastModified"))
    elif result.status == 304:
        raise NetworkError(f"The community source {url} answered 304 Not Modified to an unconditional request.")
    new_meta = {"url": url, "etag": result.etag, "lastModified": result.last_modified, "fetchedAt": now,
                "sha256": hashlib.sha256(result.body).hexdigest()}
    if result.status != 304:
        _write_cache(body_path, result.body)
    _write_cache(meta_path, json.dumps(new_meta, sort_keys=True).encode("utf-8"))
    return result

