"""The shape of what the rule analyser reports: stable codes, severities and a rule path per finding.

A finding names where in the rule the problem is (`rule.has.pattern`), why in words an agent can act on,
and, when one was found and verified against real ast-grep, a full corrected rule YAML (`repair`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI's scan reads cached findings without loading the TypedDicts (the server's schemas do)
    from sgtools.contracts.rules import Finding

# Severities, worst first. `error` means the rule can never fire (or contradicts its own examples).
ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)

# Stable codes (documented in docs/rule-analysis.md).
PATTERN_NEVER_MATCHES = "pattern-never-matches"  # a pattern does not match code shaped like itself
PATTERN_MISREAD = "pattern-misread"  # a pattern matches its text in one reading but misses it in clean code
UNKNOWN_KIND = "unknown-kind"  # `kind:` names no node kind of the language
UNDEFINED_METAVARIABLE = "undefined-metavariable"  # fix/constraints/transform use a metavariable never bound
EXAMPLE_NOT_MATCHED = "example-not-matched"  # an invalid example is not reported
EXAMPLE_MATCHED = "example-matched"  # a valid example is reported: the rule is too broad
WRONG_LANGUAGE = "wrong-language"  # the rule only works under another grammar (typescript, tsx, cpp...)
FILES_MATCH_NOTHING = "files-match-nothing"  # a `files` glob matches no file of the workspace
IGNORES_EVERYTHING = "ignores-everything"  # `ignores` excludes every file of the language (`files` meant)
TSX_NOT_COVERED = "tsx-not-covered"  # a typescript rule in a workspace with .tsx files
QUADRATIC_SEARCH = "quadratic-search"  # from every match, a search of an ancestor's whole subtree (cost.py)
UNANCHORED_REGEX = "unanchored-regex"  # a regex alternation of words that also matches inside longer words
DEAD_BRANCH = "dead-branch"  # a sub-rule that can never match, inside `not`/`any`
RULE_REFUSED = "rule-refused"  # ast-grep refuses the rule for another reason
NOT_ANALYSED = "not-analysed"  # the analyser could not run (custom language, engine failure)


# The shape itself lives with the rule services' contracts (contracts/rules.py), so the MCP schemas see it without
# this package; import it from there.


def finding(code: str, severity: str, path: str, message: str, repair: str | None = None) -> Finding:
    out: Finding = {"code": code, "severity": severity, "path": path, "message": message}
    if repair is not None:
        out["repair"] = repair
    return out


def never_fires(findings: list[Finding]) -> bool:
    """Whether the findings prove the rule can never fire (or fails its own examples)."""
    return any(f["severity"] == ERROR for f in findings)


def at_least(findings: list[Finding], severity: str) -> list[Finding]:
    rank = SEVERITIES.index(severity)
    return [f for f in findings if SEVERITIES.index(f["severity"]) <= rank]


REFUSAL_CHARS = 600  # of the error messages an answer quotes when it drops a rule the analyser refuses


def refusal(findings: list[Finding]) -> str:
    """The error findings' messages, as one line an answer quotes when it drops the rule for them."""
    return "; ".join(f["message"] for f in at_least(findings, ERROR))[:REFUSAL_CHARS]


def sort_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (SEVERITIES.index(f["severity"]), f["path"], f["code"]))
