"""One suggest_rule call's checked arguments, as the generaliser and the drafted-rule proof both read them."""

from __future__ import annotations

from dataclasses import dataclass

from sgtools.contracts.suggest import FixPair


@dataclass(frozen=True)
class SuggestCall:
    language: str
    file_name: str  # the examples' virtual file name (its extension picks the grammar: .tsx, .cts)
    invalid: list[str]  # with each fix example's `before`
    valid: list[str]
    pairs: list[FixPair]
    request: str | None
    severity: str
    rule_id: str | None  # the caller's, else each rule gets one from its shape
    message: str | None  # the caller's, else each rule gets one from its shape
    count: int  # candidates wanted
    asked: tuple[dict[str, list[str]], str] | None  # the path scope the request asks for and its words (scope.py)

    @property
    def paths(self) -> dict[str, list[str]] | None:
        return self.asked[0] if self.asked else None
