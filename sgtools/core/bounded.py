"""Bounded reads: every file or stdin the CLI or a hook reads stops at a cap (a setting) and answers
`[too-large]`, instead of reading `/dev/zero` or an endless pipe until memory runs out.

At most `limit + 1` bytes are read, so the answer comes at once whatever the source: a regular file, a device,
a pipe that never closes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

from sgtools.core.errors import TooLarge
from sgtools.core.settings import env_name, get_settings


def too_large(what: str, setting: str) -> TooLarge:
    limit = getattr(get_settings(), setting)
    return TooLarge(f"{what} is larger than {limit} bytes, the limit. Pass a smaller input, or raise "
                    f"{env_name(setting)} if it is really meant to be that large.")


def read_stream(stream: BinaryIO, what: str, setting: str) -> bytes:
    """At most the `setting` limit of bytes from `stream`; more is `[too-large]` (read no further)."""
    limit = int(getattr(get_settings(), setting))
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = stream.read(min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise too_large(what, setting)
    return b"".join(chunks)


def read_file(path: str | os.PathLike[str], what: str, setting: str) -> bytes:
    """A file's bytes up to the `setting` limit (`[too-large]` past it); OSError as `open` raises it."""
    with Path(path).open("rb") as fh:
        return read_stream(fh, what, setting)


def read_head(path: str | os.PathLike[str], size: int) -> bytes:
    """The first `size` bytes of a file (its start is all that is wanted: a licence header, a config sniff)."""
    with Path(path).open("rb") as fh:
        return fh.read(size)
