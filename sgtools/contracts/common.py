"""Shapes every area's results share: severities, 1-based positions, and a rule file that could not be loaded.

The per-service contracts live beside their services (`contracts/scan.py`, `contracts/rules.py`, ...). These are plain
TypedDicts: the services return JSON-ready dicts, and the MCP schemas are derived from these classes
(`sgtools.server.schemas`), so a field added here is published, and a field a service forgets fails mypy.
"""

from typing import Literal, NotRequired, TypedDict

Severity = Literal["error", "warning", "info", "hint"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info", "hint")  # the highest first
_SEVERITY: dict[str, Severity] = {"error": "error", "warning": "warning", "info": "info", "hint": "hint"}


def severity(value: object) -> Severity:
    """A severity as ast-grep prints it; anything else (ast-grep prints only these four) counts as `hint`."""
    return _SEVERITY.get(str(value), "hint")


class Position(TypedDict):
    line: int
    column: int
    endLine: int
    endColumn: int


class RuleErrorDict(TypedDict):
    """A rule file (or one rule of it) that could not be loaded; the other rules still run."""

    path: str
    ruleId: str | None
    message: str


class Examples(TypedDict):
    """Test cases of a rule: `invalid` code it must match, `valid` code it must not."""

    valid: list[str]
    invalid: list[str]


class SourceStatus(TypedDict):
    """One community source in priority order: `status` is ok, stale or error (then `error` says why)."""

    name: str
    location: str
    kind: str
    ruleCount: int
    status: str
    warning: NotRequired[str]
    error: NotRequired[str]
