"""The shape of one match in ast-grep's JSON output (`scan --json`, `run --json`), as ast-grep 0.51 prints it.

Types only: ast-grep's own format, not a SPEC contract (that is `contracts.scan.Diagnostic`, which
scan/diagnostics.py builds from these). Positions are 0-based lines and code-point columns, byte offsets are
UTF-8 and end-exclusive (/work/shared/notes/ast-grep-0.51-behaviour.md, section 1.1). The warm engine
(engine/warm.py) builds the same shape from the language server's answers. Modules import it under
`TYPE_CHECKING` only, so no process pays for it at run time.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict


class Point(TypedDict):
    line: int  # 0-based
    column: int  # 0-based, in Unicode code points


class ByteSpan(TypedDict):
    start: int  # UTF-8 byte offset into the file
    end: int  # exclusive


class MatchRange(TypedDict):
    byteOffset: ByteSpan
    start: Point
    end: Point


class MatchNode(TypedDict):
    """A metavariable's capture (or one node of a `$$$` list, punctuation tokens included)."""

    text: str
    range: MatchRange


class MetaVariables(TypedDict):
    single: dict[str, MatchNode]
    multi: dict[str, list[MatchNode]]  # `secondary` holds relational sub-matches, not a user metavariable
    transformed: dict[str, str]


class MatchLabel(TypedDict):
    """One of `labels`: without a `labels:` key in the rule, a `primary` one over the whole match (no message)
    and `secondary` ones for `has`/`inside` sub-matches; a label's message is not interpolated."""

    text: str
    range: MatchRange
    style: str  # "primary" | "secondary"
    message: NotRequired[str | None]  # the warm engine gives None for a label without one


class CharCount(TypedDict):
    leading: int
    trailing: int


class PatternMatch(TypedDict):
    """A match of `ast-grep run --json` (a pattern, no rule): `replacement` only with `-r`."""

    text: str
    range: MatchRange
    file: str  # as walked or given, relative to the cwd; "STDIN" for --stdin
    lines: NotRequired[str]  # the whole source line(s) holding the match; the warm engine leaves it out
    charCount: NotRequired[CharCount]  # likewise
    language: str  # ast-grep's name: "Python", "Tsx"; a custom language's key as written
    replacement: NotRequired[str]  # only with a fix
    replacementOffsets: NotRequired[ByteSpan]  # only with a fix; apply the fix here, not at `range`
    metaVariables: NotRequired[MetaVariables]  # omitted when the match captured nothing


class AstGrepMatch(PatternMatch):
    """A match of `ast-grep scan --json`: a pattern match plus the rule that made it."""

    ruleId: str
    severity: str  # error | warning | info | hint
    note: str | None  # not interpolated
    message: str  # metavariables interpolated; "" without a message
    labels: list[MatchLabel]
    metadata: NotRequired[dict[str, object]]  # only with --include-metadata
    inTest: NotRequired[bool]  # ours, not ast-grep's: set by scan/signal.py when the match is in test code
