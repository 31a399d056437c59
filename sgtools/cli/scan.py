"""`sgtools scan`: the project's rules over files, for CI, pre-commit and people, with an exit code to gate on.

Exit 0: nothing at or above --fail-on. Exit 1: something was. Exit 2: a usage, configuration or engine error,
and also when one of the project's rule files could not be loaded (a broken rule must not let CI pass silently)
unless --allow-rule-errors is given. Diagnostics go to stdout in the chosen format; notes and progress go to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING, Any

from sgtools.cli.common import add_root, engine, workspace
from sgtools.cli.exit_codes import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from sgtools.cli.progress import Progress
from sgtools.cli.scan_output import render, report, write_out
from sgtools.contracts.common import SEVERITIES
from sgtools.core.errors import BadInput
from sgtools.core.gcpause import collector_paused

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from sgtools.contracts.scan import CiScanOptions

FORMATS = ("text", "json", "sarif", "github")


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser(
        "scan",
        help="check files against the project's rules (CI, pre-commit)",
        description="Scan PATHS (default: the whole workspace) with the rules of sgconfig.yml, or with the bundled "
        "community rules when there is none. Exit 0 when nothing at or above --fail-on was found, 1 when "
        "something was, 2 on a usage, configuration or engine error, or a rule file that cannot be loaded.",
    )
    p.add_argument("paths", nargs="*", metavar="PATHS",
                   help="files or directories (relative to the current directory, or to the root)")
    add_root(p)
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--json", action="store_const", const="json", dest="format", help="same as --format json")
    p.add_argument("--fail-on", choices=SEVERITIES, default="error",
                   help="lowest severity that makes the exit code 1 (default: error)")
    p.add_argument("--min-severity", choices=SEVERITIES, help="report nothing below this severity")
    p.add_argument("--rule", action="append", dest="rule_ids", metavar="ID", help="run only this rule (repeatable)")
    p.add_argument("--max-results", type=int, metavar="N",
                   help="show at most N findings (default: all); the exit code still counts every finding")
    p.add_argument("--fix", action="store_true",
                   help="apply verified safe fixes first, then report what remains (unverified fixes never)")
    p.add_argument("--unsafe-fixes", action="store_true",
                   help="with --fix, also apply verified fixes that the rule declares unsafe (may change behaviour)")
    p.add_argument("--changed-since", metavar="REF", help="only files and lines changed since the git revision REF")
    p.add_argument("--baseline", metavar="FILE", help="report only findings that are not in this baseline file")
    p.add_argument("--write-baseline", metavar="FILE",
                   help="record every current finding in FILE (then they count as known: exit 0)")
    p.add_argument("--shard", metavar="K/N", help="scan only the K-th of N deterministic slices of the files")
    p.add_argument("--allow-rule-errors", action="store_true",
                   help="do not exit 2 when a rule file cannot be loaded (it is still reported on stderr)")
    p.add_argument("--no-default-excludes", action="store_false", dest="default_excludes", default=None,
                   help="also scan node_modules, vendor, third_party, virtualenvs, build, dist and minified bundles "
                   "(skipped by default; `sgtools doctor` lists them)")
    p.add_argument("--profile", action="store_true",
                   help="after the report, print on stderr what each rule costs, slowest first (runs each rule "
                   "alone once more)")
    p.add_argument("--summary", action="store_true",
                   help="after the report, print per rule: findings, suppressed by other linters' comments, "
                   "in tests, skipped in tests, skipped as generated")
    p.add_argument("--no-progress", action="store_true", help="never show progress on stderr")
    p.add_argument("--verify-fixits", action="store_true",
                   help="re-scan each fix-it to mark it verified (always on for --format sarif)")
    p.set_defaults(func=run)


def _note(text: str) -> None:
    from sgtools.cli.voice import speak

    print(f"sgtools: {speak(text)}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """The scan with Python's cycle collector paused: a dense tree's findings are a few million small dicts and
    lists, none of them in a reference cycle, and the collector, triggered by their allocation, walked them over
    and over (a third of the CPU time of a scan with 37,569 findings). Reference counting still frees them."""
    with collector_paused():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from sgtools.scan.diagnostics import filter_severity
    from sgtools.workflows.ci_scan import ci_scan

    if args.unsafe_fixes and not args.fix:
        raise BadInput("--unsafe-fixes only makes sense with --fix. Add --fix, or drop --unsafe-fixes.")
    if args.max_results is not None and args.max_results < 1:
        raise BadInput("--max-results must be 1 or more. Leave it out to report every finding.")
    ws = workspace(args)
    eng = engine()
    verify = args.verify_fixits or args.format == "sarif"
    # Re-scanning every fix-it costs about one more engine call over the matched files: paid where fixes are
    # published (SARIF) or asked for, not by a report-only CI gate. Only JSON carries a finding's `suppress`
    # comment (a suppression is no fix); text and GitHub output no fingerprint (hashing every finding of a
    # dense tree is a visible cost).
    options: CiScanOptions = {
        "paths": args.paths, "subfolder": getattr(args, "subfolder", None), "min_severity": args.min_severity,
        "rule_ids": args.rule_ids, "fix": args.fix, "unsafe_fixes": args.unsafe_fixes,
        "changed_since": args.changed_since, "baseline": args.baseline, "write_baseline": args.write_baseline,
        "shard": args.shard, "default_excludes": args.default_excludes, "profile": args.profile,
        "verify_fixits": verify, "with_suppress": args.format == "json",
        "fingerprints": args.format in ("json", "sarif"), "rule_metadata": args.format == "sarif"}
    # Progress on a terminal only (never in CI logs, pipes or pre-commit output).
    shown = not args.no_progress and sys.stderr.isatty()
    done = ci_scan(ws, eng, options, _note, _progress(eng.settings.progress_delay) if shown else None)
    write_out(render(args.format, report(args, ws, done)))
    if args.summary:
        from sgtools.present import summary

        table = summary.render(summary.rows(done.diagnostics, done.findings.signal), done.findings.signal)
        if args.format == "text":
            write_out(table)
        else:  # stdout holds one JSON/SARIF document
            print(table, end="", file=sys.stderr)
    if args.profile:
        from sgtools.scan import profile

        print(profile.render(profile.merge(done.findings.profiles)), end="", file=sys.stderr)
    if done.no_rule_ran is not None:  # whatever --allow-rule-errors says: a scan that checked nothing fails CI
        _note(f"no rule ran: {done.no_rule_ran}: exit 2")
        return EXIT_ERROR
    # A broken bundled rule is our packaging bug, which the user cannot fix: it is noted, but never fails CI.
    errors = done.findings.rule_errors
    if errors and not (args.allow_rule_errors or done.source.bundled):
        _note(f"{len(errors)} rule file(s) could not be loaded: exit 2 (fix them, or pass --allow-rule-errors)")
        return EXIT_ERROR
    return EXIT_FINDINGS if filter_severity(done.diagnostics, args.fail_on) else EXIT_OK


def _progress(delay: float) -> Callable[[int | None], contextlib.AbstractContextManager[Callable[[], None]]]:
    @contextlib.contextmanager
    def follow(total: int | None) -> Iterator[Callable[[], None]]:
        with Progress(sys.stderr, delay, total) as progress:
            yield progress.file_done

    return follow
