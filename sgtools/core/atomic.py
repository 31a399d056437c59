"""Whole-file replacement, the one way files are written: readers see the old bytes or the new ones, never a
mix, and no temp file is left behind, whether the write succeeds or fails."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

_NAME_KEEP = 200  # of the target's name in the temp file's name: NAME_MAX is 255 bytes


def write_atomic(path: Path, data: bytes, *, durable: bool = False, dir_fd: int | None = None,
                 mode: int = 0o600) -> None:
    """Write `data` to a temp file beside `path`, then rename it over `path`.

    `durable` also fsyncs the file and its directory, for state that must survive a power cut (user files,
    trust decisions); caches skip it, since losing one only costs a recomputation. With `dir_fd`, `path` is a
    bare name inside that open directory: a confined write (see `Workspace.write_bytes`) that no symlink
    swapped in on the way can redirect. `mode` is the new file's permission bits.
    """
    with _directory(path, dir_fd) as fd:
        name = path.name
        tmp = f".{name[:_NAME_KEEP]}.{os.urandom(6).hex()}.tmp"
        handle = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=fd)
        try:
            with os.fdopen(handle, "wb") as fh:
                fh.write(data)
                fh.flush()
                if mode != 0o600:
                    os.fchmod(fh.fileno(), mode)
                if durable:
                    os.fsync(fh.fileno())
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            raise
        if durable:
            with contextlib.suppress(OSError):
                os.fsync(fd)


@contextlib.contextmanager
def _directory(path: Path, dir_fd: int | None) -> Iterator[int]:
    """The descriptor writes happen through: the caller's, or `path`'s parent opened for the call."""
    if dir_fd is not None:
        yield dir_fd
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)
