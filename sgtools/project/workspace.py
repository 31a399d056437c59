"""The workspace root, path confinement, atomic writes and the inter-process write lock.

Every path a tool takes goes through `Workspace.resolve`; every byte a tool writes goes through
`Workspace.write_text` / `remove` under `Workspace.lock()`. Nothing else in the package writes to disk
inside a project.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from sgtools.core.atomic import write_atomic
from sgtools.core.errors import BadInput, OutsideWorkspace, Timeout
from sgtools.core.lazyre import LazyRe
from sgtools.core.settings import Settings, get_settings

ROOT_ENV = "SGTOOLS_ROOT"
RULE_ID = LazyRe(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # always fullmatch: `$` passes "id\n"
JOURNAL_NAME = ".sgtools-journal.json"  # see project/journal.py
MAX_NAME_BYTES = 255  # one path component, as on ext4 / APFS / NTFS
MAX_PATH_BYTES = 4096
_LOCK_POLL = 0.02

# flock is per open file description; threads of one process share the lock only through this.
_thread_locks: dict[str, threading.RLock] = {}
_thread_locks_guard = threading.Lock()


def check_rule_id(rule_id: object) -> str:
    if not isinstance(rule_id, str) or not RULE_ID.fullmatch(rule_id) or rule_id in (".", ".."):
        raise BadInput(
            f"Rule id {rule_id!r} is not valid: use 1 to 128 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit (for example `no-eval-python`)."
        )
    return rule_id


def resolve_root(root: str | os.PathLike[str] | None = None) -> Path:
    """`--root`, else `SGTOOLS_ROOT`, else the current directory; it must be an existing directory."""
    raw = root if root is not None else (os.environ.get(ROOT_ENV) or os.getcwd())
    path = Path(raw).expanduser()
    try:
        resolved = path.resolve(strict=True)
    except (FileNotFoundError, NotADirectoryError):
        raise BadInput(f"Workspace root {raw} does not exist. Create it or pass an existing --root.") from None
    if not resolved.is_dir():
        raise BadInput(f"Workspace root {raw} is not a directory. Pass a directory as --root.")
    return resolved


class Workspace:
    """A project root and the settings the adapter validated at start-up: services read limits from
    `ws.settings` (or `engine.settings`), never from the process-wide `get_settings()`."""

    def __init__(self, root: str | os.PathLike[str] | None = None, settings: Settings | None = None) -> None:
        self.root = resolve_root(root)
        self.settings = settings if settings is not None else get_settings()
        if os.path.lexists(self.root / JOURNAL_NAME):  # a multi-file write was cut by a crash: finish it first
            with contextlib.suppress(Timeout, OSError), self.lock():  # Timeout: a live writer holds it
                pass

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # ---- confinement ------------------------------------------------------------------------------

    def resolve(self, path: str | os.PathLike[str], *, must_exist: bool = False) -> Path:
        """A path inside the root, symlinks resolved; anything that leaves the root is refused."""
        text = os.fspath(path)
        if not isinstance(text, str) or not text.strip():
            raise BadInput("An empty path was given. Pass a path relative to the workspace root.")
        if "\x00" in text:
            raise BadInput("The path contains a NUL byte. Pass a plain relative path.")
        if len(text.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
            raise BadInput(f"The path is longer than {MAX_PATH_BYTES} bytes. Pass a shorter path.")
        for part in Path(text).parts:
            if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
                raise BadInput(f"A path component is longer than {MAX_NAME_BYTES} bytes. Pass a shorter name.")
        candidate = Path(text) if os.path.isabs(text) else self.root / text
        try:
            resolved = candidate.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # a symlink loop, or a link swapped while it was being read
            raise BadInput(f"{text} cannot be resolved ({getattr(exc, 'strerror', None) or exc}): a symlink loop, "
                           "or the path changed while it was checked. Fix the link, or retry.") from None
        if resolved != self.root and self.root not in resolved.parents:
            raise OutsideWorkspace(
                f"{text} is outside the workspace root {self.root}. Pass a path inside the root, or restart "
                "with --root (or SGTOOLS_ROOT) set to the project you mean."
            )
        if resolved.exists():
            mode = resolved.stat().st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise BadInput(f"{text} is not a regular file or directory. Pass a source file or folder.")
        elif must_exist:
            from sgtools.core.errors import NotFound

            raise NotFound(f"{text} does not exist in the workspace. Check the path (relative to {self.root}).")
        return resolved

    def relative(self, path: str | os.PathLike[str]) -> str:
        """The `/`-separated path relative to the root that tools return."""
        p = Path(path)
        if not p.is_absolute():
            p = self.root / p
        try:
            return p.relative_to(self.root).as_posix() or "."
        except ValueError:
            return p.resolve().relative_to(self.root).as_posix() or "."

    # ---- writes -----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, timeout: float | None = None) -> Iterator[None]:
        """Serialise writers across processes (flock on the root directory itself: no lock file to leave
        behind) and across threads of this process (an RLock, since flock is per open file)."""
        limit = self.settings.lock_timeout if timeout is None else timeout
        key = str(self.root)
        with _thread_locks_guard:
            tlock = _thread_locks.setdefault(key, threading.RLock())
        if not tlock.acquire(timeout=limit):
            raise Timeout(f"Another write to {self.root} is still running. Retry in a moment.")
        try:
            fd = os.open(self.root, os.O_RDONLY)
            try:
                deadline = time.monotonic() + limit
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except OSError as exc:
                        if exc.errno not in (errno.EAGAIN, errno.EACCES):
                            raise
                        if time.monotonic() > deadline:
                            raise Timeout(
                                f"Another process holds the write lock on {self.root} for over {limit:g} s. "
                                "Retry when it has finished."
                            ) from None
                        time.sleep(_LOCK_POLL)
                try:
                    self._finish_interrupted_write()
                    yield
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        finally:
            tlock.release()

    def _finish_interrupted_write(self) -> None:
        """With the lock held: replay a multi-file write a crash interrupted (project/journal), so no writer
        ever starts from a half-written project, in this process or a long-running server."""
        if os.path.lexists(self.root / JOURNAL_NAME):
            from sgtools.project import journal  # it builds on this module

            journal.replay_held(self)

    def write_text(self, path: str | os.PathLike[str], text: str) -> Path:
        return self.write_bytes(path, text.encode("utf-8"))

    def write_bytes(self, path: str | os.PathLike[str], data: bytes) -> Path:
        """Atomic and confined: a temp file beside the target, fsync, rename, fsync the directory, all through a
        descriptor of the parent opened from the root one component at a time with O_NOFOLLOW, so a directory
        swapped for a symlink after `resolve` cannot redirect the write. Keeps the mode of a file it replaces.
        Readers see the old bytes or the new ones, never a mix."""
        target = self.resolve(path)
        with self._parent_fd(target, create=True) as dir_fd:
            try:
                mode = os.stat(target.name, dir_fd=dir_fd, follow_symlinks=False).st_mode & 0o7777
            except FileNotFoundError:
                mode = 0o644
            write_atomic(Path(target.name), data, durable=True, dir_fd=dir_fd, mode=mode)
        return target

    @contextlib.contextmanager
    def _parent_fd(self, target: Path, *, create: bool) -> Iterator[int]:
        """A descriptor of `target`'s parent, reached from the root through real directories only (created when
        `create`); a symlink or a non-directory on the way is refused, whatever happened since `resolve`."""
        try:
            parts = target.parent.relative_to(self.root).parts
        except ValueError:
            raise OutsideWorkspace(f"{target} is outside the workspace root {self.root}.") from None
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for i, part in enumerate(parts):
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o777, dir_fd=fd)
                try:
                    nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    where = "/".join(parts[:i + 1])
                    raise OutsideWorkspace(
                        f"{where} changed into a symlink or a file while writing {self.relative(target)}: nothing "
                        "was written. Check what replaced that directory, then retry.") from None
                os.close(fd)
                fd = nxt
            yield fd
        finally:
            os.close(fd)

    def read_bytes(self, path: str | os.PathLike[str], setting: str = "max_file_bytes") -> bytes:
        """A regular file's bytes (up to the `setting` limit, `[too-large]` past it), opened as writes are: through
        a descriptor of its parent reached from the root with O_NOFOLLOW at every component, the file itself
        O_NOFOLLOW. A directory swapped for a symlink to outside, at any moment, is refused (OutsideWorkspace),
        never read through; OSError as `open` raises it otherwise."""
        from sgtools.core import bounded  # a plain scan's path imports it anyway; kept out of the write path

        fd = self.open_file(path)
        with os.fdopen(fd, "rb") as fh:
            return bounded.read_stream(fh, os.fspath(path), setting)

    def open_file(self, path: str | os.PathLike[str]) -> int:
        """A read-only descriptor of a regular file inside the root (the caller closes it), reached as
        `read_bytes` reaches it: no symlink followed anywhere on the way, whenever it was swapped in."""
        target = self.resolve(path)
        with self._parent_fd(target, create=False) as dir_fd:
            try:
                fd = os.open(target.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise OutsideWorkspace(
                        f"{self.relative(target)} changed into a symlink: it was not read.") from None
                raise
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise IsADirectoryError(errno.EISDIR, "not a regular file", target.name)
        return fd

    def mkdir(self, path: str | os.PathLike[str]) -> Path:
        target = self.resolve(path)
        with self._parent_fd(target / "_", create=True):
            pass
        return target

    def remove(self, path: str | os.PathLike[str]) -> bool:
        target = self.resolve(path)
        try:
            with self._parent_fd(target, create=False) as dir_fd:
                os.unlink(target.name, dir_fd=dir_fd)
                with contextlib.suppress(OSError):
                    os.fsync(dir_fd)
        except FileNotFoundError:
            return False
        return True
