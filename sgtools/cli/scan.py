"""`sgtools scan`: the project's rules over files, for CI, pre-commit and people, with an exit code to gate on.

Exit 0: nothing at or above --fail-on. Exit 1: something was. Exit 2: a usage, configuration or engine error,
and also when one of the project's rule files could not be loaded (a broken rule must not let CI pass silently)
unless --allow-rule-errors is given. Diagnostics go to stdout in the chosen format; notes and progress go to stderr.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.cli.common import add_root, engine, workspace
from sgtools.cli.exit_codes import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from sgtools.cli.progress import Progress
from sgtools.contracts.common import SEVERITIES
from sgtools.core.errors import BadInput, SgToolsError
from sgtools.core.gcpause import collector_paused

if TYPE_CHECKING:
    from sgtools.contracts.scan import Diagnostic
    from sgtools.engine.process import Engine
    from sgtools.present.report import Report
    from sgtools.project.workspace import Workspace
    from sgtools.scan.baseline import Baseline
    from sgtools.scan.changes import Changes
    from sgtools.scan.collect import Findings, RuleSource

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


def _use_color() -> bool:
    """NO_COLOR (no-color.org) turns colour off, else FORCE_COLOR (force-color.org: CI logs that render ANSI)
    turns it on, else colour on a terminal only; either variable counts when set and not empty."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


def _files_to_scan(ws: Workspace, eng: Engine, source: RuleSource, paths: list[str] | None) -> int | None:
    """How many files the scan will visit, for the progress line only (never for results): the code files git
    lists (or a walk finds) in a language some enabled rule is for. None when they cannot be counted."""
    from sgtools.project.languages import language_for_path, language_key
    from sgtools.scan import changes
    from sgtools.scan.rulefiles import cached_ruleset

    try:
        cfg = source.config
        wanted = {language_key(r.language, cfg) for r in cached_ruleset(ws, cfg, eng).rules if r.enabled}
        files = changes.candidate_files(ws, paths or [], cfg)
    except (SgToolsError, OSError):
        return None
    return sum(1 for f in files if language_for_path(f, cfg) in wanted)


def _write_file(ws: Workspace, path: Path, text: str) -> None:
    """Atomic and under the write lock: the project's when the file is inside it, else its own directory's."""
    from sgtools.project.workspace import Workspace

    target = (path if path.is_absolute() else Path.cwd() / path).resolve()
    if not target.parent.is_dir():
        raise BadInput(f"The directory of {path} does not exist. Create it, or write the baseline elsewhere.")
    owner = ws if ws.root in target.parents else Workspace(target.parent)
    with owner.lock():
        owner.write_text(target, text)


def _locate(path: str, ws: Workspace) -> Path:
    """A command-line path is relative to the current directory, as shells and pre-commit give it; one that
    only exists relative to the root (the MCP tools' convention) is taken from there."""
    given = Path(path)
    if given.is_absolute():
        return given
    here = Path.cwd() / given
    return here if here.exists() or not (ws.root / given).exists() else ws.root / given


def _select_paths(args: argparse.Namespace, ws: Workspace,
                  source: RuleSource) -> tuple[list[str] | None, Changes | None]:
    """The paths to scan (None = the whole workspace) and the changed lines to keep (None = all of them)."""
    requested = [ws.relative(ws.resolve(_locate(p, ws), must_exist=True)) for p in args.paths]
    if not requested and getattr(args, "subfolder", None) is not None:
        requested = [ws.relative(args.subfolder)]  # run in src/ of a project: scan src/, as ast-grep does
    changed = None
    pool: list[str] | None = requested or None
    if args.changed_since is None and args.shard is None:
        return pool, None
    from sgtools.scan import changes  # git and shards: a plain scan of named files never loads them

    if args.changed_since is not None:
        changed = changes.changed_since(ws, args.changed_since)
        pool = sorted(f for f in changed.files if (ws.root / f).is_file() and changes.is_code(f, source.config)
                      and changes.within(f, requested or ["."]))
    elif args.shard is not None:
        pool = changes.candidate_files(ws, requested, source.config)
    if args.shard is not None and pool is not None:
        k, n = changes.parse_shard(args.shard)
        pool = [f for f in pool if changes.in_shard(f, k, n)]
    return pool, changed


def _fix(ws: Workspace, eng: Engine, paths: list[str] | None, rule_ids: list[str] | None,
         include_unsafe: bool, default_excludes: bool | None) -> dict[str, Any]:
    """`apply_fixes`, once per batch of a long file list (as `collect` scans it), results merged."""
    from sgtools.scan.collect import path_groups
    from sgtools.workflows.apply_fixes import apply_fixes

    merged: dict[str, Any] = {"diff": "", "changedFiles": [], "fixesApplied": 0, "applied": False, "skipped": [],
                              "ruleErrors": []}
    for group in path_groups(eng, paths):
        part = apply_fixes(ws, eng, paths=group, rule_ids=rule_ids, apply=True, include_unsafe=include_unsafe,
                           default_excludes=default_excludes)
        merged["diff"] += part.get("diff") or ""
        merged["changedFiles"] = sorted({*merged["changedFiles"], *(part.get("changedFiles") or [])})
        merged["fixesApplied"] += int(part.get("fixesApplied") or 0)
        merged["applied"] = merged["applied"] or bool(part.get("applied"))
        merged["skipped"] += part.get("skipped") or []
        merged["ruleErrors"] = merged["ruleErrors"] or part.get("ruleErrors") or []
    return merged


def run(args: argparse.Namespace) -> int:
    """The scan with Python's cycle collector paused: a dense tree's findings are a few million small dicts and
    lists, none of them in a reference cycle, and the collector, triggered by their allocation, walked them over
    and over (a third of the CPU time of a scan with 37,569 findings). Reference counting still frees them."""
    with collector_paused():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from sgtools.scan import baseline
    from sgtools.scan.collect import rule_source
    from sgtools.scan.diagnostics import filter_severity

    if args.unsafe_fixes and not args.fix:
        raise BadInput("--unsafe-fixes only makes sense with --fix. Add --fix, or drop --unsafe-fixes.")
    if args.max_results is not None and args.max_results < 1:
        raise BadInput("--max-results must be 1 or more. Leave it out to report every finding.")
    ws = workspace(args)
    eng = engine()
    known = None
    if args.baseline:
        known = baseline.load(Path(args.baseline), args.baseline)  # fail early, before a long scan
    source = rule_source(ws, eng)
    if source.bundled:
        _note(f"no sgconfig.yml: using {source.rule_count} bundled community rules "
              "(run `sgtools init` to set up your own)")
    if args.fix and source.bundled:
        raise BadInput("--fix applies the fixes of this project's own rules, and there is no sgconfig.yml. "
                       "Run `sgtools init` (and import the rules you want), then retry.")
    paths, changed = _select_paths(args, ws, source)
    fixes, found = _scan(args, ws, eng, source, paths)

    diags = _fingerprinted(args, found.issues)
    if args.write_baseline:
        _write_file(ws, Path(args.write_baseline), baseline.dumps(diags))
        _note(f"wrote {len(diags)} finding(s) to the baseline {args.write_baseline}")
        known = baseline.of(diags, args.write_baseline)
    old: list[Diagnostic] = []
    if known is not None:
        diags, old = known.split(diags)
    if changed is not None:
        diags, old = changed.filter(diags), changed.filter(old)
    for err in found.rule_errors:
        _note(f"rule file {err.get('path')} was not used: {err.get('message')}")
    _write_out(_render(args.format, _report(args, ws, eng, source, found, diags, old, known, fixes)))
    if args.summary:
        from sgtools.present import summary

        table = summary.render(summary.rows(diags, found.signal), found.signal)
        if args.format == "text":
            _write_out(table)
        else:  # stdout holds one JSON/SARIF document
            print(table, end="", file=sys.stderr)
    if args.profile:
        from sgtools.scan.profile import merge, render

        print(render(merge(found.profiles)), end="", file=sys.stderr)
    # A broken bundled rule is our packaging bug, which the user cannot fix: it is noted, but never fails CI.
    if found.rule_errors and not (args.allow_rule_errors or source.bundled):
        _note(f"{len(found.rule_errors)} rule file(s) could not be loaded: exit 2 "
              "(fix them, or pass --allow-rule-errors)")
        return EXIT_ERROR
    return EXIT_FINDINGS if filter_severity(diags, args.fail_on) else EXIT_OK


def _fingerprinted(args: argparse.Namespace, issues: list[Diagnostic]) -> list[Diagnostic]:
    """The findings with their fingerprints where something reads them: JSON and SARIF print them, a baseline
    compares them. Text and GitHub output never show them, and hashing every finding of a dense tree costs a
    visible share of the run."""
    from sgtools.scan import baseline

    if args.format in ("json", "sarif") or args.baseline or args.write_baseline:
        return baseline.with_fingerprints(issues)
    return list(issues)


def _scan(args: argparse.Namespace, ws: Workspace, eng: Engine, source: RuleSource,
          paths: list[str] | None) -> tuple[dict[str, Any] | None, Findings]:
    """Apply the fixes when asked, then collect the findings, with progress on a terminal only (never in CI
    logs, pipes or pre-commit output)."""
    from sgtools.scan.collect import collect

    fixes = None
    verify = args.verify_fixits or args.format == "sarif"
    shown = not args.no_progress and sys.stderr.isatty()
    total = _files_to_scan(ws, eng, source, paths) if shown else None
    with contextlib.ExitStack() as stack:
        progress = stack.enter_context(Progress(sys.stderr, eng.settings.progress_delay, total)) if shown else None
        if args.fix and paths != []:
            fixes = _fix(ws, eng, paths, args.rule_ids, args.unsafe_fixes, args.default_excludes)
        found = collect(ws, eng, source, paths=paths, min_severity=args.min_severity, rule_ids=args.rule_ids,
                        # Re-scanning every fix-it costs about one more engine call over the matched files:
                        # paid where fixes are published (SARIF) or asked for, not by a report-only CI gate.
                        verify_fixits=verify, default_excludes=args.default_excludes, profile=args.profile,
                        # Only JSON carries a finding's `suppress` comment (text, GitHub and SARIF show fixes
                        # only: a suppression is no fix).
                        with_suppress=args.format == "json",
                        on_file=progress.file_done if progress is not None else None)
    return fixes, found


def _report(args: argparse.Namespace, ws: Workspace, eng: Engine, source: RuleSource, found: Findings,
            diags: list[Diagnostic], old: list[Diagnostic], known: Baseline | None,
            fixes: dict[str, Any] | None) -> Report:
    from sgtools import __version__
    from sgtools.present.report import Report
    from sgtools.scan.collect import rule_metadata
    from sgtools.scan.diagnostics import counts

    shown = diags if args.max_results is None else diags[: args.max_results]
    return Report(
        diagnostics=shown,
        counts=counts(diags),
        root=ws.root,
        rule_errors=found.rule_errors,
        rules=rule_metadata(ws, eng, source, found.ruleset) if args.format == "sarif" else [],
        baselined=old,
        baseline_file=known.path if known is not None else None,
        fixes=fixes,
        truncated=len(shown) < len(diags),
        color=args.format == "text" and _use_color(),
        pretty=sys.stdout.isatty(),
        config=source.description,
        fixable=not source.bundled,
        tool_version=__version__,
        files_checked=found.files_checked,
        signal=found.signal,
    )


def _write_out(text: str | bytes) -> None:
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


def _render(fmt: str, report: Report) -> str | bytes:
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
