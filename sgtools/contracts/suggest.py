"""The suggest_rule contract: its arguments and its result (the MCP schemas are derived from these)."""

from typing import NotRequired, Required, TypedDict

from sgtools.contracts.rules import Finding


class FixPair(TypedDict):
    """Code before and after the fix: a `fix` template is inferred from the pairs and verified."""

    before: str
    after: str


class Checked(TypedDict):
    invalid: list[str]
    valid: list[str]


class SuggestArgs(TypedDict, total=False):
    language: Required[str]
    invalid_examples: Required[list[str]]
    valid_examples: list[str]
    path: str
    message: str
    severity: str
    rule_id: str
    fix_examples: list[FixPair]
    max_candidates: int


class SuggestedRule(TypedDict):
    yaml: str
    rule_id: str
    why: str
    checked: Checked
    form: str
    analysis: list[Finding]  # the rule analyser's findings (none is an error: those candidates are dropped)
    fix: NotRequired[str]
    fixChecked: NotRequired[list[FixPair]]


class SuggestResult(TypedDict):
    success: bool
    candidates: list[SuggestedRule]
    explanation: NotRequired[str]
    warnings: list[str]
