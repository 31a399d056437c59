"""The CI pipeline behind `sgtools scan`: which rules run, which files, the fixes first when asked, every
finding, the baseline and the changed lines, in one place. The CLI parses its arguments into a `CiScanOptions`
(contracts/scan.py) and renders the `CiScan` this returns; nothing here knows about output formats or exit codes
(the adapter says what it needs: verified fix-its, `suppress` comments, fingerprints, the rules' metadata).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.core.errors import BadInput
from sgtools.scan.collect import Findings, RuleSource, collect, path_groups, rule_metadata, rule_source

if TYPE_CHECKING:
    from sgtools.contracts.scan import CiScanOptions, Diagnostic
    from sgtools.engine.process import Engine
    from sgtools.project.workspace import Workspace
    from sgtools.scan.baseline import Baseline
    from sgtools.scan.changes import Changes

# Hears of the file count before the scan (None: not known) and gives the callback that hears of each scanned file.
FollowScan = Callable[[int | None], contextlib.AbstractContextManager[Callable[[], None]]]


class CiScan:
    """What one CI scan found and decided (a plain class: no module on a CLI scan's path imports `dataclasses`)."""

    __slots__ = ("baseline_file", "baselined", "diagnostics", "findings", "fixes", "no_rule_ran", "rules", "source")

    def __init__(self, source: RuleSource, findings: Findings, diagnostics: list[Diagnostic],
                 baselined: list[Diagnostic], baseline_file: str | None, fixes: dict[str, Any] | None,
                 rules: list[dict[str, Any]]) -> None:
        self.source = source
        self.findings = findings  # every finding, rule errors, files checked, signal, profiles
        self.diagnostics = diagnostics  # what is new: not in the baseline, on changed lines
        self.baselined = baselined  # what the baseline (or the unchanged lines) hid
        self.baseline_file = baseline_file
        self.fixes = fixes  # the merged apply_fixes result when --fix ran
        self.rules = rules
        # Why no rule ran, when that fails the scan (scan/ran.py): always, except where the files were named
        # (pre-commit's, --changed-since's, a shard's) and the rules simply had none of theirs to check.
        self.no_rule_ran: str | None = None


def ci_scan(ws: Workspace, engine: Engine, options: CiScanOptions, note: Callable[[str], None],
            progress: FollowScan | None = None) -> CiScan:
    """Run the pipeline; `note` hears what a person should know (on stderr), `progress` (a terminal only) follows
    the scan."""
    from sgtools.scan import baseline

    known = None
    if options["baseline"]:
        known = baseline.load(Path(options["baseline"]), options["baseline"])  # fail early, before a long scan
    source = rule_source(ws, engine)
    if source.bundled:
        note(f"no sgconfig.yml: using {source.rule_count} bundled community rules "
             "(run `sgtools init` to set up your own)")
    if options["fix"] and source.bundled:
        raise BadInput("--fix applies the fixes of this project's own rules, and there is no sgconfig.yml. "
                       "Run `sgtools init` (and import the rules you want), then retry.")
    paths, changed = _select_paths(options, ws, source)
    fixes, found = _scan(options, ws, engine, source, paths, progress)

    fingerprinted = options["fingerprints"] or options["baseline"] or options["write_baseline"]
    diags = baseline.with_fingerprints(found.issues) if fingerprinted else list(found.issues)
    if options["write_baseline"]:
        _write_file(ws, Path(options["write_baseline"]), baseline.dumps(diags))
        note(f"wrote {len(diags)} finding(s) to the baseline {options['write_baseline']}")
        known = baseline.of(diags, options["write_baseline"])
    done = _kept(ws, engine, options, source, found, diags, known, changed, fixes, note)
    for text in found.notes:
        note(text)
    if found.no_rule_ran and (paths is None or not found.rules_loaded):
        done.no_rule_ran = found.no_rule_ran
    return done


def _kept(ws: Workspace, engine: Engine, options: CiScanOptions, source: RuleSource, found: Findings,
          diags: list[Diagnostic], known: Baseline | None, changed: Changes | None, fixes: dict[str, Any] | None,
          note: Callable[[str], None]) -> CiScan:
    """The findings the baseline and the changed lines keep, and the ones they hide."""
    old: list[Diagnostic] = []
    if known is not None:
        diags, old = known.split(diags)
    if changed is not None:
        diags, old = changed.filter(diags), changed.filter(old)
    for err in found.rule_errors:
        note(f"rule file {err.get('path')} was not used: {err.get('message')}")
    rules = rule_metadata(ws, engine, source, found.ruleset) if options["rule_metadata"] else []
    return CiScan(source, found, diags, old, known.path if known is not None else None, fixes, rules)


def _files_to_scan(ws: Workspace, eng: Engine, source: RuleSource, paths: list[str] | None) -> int | None:
    """How many files the scan will visit, for the progress line only (never for results): the code files git
    lists (or a walk finds) in a language some enabled rule is for. None when they cannot be counted."""
    from sgtools.core.errors import SgToolsError
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


def _select_paths(options: CiScanOptions, ws: Workspace,
                  source: RuleSource) -> tuple[list[str] | None, Changes | None]:
    """The paths to scan (None = the whole workspace) and the changed lines to keep (None = all of them)."""
    requested = [ws.relative(ws.resolve(_locate(p, ws), must_exist=True)) for p in options["paths"]]
    if not requested and options["subfolder"] is not None:
        requested = [ws.relative(options["subfolder"])]  # run in src/ of a project: scan src/, as ast-grep does
    changed = None
    pool: list[str] | None = requested or None
    if options["changed_since"] is None and options["shard"] is None:
        return pool, None
    from sgtools.scan import changes  # git and shards: a plain scan of named files never loads them

    if options["changed_since"] is not None:
        changed = changes.changed_since(ws, options["changed_since"])
        pool = sorted(f for f in changed.files if (ws.root / f).is_file() and changes.is_code(f, source.config)
                      and changes.within(f, requested or ["."]))
    elif options["shard"] is not None:
        pool = changes.candidate_files(ws, requested, source.config)
    if options["shard"] is not None and pool is not None:
        k, n = changes.parse_shard(options["shard"])
        pool = [f for f in pool if changes.in_shard(f, k, n)]
    return pool, changed


def _fix(ws: Workspace, eng: Engine, paths: list[str] | None, options: CiScanOptions) -> dict[str, Any]:
    """`apply_fixes`, once per batch of a long file list (as `collect` scans it), results merged."""
    from sgtools.workflows.apply_fixes import apply_fixes

    merged: dict[str, Any] = {"diff": "", "changedFiles": [], "fixesApplied": 0, "applied": False, "fixes": [],
                              "skipped": [], "ruleErrors": []}
    for group in path_groups(eng, paths):
        part = apply_fixes(ws, eng, paths=group, rule_ids=options["rule_ids"], apply=True,
                           include_unsafe=options["unsafe_fixes"], default_excludes=options["default_excludes"])
        merged["diff"] += part.get("diff") or ""
        merged["changedFiles"] = sorted({*merged["changedFiles"], *(part.get("changedFiles") or [])})
        merged["fixesApplied"] += int(part.get("fixesApplied") or 0)
        merged["applied"] = merged["applied"] or bool(part.get("applied"))
        merged["fixes"] += part.get("fixes") or []
        merged["skipped"] += part.get("skipped") or []
        merged["ruleErrors"] = merged["ruleErrors"] or part.get("ruleErrors") or []
    return merged


def _scan(options: CiScanOptions, ws: Workspace, eng: Engine, source: RuleSource, paths: list[str] | None,
          progress: FollowScan | None) -> tuple[dict[str, Any] | None, Findings]:
    """Apply the fixes when asked, then collect the findings, with `progress` following both."""
    fixes = None
    with contextlib.ExitStack() as stack:
        on_file = stack.enter_context(progress(_files_to_scan(ws, eng, source, paths))) if progress else None
        if options["fix"] and paths != []:
            fixes = _fix(ws, eng, paths, options)
        found = collect(ws, eng, source, paths=paths, min_severity=options["min_severity"],
                        rule_ids=options["rule_ids"], verify_fixits=options["verify_fixits"],
                        default_excludes=options["default_excludes"], profile=options["profile"],
                        with_suppress=options["with_suppress"], on_file=on_file)
    return fixes, found
