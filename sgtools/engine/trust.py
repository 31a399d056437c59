"""Which native parser libraries ast-grep may load: none, until the user trusts them.

A project's `sgconfig.yml` may name `customLanguages` libraries; ast-grep loads one with `dlopen`, which runs
its code. A cloned repository is untrusted input, so (like ast-grep 0.51 itself) we never pass
`--custom-languages allow` for it until the user says so with `sgtools trust`. Trust is remembered per
library, by its real path and sha256, in the user config directory: a library that changes, or a new
library in the config, is untrusted again.

Trust is checked right before each engine call. A library swapped between that check and ast-grep's `dlopen`
is out of reach here: the same window exists for any tool that loads a file by name.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, NamedTuple, TypedDict

from sgtools.core.digest import sha256

MODES = ("auto", "allow", "ignore")
Mode = Literal["auto", "allow", "ignore"]
MODE_ENV = "SGTOOLS_CUSTOM_LANGUAGES"
STORE_ENV = "SGTOOLS_TRUST_FILE"
STORE_VERSION = 1
_MAX_CONFIG_BYTES = 1 << 20

State = Literal["trusted", "untrusted", "changed", "missing"]


class LibraryStatus(TypedDict):
    language: str
    library: str  # as written in sgconfig.yml
    path: str  # resolved
    state: State
    trusted: bool


class Library(NamedTuple):
    """A parser library a config names (a NamedTuple: cheaper than a dataclass to define on every CLI start)."""

    language: str
    written: str
    path: Path


_lock = threading.Lock()  # the digest memo
_store_lock = threading.Lock()  # read-modify-write of the trust file within this process
_digests: dict[tuple[str, int, int, int], str] = {}


def store_path() -> Path:
    override = os.environ.get(STORE_ENV)
    if override:
        return Path(override)
    from sgtools.core.cache import config_root

    return config_root() / "trusted-parsers.json"


def mode_from_env() -> Mode:
    value = os.environ.get(MODE_ENV, "auto").strip().lower() or "auto"
    if value not in MODES:
        from sgtools.core.errors import BadInput

        raise BadInput(f"{MODE_ENV} must be one of {', '.join(MODES)}, got {value!r}. "
                       "`auto` (the default) loads parser libraries only once `sgtools trust` trusted them.")
    return value  # type: ignore[return-value]


def libraries(config: Path) -> list[Library]:
    """The `customLanguages` libraries a config names, resolved against its directory. Unreadable: none."""
    try:
        with open(config, "rb") as fh:
            raw = fh.read(_MAX_CONFIG_BYTES + 1)
    except OSError:
        return []
    if b"customLanguages" not in raw or len(raw) > _MAX_CONFIG_BYTES:
        return []
    from sgtools.core import yamlio

    try:
        data = yamlio.load_one(raw)
    except (yamlio.YamlError, UnicodeDecodeError):
        return []
    custom = data.get("customLanguages") if isinstance(data, dict) else None
    if not isinstance(custom, dict):
        return []
    found = []
    for name, spec in custom.items():
        lib = spec.get("libraryPath") if isinstance(spec, dict) else None
        if isinstance(lib, str) and lib:
            found.append(Library(str(name), lib, (config.parent / lib).resolve()))
    return found


def digest(path: Path) -> str | None:
    """sha256 of a library, cached by inode, size and mtime (a changed file gets a new digest)."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _lock:
        known = _digests.get(key)
    if known is not None:
        return known
    h = sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    value = h.hexdigest()
    with _lock:
        _digests[key] = value
    return value


def _read_store() -> dict[str, str]:
    """Trusted libraries: real path -> sha256. Keyed by the library, not the config naming it: the code that
    would run is the library's, whichever config (the project's, or one derived from it) names it."""
    try:
        data = json.loads(store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    libs = data.get("libraries") if isinstance(data, dict) else None
    if not isinstance(libs, dict):
        return {}
    return {k: v for k, v in libs.items() if isinstance(k, str) and isinstance(v, str)}


def _write_store(libs: dict[str, str]) -> None:
    from sgtools.core.atomic import write_atomic

    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"version": STORE_VERSION, "libraries": libs}, indent=2, sort_keys=True)
    write_atomic(path, text.encode("utf-8"), durable=True)


def status(config: Path) -> list[LibraryStatus]:
    """Each library the config names and whether ast-grep may load it now. A config that names none (most) does
    not read the trust store: every engine call asks, and finding the store's directory imports platformdirs."""
    named = libraries(config)
    if not named:
        return []
    stored = _read_store()
    out: list[LibraryStatus] = []
    for lib in named:
        current = digest(lib.path)
        known = stored.get(str(lib.path))
        state: State
        if current is None:
            state = "missing"
        elif known is None:
            state = "untrusted"
        elif known != current:
            state = "changed"
        else:
            state = "trusted"
        out.append({"language": lib.language, "library": lib.written, "path": str(lib.path), "state": state,
                    "trusted": state == "trusted"})
    return out


def is_trusted(config: Path) -> bool:
    """True when the config names at least one library and every one is trusted and unchanged."""
    found = status(config)
    return bool(found) and all(s["trusted"] for s in found)


@contextlib.contextmanager
def _store_locked() -> Iterator[None]:
    """The trust store's read-modify-write, exclusive across threads and processes: an advisory `fcntl.flock`
    on a lock file beside the store (two `sgtools trust` at once lost one's entry under the thread lock
    alone), the store itself replaced atomically."""
    with _store_lock:
        path = store_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            try:
                import fcntl
            except ImportError:  # Windows: no flock; the thread lock still holds within the process
                fcntl = None  # type: ignore[assignment]
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock


def trust(config: Path) -> list[LibraryStatus]:
    """Remember the current digest of every library the config names (a missing one is not recorded)."""
    with _store_locked():
        libs = _read_store()
        libs.update({str(lib.path): d for lib in libraries(config) if (d := digest(lib.path)) is not None})
        _write_store(libs)
    return status(config)


def revoke(config: Path) -> list[LibraryStatus]:
    with _store_locked():
        libs = _read_store()
        named = {str(lib.path) for lib in libraries(config)}
        if named & set(libs):
            _write_store({k: v for k, v in libs.items() if k not in named})
    return status(config)


def flag_without_libraries(mode: Mode) -> list[str]:
    """`flag` for a config already parsed and found to name no `customLanguages` (the warm engine's, which serves
    only such configs): what `flag` answers for it, without reading the file again on every call."""
    return ["--custom-languages", "allow" if mode == "allow" else "ignore"]


def flag(config: Path | str, mode: Mode) -> list[str]:
    """The `--custom-languages` argument for one engine call with this config."""
    if str(config) == os.devnull:
        return []
    if mode == "allow":
        return ["--custom-languages", "allow"]
    if mode == "auto" and is_trusted(Path(config)):
        return ["--custom-languages", "allow"]
    return ["--custom-languages", "ignore"]
