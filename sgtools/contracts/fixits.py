"""The shapes of fix-its (SPEC `Fixit`) and of the apply_fixes service: its arguments and its result."""

from typing import Literal, NotRequired, Required, TypedDict

from sgtools.contracts.common import RuleErrorDict


class Edit(TypedDict):
    """One replacement: 1-based positions for people, byte offsets for tools."""

    file: str | None
    line: int
    column: int
    endLine: int
    endColumn: int
    byteStart: int
    byteEnd: int
    newText: str


class Verification(TypedDict, total=False):
    """What the re-scan of a fix-it found; `checked: false` with a `reason` when it was not re-scanned."""

    checked: Required[bool]
    reason: str
    parseErrorsBefore: int
    parseErrorsAfter: int
    missingBefore: int
    missingAfter: int | None
    missingCheck: str
    stillFires: bool
    newDiagnostics: int


class FixitRef(TypedDict):
    ruleId: str
    line: int
    column: int


class ConfidenceCap(TypedDict):
    value: float
    judged: int
    right: int
    basis: str


class Suppress(TypedDict):
    """The ast-grep-ignore comment that would silence a finding: not a fix-it, never applied by a fix command, to
    be written only on the developer's word. `comment` (indented, without the newline) is inserted as line `line`
    (the code below moves down a line), or, with `replace`, replaces line `line` (an ignore comment there gains
    this rule)."""

    line: int
    comment: str
    replace: NotRequired[bool]


class Fixit(TypedDict):
    """A change that fixes the finding: the rule's own fix (`kind` is always `fix`; a suppression is `suppress`
    on the finding, never a fix-it)."""

    title: str
    kind: Literal["fix"]
    confidence: float
    verified: bool
    edits: list[Edit]
    verification: NotRequired[Verification]
    safety: NotRequired[Literal["safe", "unsafe"]]  # set for every fix-it of a scan (sgtools.fixits.safety)
    conflictsWith: NotRequired[list[FixitRef]]
    # what the fix harness measured for the rule's fixes; `confidence` never exceeds `value` (docs/fixes.md)
    confidenceCap: NotRequired[ConfidenceCap]


class ApplyFixesArgs(TypedDict, total=False):
    paths: list[str]
    rule_ids: list[str]
    apply: bool
    include_unsafe: bool


class SkippedFix(TypedDict):
    ruleId: str | None
    file: str | None
    line: int | None
    column: int | None
    title: str | None
    reason: str


class AppliedFix(TypedDict):
    """One fix in the diff, with what it claims: its safety and confidence."""

    ruleId: str | None
    file: str | None
    line: int | None
    title: str | None
    safety: str
    confidence: float | None


class FixesResult(TypedDict):
    """What applying (or previewing) fixes of already computed diagnostics did; `scan --fix` prints it."""

    diff: str
    changedFiles: list[str]
    fixesApplied: int
    applied: bool
    fixes: list[AppliedFix]
    skipped: list[SkippedFix]


class ApplyFixesResult(FixesResult):
    ruleErrors: list[RuleErrorDict]
