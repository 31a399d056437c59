"""A match's metavariable captures, read one way everywhere.

ast-grep leaves `metaVariables` out of a match that captured nothing, and either of its parts may be missing or
null (the warm engine builds the same shape from the language server's answers), so every reader goes through
`captures` rather than chaining `.get`s of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def captures(match: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """(`$NAME` -> its node, `$$$NAME` -> its nodes, punctuation and `secondary` included), empty when none."""
    meta = match.get("metaVariables") or {}
    single = meta.get("single") or {}
    multi = meta.get("multi") or {}
    return ({k: v for k, v in single.items() if isinstance(v, Mapping)},
            {k: v for k, v in multi.items() if isinstance(v, list)})
