"""One rule to analyse, in a module of its own so cache look-ups (`last_findings`, which every scan makes)
do not import the analyser itself."""

from __future__ import annotations

from typing import Any, NamedTuple


class Item(NamedTuple):
    """A NamedTuple (never changed once built; the default lists are never appended to): no module on a CLI
    scan's path imports `dataclasses`."""

    doc: dict[str, Any]  # plain rule data
    language: str | None  # built-in canonical name; None: not analysed (custom language)
    valid: list[str] = []  # noqa: RUF012
    invalid: list[str] = []  # noqa: RUF012
