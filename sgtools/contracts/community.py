"""The shapes of the community services: search, details, import, and the sources' status."""

from typing import NotRequired, Required, TypedDict

from sgtools.contracts.common import Examples, SourceStatus
from sgtools.contracts.rules import Finding, RuleTestReport


class SearchCommunityRulesArgs(TypedDict, total=False):
    query: Required[str]
    language: str
    tags: str
    limit: int
    source: str


class CommunityMatch(TypedDict):
    id: str
    score: float
    language: str
    severity: str
    message: str
    description: str
    tags: list[str]
    hasFix: bool
    source: str


class SearchCommunityRulesResult(TypedDict):
    success: bool
    results: str  # the matches as readable text
    matches: list[CommunityMatch]
    warnings: NotRequired[list[str]]


class CommunityRule(TypedDict):
    id: str
    language: str
    severity: str
    message: str
    description: str
    tags: list[str]
    yaml: str
    tests: Examples
    license: str
    source: str
    sha256: str
    hasFix: bool
    path: str


class CommunityRuleDetails(TypedDict):
    success: bool
    details: str  # the rule as readable text
    rule: CommunityRule
    warnings: NotRequired[list[str]]


class ImportCommunityRuleArgs(TypedDict, total=False):
    rule_id: Required[str]
    overwrite: bool
    globs: str


class ImportCommunityRuleResult(TypedDict):
    success: bool
    message: str
    path: str
    testPath: str | None
    source: str
    sha256: str
    license: str
    migrationNotes: list[str]
    testResult: RuleTestReport | None
    analysis: list[Finding]
    warnings: NotRequired[list[str]]


class SkippedRuleFile(TypedDict):
    path: str
    reason: str


class BuildIndexResult(TypedDict):
    """`sgtools community build-index`: where the index went and the rule files left out."""

    success: bool
    message: str
    path: str
    ruleCount: int
    skipped: list[SkippedRuleFile]


class SourcesUpdate(TypedDict):
    success: bool
    message: str
    sources: list[SourceStatus]
    warnings: list[str]
