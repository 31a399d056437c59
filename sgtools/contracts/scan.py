"""The shapes of SPEC Diagnostics and of the scan_code / scan_path services: arguments and results; and the
options of `sgtools scan` (workflows/ci_scan.py)."""

from pathlib import Path
from typing import NotRequired, TypedDict

from sgtools.contracts.common import Position, RuleErrorDict, Severity
from sgtools.contracts.fixits import Fixit, FixitRef, Suppress


class Span(Position):
    byteStart: int
    byteEnd: int


class Label(Span):
    """A related span of a finding (a rule's `labels`), other than the finding itself."""

    message: str | None
    style: str
    text: str | None


class Diagnostic(TypedDict):
    """One finding: 1-based positions, byte offsets, and its fix-its. `file` is None for a snippet without path."""

    ruleId: str
    severity: Severity
    message: str
    note: str | None
    url: str | None
    file: str | None
    line: int
    column: int
    endLine: int
    endColumn: int
    byteStart: int
    byteEnd: int
    text: str
    labels: list[Label]
    fixits: list[Fixit]
    # the ast-grep-ignore comment that would silence it (not a fix: only on the developer's word); absent where
    # no comment can, and in output that never shows it
    suppress: NotRequired[Suppress]
    inTest: NotRequired[bool]  # in test code (scan/testcode.py); always set by scans
    fingerprint: NotRequired[str]  # added by `sgtools scan` for baselines and CI formats


class Counts(TypedDict):
    error: int
    warning: int
    info: int
    hint: int


class OverlayFile(TypedDict):
    """One file of a pending change: its virtual path in the workspace and its whole new content."""

    path: str
    code: str


class ScanCodeArgs(TypedDict, total=False):
    """One snippet (`code`, with `language` and/or `path`), or several files checked together (`files`)."""

    code: str
    files: list[OverlayFile]
    language: str
    path: str
    min_severity: Severity
    max_results: int


class ScanPathArgs(TypedDict, total=False):
    paths: list[str]
    min_severity: Severity
    profile: bool
    rule_ids: list[str]
    max_results: int
    offset: int


class SkippedFile(TypedDict):
    file: str
    why: str  # e.g. "minified", "Code generated ... DO NOT EDIT" (scan/generated.py)


class RuleFinding(TypedDict):
    """A rule analysis finding (sgtools.contracts.rules.Finding) of a rule that ran in a scan, with its rule id."""

    ruleId: str
    code: str
    severity: str
    path: str
    message: str
    repair: NotRequired[str]


class ScanResult(TypedDict):
    """scan_code's result; `success` is true when nothing was found. `counts` cover every finding."""

    success: bool
    issues: list[Diagnostic]
    counts: Counts
    truncated: bool
    ruleErrors: list[RuleErrorDict]
    rulesRun: int  # the rules that ran (0: nothing was checked, and `success` is false)
    noRuleRan: NotRequired[str]  # why no rule ran, when none did
    notes: NotRequired[list[str]]  # why some rules did not run on a snippet
    analysis: NotRequired[list[RuleFinding]]  # the last analysis of the rules that ran, at warning or above
    suppressed: NotRequired[dict[str, int]]  # per rule: findings silenced by an equivalent check's suppression
    generated: NotRequired[dict[str, int]]  # per rule: findings dropped because their file is generated
    skippedGenerated: NotRequired[list[SkippedFile]]  # the generated or bundled files whose findings were dropped
    inTests: NotRequired[dict[str, int]]  # per rule: findings in test code (reported, marked `inTest`)
    skippedInTests: NotRequired[dict[str, int]]  # per rule: findings in tests its `metadata.inTests: skip` dropped


class RuleCost(TypedDict):
    ruleId: str
    language: str
    seconds: float  # the rule alone over the paths, parsing included
    cost: float  # seconds minus its language's parse-only baseline, never below 0
    findings: int


class Profile(TypedDict):
    """Per-rule cost (scan/profile.py): rules sorted by cost, slowest first; `baseline` is each language's
    parse-only run."""

    rules: list[RuleCost]
    baseline: dict[str, float]
    slowest: str | None
    totalCost: float


class FileError(TypedDict):
    file: str
    code: str  # a SPEC error code: "io" (could not be read), "bad-input" (not UTF-8 text)
    message: str  # what happened and what to do


class ScanPathResult(ScanResult):
    nextOffset: int | None  # the offset of the next page, None at the end
    filesChecked: int  # the files ast-grep scanned (a file it could not read is not counted)
    fileErrors: NotRequired[list[FileError]]  # files the walk met but ast-grep could not read (or not as UTF-8)
    profile: NotRequired[Profile]  # with profile=true: what each rule costs


class ScanArgs(TypedDict, total=False):
    """scan_code's arguments (the MCP tool): a snippet (`code` or `files`, with `language` / `path`), or, with
    neither, files on disk (`paths`, `rule_ids`, `offset`, `profile`: the scan_path service)."""

    code: str
    files: list[OverlayFile]
    language: str
    path: str
    paths: list[str]
    rule_ids: list[str]
    offset: int
    profile: bool
    min_severity: Severity
    max_results: int


class ScanAnyResult(ScanResult):
    """scan_code's result: a snippet scan's, or a path scan's with its page and file count."""

    nextOffset: NotRequired[int | None]
    filesChecked: NotRequired[int]
    profile: NotRequired[Profile]


class CiScanOptions(TypedDict):
    """One `sgtools scan`, as its arguments say (paths as given: relative to the current directory, or to the
    root). The CLI builds it as a plain dict: the scan's path imports this module for type checking only."""

    paths: list[str]
    subfolder: Path | None  # where the command ran, when below the root: scanned when no path is given
    min_severity: str | None
    rule_ids: list[str] | None
    fix: bool
    unsafe_fixes: bool
    changed_since: str | None
    baseline: str | None
    write_baseline: str | None
    shard: str | None
    default_excludes: bool | None
    profile: bool
    verify_fixits: bool  # re-scan each fix-it (what SARIF publishes, or asked for)
    with_suppress: bool  # work out each finding's `suppress` comment (output that shows it)
    fingerprints: bool  # hash each finding (output that prints them; a baseline always does)
    rule_metadata: bool  # every runnable rule's id, severity, message... (SARIF's rules array)


class FindingEdit(TypedDict):
    """An edit as an agent applies it: 1-based positions and the new text (`file` only when not the finding's)."""

    line: int
    column: int
    endLine: int
    endColumn: int
    newText: str
    file: NotRequired[str | None]


class FindingFix(TypedDict):
    """A fix-it summarised to what an agent acts on: apply it when `safety` is safe and `verified`; `why` says
    what the re-scan found when it is not verified."""

    title: str
    safety: str
    confidence: float
    verified: bool
    edits: list[FindingEdit]
    why: NotRequired[str]
    conflictsWith: NotRequired[list[FixitRef]]


class FindingLabel(TypedDict):
    line: int
    column: int
    endLine: int
    endColumn: int
    message: NotRequired[str]


class Finding(TypedDict):
    """scan_code's finding: a Diagnostic without what the result says once (the rule's note and url under
    `rules`), without byte offsets, and with fields that would be null, empty or false left out (`fixits`
    stays, empty when the rule has no fix)."""

    ruleId: str
    severity: Severity
    message: str
    line: int
    column: int
    endLine: int
    endColumn: int
    text: str
    file: NotRequired[str | None]
    labels: NotRequired[list[FindingLabel]]
    fixits: list[FindingFix]
    inTest: NotRequired[bool]
    suppress: NotRequired[Suppress]


class RuleFacts(TypedDict, total=False):
    note: str
    url: str


class ScanAnswer(TypedDict):
    """scan_code's result: the findings, and each rule's note and url once."""

    success: bool
    issues: list[Finding]
    rules: dict[str, RuleFacts]
    counts: Counts
    truncated: bool
    ruleErrors: list[RuleErrorDict]
    rulesRun: NotRequired[int]  # the rules that ran (0: nothing was checked, and `success` is false)
    noRuleRan: NotRequired[str]  # why no rule ran, when none did
    notes: NotRequired[list[str]]
    analysis: NotRequired[list[RuleFinding]]
    suppressed: NotRequired[dict[str, int]]
    generated: NotRequired[dict[str, int]]
    skippedGenerated: NotRequired[list[SkippedFile]]
    inTests: NotRequired[dict[str, int]]
    skippedInTests: NotRequired[dict[str, int]]
    nextOffset: NotRequired[int | None]
    filesChecked: NotRequired[int]
    profile: NotRequired[Profile]
