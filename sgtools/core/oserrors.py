"""Filesystem faults as SPEC errors: an OSError that reaches an adapter is the environment, not a bug.

A read-only file system, a full disk, no inodes, a file where a directory belongs: each gets a code (`io`,
`bad-input` for a symlink loop, `not-found` for a path that vanished) and a message naming the path and the fix,
instead of `[engine-failed] ... report it`.
"""

from __future__ import annotations

import errno
import os

from sgtools.core.errors import BadInput, IoFailure, NotFound, SgToolsError

_ADVICE: dict[int, str] = {
    errno.EROFS: "the file system is read-only. Remount it read-write, or work on a writable copy of the project",
    errno.ENOSPC: "the disk is full (no space or no inodes left). Free some space, then retry",
    errno.EDQUOT: "the disk quota is exhausted. Free some space or raise the quota, then retry",
    errno.EACCES: "permission denied. Check the owner and permissions of that path, then retry",
    errno.EPERM: "the operation is not permitted there. Check the permissions and attributes of that path",
    errno.ENOTDIR: "a path component is a file where a directory belongs (for example `rules` is a file). "
                   "Rename or remove that file, then retry (`sgtools init` recreates missing directories)",
    errno.EISDIR: "it is a directory where a file belongs (for example `sgconfig.yml` is a directory). "
                  "Rename or remove that directory, then retry",
    errno.EMFILE: "too many open files in this process. Raise the limit (ulimit -n) or retry with fewer paths",
    errno.ENFILE: "too many open files on this system. Retry when the load is lower",
    errno.EIO: "the device reported an I/O error. Check the disk, then retry",
    errno.ENAMETOOLONG: "a file name is too long for this file system. Use a shorter name",
    errno.EFBIG: "the file is larger than this file system or `ulimit -f` allows. Raise the limit or free space",
    errno.ETXTBSY: "the file is busy (being executed). Retry when it is free",
}


def io_error(exc: OSError, action: str = "") -> SgToolsError:
    """The SPEC error for an OSError, e.g. `[io] writing rules/x.yml failed: the disk is full ...`."""
    where = exc.filename if exc.filename is not None else ""
    what = f"{action} {os.fsdecode(where)}".strip() if where else (action or "a file operation")
    if exc.errno == errno.ELOOP:
        return BadInput(f"{what} failed: a symlink loop (a link that points back at itself). Fix or remove the "
                        "link, or leave that path out.")
    if exc.errno == errno.ENOENT:
        return NotFound(f"{what} failed: the path does not exist (it may have been removed meanwhile). Check it, "
                        "then retry.")
    advice = _ADVICE.get(exc.errno or 0)
    if advice is None:
        name = errno.errorcode.get(exc.errno or 0, "an OS error")
        advice = f"{exc.strerror or name} ({name}). Check the path and the file system, then retry"
    return IoFailure(f"{what} failed: {advice}. Nothing was half-written.", errno=errno.errorcode.get(exc.errno or 0))
