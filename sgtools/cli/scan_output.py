"""`sgtools scan`'s output: the report of a CI scan (workflows/ci_scan.py) rendered in the chosen format and
written to stdout, as bytes where that is what writing the text would give."""

from __future__ import annotations

import argparse
import codecs
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sgtools.present.report import Report
    from sgtools.project.workspace import Workspace
    from sgtools.workflows.ci_scan import CiScan


def use_color() -> bool:
    """NO_COLOR (no-color.org) turns colour off, else FORCE_COLOR (force-color.org: CI logs that render ANSI)
    turns it on, else colour on a terminal only; either variable counts when set and not empty."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


def report(args: argparse.Namespace, ws: Workspace, done: CiScan) -> Report:
    from sgtools import __version__
    from sgtools.cli.voice import speak
    from sgtools.present.report import Report
    from sgtools.scan.diagnostics import counts

    diags = done.diagnostics
    shown = diags if args.max_results is None else diags[: args.max_results]
    return Report(
        diagnostics=shown, counts=counts(diags), root=ws.root, rule_errors=done.findings.rule_errors,
        rules=done.rules, baselined=done.baselined, baseline_file=done.baseline_file, fixes=done.fixes,
        truncated=len(shown) < len(diags), color=args.format == "text" and use_color(), pretty=sys.stdout.isatty(),
        config=done.source.description, fixable=not done.source.bundled, tool_version=__version__,
        files_checked=done.findings.files_checked, signal=done.findings.signal,
        no_rule_ran=None if done.no_rule_ran is None else speak(done.no_rule_ran), rules_run=done.findings.rules_run,
    )


def write_out(text: str | bytes) -> None:
    try:
        if isinstance(text, bytes):  # only when _stdout_bytes() says they are what writing the text would give
            sys.stdout.flush()
            sys.stdout.buffer.write(text)
            sys.stdout.buffer.flush()
            return
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `sgtools scan | head`: the reader left; the exit code still tells the truth
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _stdout_bytes() -> str | None:
    """The error handler to encode with when UTF-8 bytes written under stdout's text layer are exactly what
    writing the text would write (a UTF-8 stream without newline translation), else None (Windows' translated
    newlines, a legacy locale, a StringIO)."""
    out = sys.stdout
    encoding, errors = getattr(out, "encoding", None), getattr(out, "errors", None)
    if (os.linesep == "\n" and hasattr(out, "buffer") and isinstance(encoding, str) and isinstance(errors, str)
            and codecs.lookup(encoding).name == "utf-8"):
        return errors
    return None


def render(fmt: str, report: Report) -> str | bytes:
    if fmt == "json":
        from sgtools.present import json_format

        # A dense tree's report is tens of MB: decoding orjson's bytes to write them encoded again cost ~0.1 s.
        errors = _stdout_bytes()
        return json_format.render(report) if errors is None else json_format.render_utf8(report, errors)
    if fmt == "sarif":
        from sgtools.present import sarif

        return sarif.render(report)
    if fmt == "github":
        from sgtools.present import github

        return github.render(report)
    from sgtools.present import text

    return text.render(report)
