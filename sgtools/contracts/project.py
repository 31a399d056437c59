"""The shapes of the project services: initialize (sgconfig.yml and folders) and server_info / doctor."""

from typing import NotRequired, TypedDict

from sgtools.contracts.common import RuleErrorDict, SourceStatus


class NoArgs(TypedDict):
    """initialize_ast_grep and server_info take no arguments."""


class InitializeResult(TypedDict):
    success: bool
    message: str
    created: list[str]
    existing: list[str]


class CustomLanguage(TypedDict):
    """A tree-sitter library named by sgconfig.yml's customLanguages: trusted (`sgtools trust`) and loaded?"""

    language: str
    library: str
    path: str
    state: str  # trusted, untrusted, changed or missing
    trusted: bool
    loaded: bool


class DefaultExcludes(TypedDict):
    """What directory walks skip (sgtools.project.excludes) and whether that is on for this project."""

    enabled: bool
    patterns: list[str]


class RuleAnalysisSummary(TypedDict):
    analysed: int
    neverFire: list[str]  # ids of rules that can never fire (`sgtools rule lint` says why)
    withWarnings: list[str]


class EngineInfo(TypedDict):
    """How snippet checks reach ast-grep: `warm` (long-lived `ast-grep lsp` processes, the MCP server's default)
    or `spawn` (one process per call; the CLI, or `SGTOOLS_WARM_ENGINE=0`), and which path served the last one."""

    mode: str
    lastCall: str  # "warm", "spawn" or "none" yet
    lastReason: str | None  # why the last call was not warm
    warmCalls: int
    spawnCalls: int
    warmShare: float | None  # warmCalls / (warmCalls + spawnCalls), None before the first check
    processes: int  # live warm processes
    starts: int
    kills: int  # warm processes killed after a crash, a hang or a protocol error


class ServerInfo(TypedDict):
    version: str
    python: str
    astGrepVersion: str | None
    astGrepBinary: str | None
    root: str
    config: str | None
    ruleCount: int
    ruleErrors: list[RuleErrorDict]
    languages: list[str]
    communitySources: list[SourceStatus]
    readOnly: bool
    customLanguages: list[CustomLanguage]
    defaultExcludes: DefaultExcludes
    problems: list[str]
    engine: EngineInfo
    ruleAnalysis: NotRequired[RuleAnalysisSummary]
    unprovenRules: NotRequired[list[str]]  # loaded rules with no invalid test case: nothing shows they fire
    notes: NotRequired[list[str]]  # what works but deserves a look (a declared folder git dropped)
