"""Community indexes and rules over http(s): fetched with a byte cap and a deadline, cached and revalidated.

A remote source is untrusted: https anywhere, plain http only on loopback, redirects followed by hand and only
on the same host, the body streamed under a cap and an overall deadline. Responses are cached with their ETag /
Last-Modified and revalidated after `Settings.cache_ttl`; when the network is down a stale copy is served with
a warning.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from sgtools.core.errors import NetworkError, SgToolsError, TooLarge
from sgtools.core.settings import get_settings
from sgtools.project.workspace import Workspace

if TYPE_CHECKING:
    import requests

LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")
MAX_REDIRECTS = 5
_CHUNK = 65536
_REDIRECTS = (301, 302, 303, 307, 308)


class Unreachable(NetworkError):
    """The network failed (no connection, timeout, 5xx): the one case where a stale cached copy may be served."""


def is_url(text: str) -> bool:
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

    timeout = get_settings().http_timeout
    deadline = time.monotonic() + timeout
    check_url(url)
    session = requests.Session()
    # Loopback never goes through a proxy; elsewhere the usual proxy environment applies.
    session.trust_env = _origin(url)[0] not in LOOPBACK_HOSTS
    current = url
    try:
        for _hop in range(MAX_REDIRECTS + 1):
            with _get(session, url, current, headers, timeout) as resp:
                if resp.status_code in _REDIRECTS:
                    current = _redirect_target(url, current, resp.headers.get("Location", ""))
                    continue
                if resp.status_code == 304:
                    return FetchResult(b"", 304, resp.headers.get("ETag"), resp.headers.get("Last-Modified"))
                _check_response(url, current, resp, cap)
                body = _read_capped(url, current, resp, cap, deadline, timeout)
                return FetchResult(body, 200, resp.headers.get("ETag"), resp.headers.get("Last-Modified"))
        raise NetworkError(f"The community source {url} redirected more than {MAX_REDIRECTS} times. Refused.")
    finally:
        session.close()


def _get(session: requests.Session, url: str, current: str, headers: dict[str, str] | None,
         timeout: float) -> requests.Response:
    """One streamed GET, redirects not followed; network failures as `Unreachable`."""
    import requests

    try:
        return session.get(current, headers=headers or {}, stream=True, allow_redirects=False,
                           timeout=(timeout, timeout))
    except requests.Timeout:
        raise Unreachable(f"The community source {url} did not answer within {timeout:g} s. Retry later, "
                          "or raise SGTOOLS_HTTP_TIMEOUT.") from None
    except requests.RequestException as exc:
        raise Unreachable(f"Could not reach the community source {url}: {type(exc).__name__}. Check the "
                          "network or the URL.") from None


def _redirect_target(url: str, current: str, location: str) -> str:
    target = urljoin(current, location)
    if _origin(target) != _origin(url) or urlsplit(target).scheme not in ("http", "https"):
        raise NetworkError(
            f"The community source {url} redirected to {target[:200]}, another host or scheme. "
            "Refused: use the final URL directly if you trust it."
        )
    check_url(target)
    return target


def _check_response(url: str, current: str, resp: requests.Response, cap: int) -> None:
    """Refuse an error status, or a body announced over the cap, before reading anything."""
    if resp.status_code >= 500:
        raise Unreachable(f"The community source {url} answered HTTP {resp.status_code}. Retry later.")
    if resp.status_code != 200:
        raise NetworkError(f"The community source {current} answered HTTP {resp.status_code}. Check the URL.")
    length = resp.headers.get("Content-Length")
    if length and length.isdigit() and int(length) > cap:
        raise TooLarge(f"{current} is {length} bytes, over the {cap}-byte limit. Refused; nothing was written.")


def _read_capped(url: str, current: str, resp: requests.Response, cap: int, deadline: float,
                 timeout: float) -> bytes:
    import requests
    import urllib3

    body = bytearray()
    try:
        for chunk in _chunks(resp):
            body += chunk
            if len(body) > cap:
                raise TooLarge(f"{current} sent more than {cap} bytes. Refused; nothing was written.")
            if time.monotonic() > deadline:
                raise Unreachable(f"The community source {url} did not finish within {timeout:g} s. "
                                  "Retry later, or raise SGTOOLS_HTTP_TIMEOUT.")
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
        raise Unreachable(f"The download from {url} failed: {type(exc).__name__}. Retry later.") from None
    return bytes(body)


def _chunks(resp: requests.Response) -> Iterator[bytes]:
    """read1 returns whatever one socket read gives, so a server that trickles bytes meets the deadline;
    iter_content would block until a whole chunk had arrived."""
    read1 = getattr(resp.raw, "read1", None)
    if read1 is not None:
        return iter(functools.partial(read1, _CHUNK), b"")
    return resp.iter_content(_CHUNK)


def _cache_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:40]


def write_cache(path: Path, data: bytes) -> None:
    """Best effort: an unwritable cache dir (read-only home, full disk) costs a refetch, never a failure."""
    with contextlib.suppress(OSError, SgToolsError):
        path.parent.mkdir(parents=True, exist_ok=True)
        Workspace(path.parent).write_bytes(path.name, data)


def cached_fetch(url: str, *, cap: int, cache: Path, refresh: bool = False,
                 clock: Callable[[], float] = time.time) -> FetchResult:
    """A URL through the cache: fresh copy within the TTL, else a conditional GET (304 keeps the copy), else,
    when the network fails, the stale copy with a warning. `cache` is the directory of cached responses."""
    entry = cache / _cache_key(url)
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
        write_cache(body_path, result.body)
    write_cache(meta_path, json.dumps(new_meta, sort_keys=True).encode("utf-8"))
    return result
