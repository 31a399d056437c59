"""Machine output: the scan_path result shape (issues, counts, truncated, ruleErrors) plus what the CLI added.

Named `json_format` so that it never shadows the standard `json` module for tools that put this folder on a path.
"""

from __future__ import annotations

from typing import Any

from sgtools.core import jsonfast
from sgtools.present.report import Report


def to_dict(report: Report) -> dict[str, Any]:
    return {
        "success": not report.diagnostics and report.no_rule_ran is None,
        **({"noRuleRan": report.no_rule_ran} if report.no_rule_ran is not None else {}),
        "rulesRun": report.rules_run,
        "issues": report.diagnostics,
        "counts": report.counts,
        "truncated": report.truncated,
        "ruleErrors": report.rule_errors,
        "baselined": len(report.baselined),
        "baselineFile": report.baseline_file,
        "fixes": report.fixes,
        "config": report.config,
        "filesChecked": report.files_checked,
        **report.signal,
    }


def render(report: Report) -> str:
    data = to_dict(report)
    if report.pretty:
        return report.dumps(data)
    # Compact (CI, pipes: a dense tree's report is tens of MB): its only floats are fix-it confidences.
    return jsonfast.dumps_compact(data) + "\n"


def render_utf8(report: Report, errors: str = "strict") -> bytes:
    """`render(report).encode("utf-8", errors)`: a large compact report goes from orjson to stdout without
    becoming a str."""
    if report.pretty:
        return render(report).encode("utf-8", errors)
    return jsonfast.dumps_compact_utf8(to_dict(report), errors) + b"\n"
