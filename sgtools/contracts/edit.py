"""The shapes of the structural services, find_code and rewrite_code: arguments and results."""

from typing import Required, TypedDict

from sgtools.contracts.common import Position


class FindCodeArgs(TypedDict, total=False):
    pattern: Required[str]
    language: Required[str]
    paths: list[str]
    max_results: int


class CodeMatch(Position):
    file: str
    text: str
    metaVariables: dict[str, str | list[str]]  # $NAME -> its text, $$$NAME -> the texts of its nodes


class FindCodeResult(TypedDict):
    matches: list[CodeMatch]
    truncated: bool
    hints: list[str]


class RewriteCodeArgs(TypedDict, total=False):
    pattern: Required[str]
    rewrite: Required[str]
    language: Required[str]
    paths: list[str]
    apply: bool


class Change(Position):
    file: str
    before: str
    after: str


class SkippedChange(Change):
    reason: str


class RewriteCodeResult(TypedDict):
    diff: str
    changes: list[Change]
    skipped: list[SkippedChange]
    changedFiles: list[str]
    applied: bool
    hints: list[str]


class FindCodeToolArgs(TypedDict, total=False):
    """find_code's arguments (the MCP tool): with `rewrite`, rewrite_code's."""

    pattern: Required[str]
    language: Required[str]
    paths: list[str]
    max_results: int
    rewrite: str
    apply: bool


class FindCodeToolResult(TypedDict, total=False):
    """find_code's result: the matches, or with `rewrite` the diff and changes."""

    matches: list[CodeMatch]
    truncated: bool
    hints: Required[list[str]]
    diff: str
    changes: list[Change]
    skipped: list[SkippedChange]
    changedFiles: list[str]
    applied: bool
