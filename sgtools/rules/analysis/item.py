"""One rule to analyse and its examples, in a module of its own so cache look-ups (`last_findings`, which every
scan makes) do not import the analyser itself."""

# No `from __future__ import annotations`: NamedTuple and TypedDict compile each string annotation, and the first
# builtin compile() of a process sets up the AST types, ~10 million instructions (see core/settings.py).
from typing import Any, NamedTuple, TypedDict


class Examples(TypedDict, total=False):
    valid: list[str]
    invalid: list[str]


class Item(NamedTuple):
    """A NamedTuple (never changed once built; the default lists are never appended to): no module on a CLI
    scan's path imports `dataclasses`."""

    doc: dict[str, Any]  # plain rule data
    language: str | None  # built-in canonical name; None: not analysed (custom language)
    valid: list[str] = []  # noqa: RUF012
    invalid: list[str] = []  # noqa: RUF012
