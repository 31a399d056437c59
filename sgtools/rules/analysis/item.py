"""One rule to analyse, in a module of its own so cache look-ups (`last_findings`, which every scan makes)
do not import the analyser itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Item:
    doc: dict[str, Any]  # plain rule data
    language: str | None  # built-in canonical name; None: not analysed (custom language)
    valid: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
