"""GitHub Actions workflow commands: one annotation per finding, at every severity (ast-grep drops hints).

Escaping follows @actions/core: in the message `%`, CR and LF are percent-encoded; in property values `:` and
`,` are too, since they separate the properties.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sgtools.contracts.common import SEVERITIES
from sgtools.present.report import Report
from sgtools.present.text import fix_claim

LEVELS = {"error": "error", "warning": "warning", "info": "notice", "hint": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: Any) -> str:
    fields = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{level}{' ' + fields if fields else ''}::{escape_data(message)}"


def annotation(d: Mapping[str, Any]) -> str:
    message = str(d.get("message") or d.get("ruleId") or "")
    if d.get("note"):
        message += "\n\n" + str(d["note"]).strip()
    if d.get("url"):
        message += "\n" + str(d["url"])
    fix = next((f for f in d.get("fixits") or [] if f.get("kind") == "fix"), None)
    if fix is not None:
        message += f"\nFix ({fix_claim(fix)}): {fix.get('title') or 'the rule has a fix'}"
    return command(
        LEVELS.get(str(d.get("severity")), "notice"),
        message,
        file=d.get("file"),
        line=d.get("line"),
        col=d.get("column"),
        endLine=d.get("endLine"),
        endColumn=d.get("endColumn"),
        title=d.get("ruleId"),
    )


def render(report: Report) -> str:
    lines = [annotation(d) for d in report.diagnostics]
    if report.truncated:  # say so: a reviewer must not take the annotations shown for all there are
        total = sum(report.counts[s] for s in SEVERITIES)
        lines.append(command("warning", f"Only the first {len(report.diagnostics)} of {total} findings are "
                             "annotated (--max-results). Raise --max-results or run sgtools scan locally to see "
                             "them all.", title="sgtools: findings not shown"))
    if report.no_rule_ran is not None:
        lines.insert(0, command("error", f"No rule ran, so nothing was checked: {report.no_rule_ran}.",
                                title="sgtools: no rule ran"))
    for err in report.rule_errors:
        lines.append(command("error", str(err.get("message") or "rule error"), file=err.get("path"),
                             title=f"sgtools: rule {err.get('ruleId') or err.get('path')} not loaded"))
    return "".join(line + "\n" for line in lines)
