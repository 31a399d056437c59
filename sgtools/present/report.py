"""What every renderer gets: the diagnostics of one `sgtools scan` plus the context they are reported in.

The renderers are pure functions of a `Report`, so they can be tested on hand-built diagnostics and the CLI,
the pre-commit hook and the agent hook all print findings the same way.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sgtools.contracts.common import SEVERITIES, RuleErrorDict

if TYPE_CHECKING:
    from sgtools.contracts.scan import Counts, Diagnostic
else:  # what the fields below hold at run time: the CLI's scan never loads contracts/scan.py's TypedDicts
    Counts = Diagnostic = dict

__all__ = ["SEVERITIES", "Report"]


class Report(NamedTuple):
    """A NamedTuple, built once per scan and never changed (the default lists are never appended to): no module
    on a CLI scan's path imports `dataclasses` (tests/test_scan_startup.py)."""

    # SPEC Diagnostics, already filtered and sorted by (file, byteStart, ruleId); the CLI adds a `fingerprint`
    # key (see sgtools.scan.baseline) that SARIF and JSON pass on.
    diagnostics: list[Diagnostic]
    counts: Counts
    root: Path  # the workspace root: files in diagnostics are relative to it
    rule_errors: list[RuleErrorDict] = []  # noqa: RUF012
    # Rule metadata for SARIF's rules array: id, severity, message, note, url, language. Rules that produced
    # findings but are missing here are derived from their diagnostics.
    rules: list[dict[str, Any]] = []  # noqa: RUF012
    baselined: list[Diagnostic] = []  # noqa: RUF012  # findings hidden by --baseline
    baseline_file: str | None = None
    fixes: dict[str, Any] | None = None  # the apply_fixes result when --fix ran
    truncated: bool = False
    color: bool = False
    # Indented JSON / SARIF for a person at a terminal; compact otherwise: json's C encoder only runs without
    # `indent`, and on a large tree the pure-Python indenting encoder costs as much as ast-grep's own scan.
    pretty: bool = True
    config: str | None = None  # which rules ran: a path, or a note such as "bundled community rules"
    fixable: bool = True  # whether `sgtools scan --fix` can apply the fixes (not for bundled rules)
    tool_version: str = ""
    files_checked: int | None = None  # files ast-grep scanned (None: not known, e.g. a hand-built report)
    signal: dict[str, Any] = {}  # noqa: RUF012  # what the scan left out or marked (scan/signal.py)
    # Why no rule ran, when none did: the scan checked nothing and is not a success (exit 2, scan/ran.py).
    no_rule_ran: str | None = None
    rules_run: int | None = None  # how many rules ran (None: not known, e.g. a hand-built report)

    def dumps(self, data: Any) -> str:
        if self.pretty:
            return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"

    def files(self) -> list[str]:
        seen: dict[str, None] = {}
        for d in self.diagnostics:
            seen.setdefault(str(d.get("file") or ""), None)
        return list(seen)
