"""The shapes of the rule services: add_or_update_rule, remove_rule, list_rules, explain_rule (store),
test_rule (testing) and dump_syntax_tree (syntax); each tool's arguments and result."""

from typing import Literal, NotRequired, Required, TypedDict

from sgtools.contracts.common import Examples, RuleErrorDict
from sgtools.contracts.scan import Diagnostic


class AddOrUpdateRuleArgs(TypedDict, total=False):
    rule_id: Required[str]
    rule_yaml: Required[str]
    valid_examples: list[str]
    invalid_examples: list[str]
    force: bool


class Finding(TypedDict):
    """What the rule analyser (sgtools.rules.analysis) reports: a stable code, where in the rule, why, and a
    verified repaired rule YAML when one was found."""

    code: str
    severity: str
    path: str
    message: str
    repair: NotRequired[str]


class TestFailure(TypedDict):
    kind: str
    ruleId: str | None
    code: str


class RuleTestReport(TypedDict):
    """`ast-grep test` on one rule's test file: `summary` says what failed."""

    passed: bool
    summary: str
    failures: list[TestFailure]


class AddOrUpdateRuleResult(TypedDict):
    success: bool
    message: str
    path: str
    created: bool
    testPath: str | None
    testResult: RuleTestReport | None
    warnings: list[str]
    analysis: list[Finding]
    unproven: bool  # saved with force and no invalid example it flags


class RuleIdArgs(TypedDict):
    rule_id: str


class RemoveRuleResult(TypedDict):
    success: bool
    message: str
    removed: list[str]


class ListRulesArgs(TypedDict, total=False):
    language: str


class RuleSummary(TypedDict):
    id: str
    language: str
    severity: str
    message: str | None
    path: str
    hasFix: bool
    hasTests: bool
    unproven: bool  # no invalid case in its test: nothing shows it fires
    analysis: list[Finding]  # what the rule analyser found (nothing when the rule is sound)


class ListRulesResult(TypedDict):
    rules: list[RuleSummary]
    ruleErrors: list[RuleErrorDict]


class RulesArgs(TypedDict, total=False):
    """list_rules' arguments (the MCP tool): `rule_id` asks for one rule's explanation."""

    language: str
    rule_id: str


class ExplainRuleResult(TypedDict):
    id: str
    language: str
    severity: str
    message: str
    note: str | None
    url: str | None
    fix: object  # the rule's `fix` as JSON: a string, or a FixConfig mapping; None without one
    yaml: str
    path: str
    examples: Examples
    source: str
    metadata: object  # the rule's `metadata` mapping as JSON, None without one
    problems: list[str]


class RulesResult(TypedDict, total=False):
    """list_rules' result: the list, or with `rule_id` the one rule explained."""

    rules: list[RuleSummary]
    ruleErrors: list[RuleErrorDict]
    rule: ExplainRuleResult


class TestRuleArgs(TypedDict, total=False):
    rule_yaml: Required[str]
    code: str
    language: str
    valid_examples: list[str]
    invalid_examples: list[str]


class ExampleFailure(TypedDict):
    kind: Literal["valid", "invalid"]
    index: int
    code: str
    lines: list[int]
    reason: str


class ExampleOutcome(TypedDict):
    passed: int
    failed: list[ExampleFailure]


class TestRuleResult(TypedDict):
    success: bool
    errors: list[str]
    matches: list[Diagnostic]
    examples: ExampleOutcome
    hints: list[str]
    warnings: list[str]
    analysis: NotRequired[list[Finding]]  # when the rule compiled: what the analyser found


class DumpSyntaxTreeArgs(TypedDict, total=False):
    code: Required[str]
    language: Required[str]
    format: Literal["cst", "ast", "pattern"]


class SyntaxTreeResult(TypedDict):
    tree: str
    language: str
    format: str
    hints: list[str]

