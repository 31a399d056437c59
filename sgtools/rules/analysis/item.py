"""One rule to analyse and its examples, in a module of its own so cache look-ups (`last_findings`, which every
scan makes) do not import the analyser itself."""

# No `from __future__ import annotations`: NamedTuple and TypedDict compile each string annotation, and the first
# builtin compile() of a process sets up the AST types, ~10 million instructions (see core/settings.py).
from typing import Any, TypedDict


class Examples(TypedDict, total=False):
    valid: list[str]
    invalid: list[str]


class Item:
    """A plain class, never changed once built: every scan defines it, and a NamedTuple costs ~1 million
    instructions to define (no module on a CLI scan's path imports `dataclasses`)."""

    __slots__ = ("doc", "invalid", "language", "valid")

    def __init__(self, doc: dict[str, Any], language: str | None, valid: list[str] | None = None,
                 invalid: list[str] | None = None) -> None:
        self.doc = doc  # plain rule data
        self.language = language  # built-in canonical name; None: not analysed (custom language)
        self.valid: list[str] = [] if valid is None else valid
        self.invalid: list[str] = [] if invalid is None else invalid
