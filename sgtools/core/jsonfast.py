"""JSON where a dense tree makes it the largest cost: ast-grep's stream of matches in, the JSON report out.

orjson when it is installed (the optional `fast` extra: `pip install 'context-sherpa[fast]'`), else the standard
library, with the same objects in and the same bytes out either way. On 24 MB of engine output (37,569 matches)
orjson decodes in a third of the time of `json.loads` and encodes the report in a fifteenth of `json.dumps`.
Where the two would differ, the standard library answers: orjson refuses NaN, a byte-order mark, lone surrogates,
integers past 64 bits and non-string keys, and those inputs go to `json`.
"""

from __future__ import annotations

import json
from typing import Any

_NOT_LOADED: Any = object()
_orjson: Any = _NOT_LOADED  # the orjson module once asked for; None when it is not installed
# Importing orjson costs about 15 ms (it loads uuid, platform and datetime): more than it saves on a small scan (a
# one-file CLI run parses a few KB). It is imported once this process has read FAST_AFTER bytes with `json`.
FAST_AFTER = 1 << 20
_read = 0


def available() -> bool:
    """Whether orjson is installed."""
    global _orjson
    if _orjson is _NOT_LOADED:
        try:
            import orjson
        except ImportError:  # the extra is optional: the standard library gives the same results, slower
            _orjson = None
        else:
            _orjson = orjson
    return _orjson is not None


def _fast() -> Any:
    """orjson when it is installed and worth its import by now, else None."""
    return _orjson if _read >= FAST_AFTER and available() else None


def loads(line: bytes) -> Any:
    """One JSON document from ast-grep. Its numbers are offsets, lines and columns: orjson, which reads an
    integer past 64 bits as a float, only ever sees ones that fit."""
    global _read
    fast = _fast()
    if fast is None:
        _read += len(line)
    else:
        try:
            return fast.loads(line)
        except fast.JSONDecodeError:
            pass  # the standard library accepts more (NaN, a BOM) or raises its own error: the caller's contract
    return json.loads(line)


def dumps_compact(data: Any) -> str:
    """`json.dumps(data, ensure_ascii=False, separators=(",", ":"))`, byte for byte, for data whose floats are
    confidences (two decimals between 0 and 1): orjson writes floats under 1e-4 in exponent form differently
    (`1e-5`, not `1e-05`), so user data with arbitrary numbers (rule metadata in SARIF) stays with `json`."""
    out = _fast_dumps(data)
    return out.decode("utf-8") if out is not None else json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def dumps_compact_utf8(data: Any, errors: str = "strict") -> bytes:
    """`dumps_compact(data).encode("utf-8", errors)`, without orjson's bytes going through a str of tens of MB
    and back. (orjson refuses lone surrogates, so what `errors` decides only ever reaches the standard library.)"""
    out = _fast_dumps(data)
    if out is not None:
        return out
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8", errors)


def _fast_dumps(data: Any) -> bytes | None:
    fast = _fast()
    if fast is not None:
        try:
            out: bytes = fast.dumps(data)
            return out
        except TypeError:
            pass  # a lone surrogate, an integer past 64 bits, a non-string key: as the standard library writes it
    return None
