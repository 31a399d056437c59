"""sha256 and blake2b without importing hashlib on a CLI start.

`import hashlib` loads OpenSSL (`_hashlib`) to offer every algorithm: about 11 million instructions (~4 ms) of
each `sgtools` run, which only ever needs these two. CPython builds them in (the same modules hashlib falls back
to without OpenSSL), so they are taken from there, and from hashlib where a build lacks them. Same digests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import blake2b as blake2b
    from hashlib import sha256 as sha256
else:
    try:
        from _sha2 import sha256  # Python 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.11
        except ImportError:  # a build without the built-in hashes
            from hashlib import sha256
    try:
        from _blake2 import blake2b
    except ImportError:
        from hashlib import blake2b

__all__ = ["blake2b", "sha256"]
