"""`scan_path`: scan files and directories of the workspace as `ast-grep scan` does, one page at a time."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from sgtools.core.errors import BadInput, NotFound, SgToolsError
from sgtools.engine.process import Engine, ScanWatch
from sgtools.fixits.build import mark_unchecked
from sgtools.project import excludes
from sgtools.project.config import ProjectConfig, load_config, missing_folders_note
from sgtools.project.confine import confined_matches, dropped_note, engine_paths, within
from sgtools.project.languages import file_name_for, language_for_path, language_key
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis.report import scan_analysis
from sgtools.rules.ruleset import Rule, RuleSet, rule_applies
from sgtools.scan import ran
from sgtools.scan.diagnostics import (
    check_severity,
    counts,
    filter_severity,
    result_limit,
    to_diagnostics,
)
from sgtools.scan.rulefiles import cached_ruleset, missing_counter, rule_file, scan_config, scan_rules_file
from sgtools.scan.signal import Signal

if TYPE_CHECKING:  # shapes only: the CLI's scan never loads contracts/scan.py (the server's schemas do)
    from typing_extensions import Unpack

    from sgtools.contracts.scan import Diagnostic, FileError, ScanPathArgs, ScanPathResult
    from sgtools.engine.match import AstGrepMatch


class PathScan:
    """How an internal caller runs `scan_path` (the MCP tool never passes one; a plain class: a CLI scan's path
    imports no `dataclasses`). `config` replaces the workspace's sgconfig.yml (e.g. the bundled rules).
    `verify_fixits=False` skips the re-scan of fix-its (a CI gate that only reports does not need it). `watch`
    hears of each file as ast-grep scans it. `default_excludes` (None: as sgconfig.yml says, else on) leaves
    dependency and build folders and minified bundles out of directory walks (project/excludes.py).
    `every_finding` returns all findings on one page, so one engine pass serves them all (CI collection).
    `with_suppress=False` (the CLI's text output, which never shows them) works out no finding's `suppress`
    comment. `ruleset` (callers that scan in several calls: CI batches, apply_fixes' pages) pins the rules loaded
    once for all of them."""

    __slots__ = ("config", "default_excludes", "every_finding", "ruleset", "verify_fixits", "watch", "with_suppress")

    def __init__(self, *, config: ProjectConfig | None = None, verify_fixits: bool = True,
                 watch: ScanWatch | None = None, default_excludes: bool | None = None, every_finding: bool = False,
                 with_suppress: bool = True, ruleset: RuleSet | None = None) -> None:
        self.config = config
        self.verify_fixits = verify_fixits
        self.watch = watch
        self.default_excludes = default_excludes
        self.every_finding = every_finding
        self.with_suppress = with_suppress
        self.ruleset = ruleset


TOOL_ARGS = frozenset({"paths", "min_severity", "rule_ids", "max_results", "offset", "profile"})  # ScanPathArgs
DEFAULT = PathScan()


def scan_path(ws: Workspace, engine: Engine, options: PathScan = DEFAULT,
              **args: Unpack[ScanPathArgs]) -> ScanPathResult:
    """Scan files and directories of the workspace (default: all of it) as `ast-grep scan` does, with
    `.gitignore` and rule globs honoured; broken rule files are skipped and named in `ruleErrors`.
    Results are sorted; `offset`/`nextOffset` page through them; `counts` cover every finding.
    `filesChecked` is how many files ast-grep scanned. `profile` adds what each rule costs (scan/profile.py: one
    more ast-grep call per rule). `args` are the MCP tool's arguments, `options` an internal caller's (PathScan).

    One rule set per scan: ast-grep gets exactly the rules loaded here (a private, content-addressed rule file,
    never the rule directories it would re-read), so a finding's message, severity, fix, url, safety and
    verification all come from one version of its rule, however the files change meanwhile."""
    _check_tool_args(args)
    paths, min_severity, rule_ids = args.get("paths"), args.get("min_severity"), args.get("rule_ids")
    max_results, offset = args.get("max_results"), args.get("offset", 0)
    level = check_severity(min_severity)
    watch = options.watch if options.watch is not None else ScanWatch()
    limit = result_limit(max_results, ws.settings)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise BadInput(f"offset must be a non-negative integer, not {offset!r}.")
    if isinstance(paths, str):
        paths = [paths]
    cfg = options.config if options.config is not None else load_config(ws)
    targets, asked = _targets(ws, paths)
    ruleset = options.ruleset if options.ruleset is not None else cached_ruleset(ws, cfg, engine)
    rules = _chosen_rules(ruleset, rule_ids)
    if not rules:  # checked nothing: never a success (an unknown rule id was refused above)
        return _nothing_to_run(ws, cfg, ruleset)
    extra = excludes.glob_args(excludes.enabled(cfg, options.default_excludes)) + excludes.dialect_args(cfg)
    rules_path = scan_rules_file(rules)
    raw, moved = confined_matches(ws, _run(ws, engine, cfg, targets, rules_path, watch, extra))
    raw = within(raw, asked)
    by_id = {r.id: r for r in rules}
    signal = Signal.for_config(cfg)
    files = _Files(ws)  # each matched file read once, for the signal pass and for fix-its alike
    raw = signal.refine(raw, by_id, files.text)
    if options.every_finding:
        limit = max(limit, len(raw))  # severity filtering only removes findings: all of them fit
    diags, page, by_rel = _page(files, raw, by_id, level, offset, limit, options.with_suppress)
    more = offset + limit < len(diags)
    if options.verify_fixits:
        verify_files(ws, engine, cfg, rules, page, by_rel)
    else:
        mark_unchecked(page, "verification not requested")
    result: ScanPathResult = {"success": not diags, "issues": page, "counts": counts(diags), "truncated": more,
                              "nextOffset": offset + len(page) if more else None, "ruleErrors": ruleset.error_dicts(),
                              "filesChecked": watch.files, "rulesRun": len(rules)}
    _say_what_ran(ws, cfg, result, targets, rules)
    result.update(signal.report())  # type: ignore[typeddict-item]
    _note_rule_set_change(result, ws, cfg, targets, (level, tuple(sorted(r.id for r in rules))), offset, rules_path)
    _note_unread(result, ws, cfg, targets, watch, moved)
    if args.get("profile"):
        from sgtools.scan.profile import profile_rules

        result["profile"] = profile_rules(ws, engine, cfg, targets, rules, extra)
    analysis = scan_analysis(engine, rules, cfg.path)
    if analysis:  # rules that can never fire (from their last analysis) say so next to ruleErrors
        result["analysis"] = analysis
    return result


def _check_tool_args(args: ScanPathArgs) -> None:
    """Refuse a keyword that is not the tool's, as Python would for a named parameter: an internal switch passed
    the old way (`verify_fixits=False`) must not be silently ignored."""
    unknown = sorted(set(args) - TOOL_ARGS)
    if unknown:
        raise TypeError(f"scan_path() got unexpected keyword argument(s) {', '.join(unknown)}")


def tool_args(paths: Sequence[str] | None = None, min_severity: str | None = None,
              rule_ids: Sequence[str] | None = None, max_results: int | None = None, offset: int = 0,
              profile: bool = False) -> ScanPathArgs:
    """The tool's arguments of an internal caller, as `scan_path(..., **tool_args(...))` takes them: the ones
    left at None are left out (the tool's arguments are absent, never null)."""
    given = {"paths": list(paths) if paths is not None else None, "min_severity": min_severity,
             "rule_ids": list(rule_ids) if rule_ids is not None else None, "max_results": max_results,
             "offset": offset, "profile": profile}
    return cast("ScanPathArgs", {k: v for k, v in given.items() if v is not None})


def _nothing_to_run(ws: Workspace, cfg: ProjectConfig, ruleset: RuleSet) -> ScanPathResult:
    empty: ScanPathResult = {"success": False, "issues": [], "counts": counts([]), "truncated": False,
                             "nextOffset": None, "ruleErrors": ruleset.error_dicts(), "filesChecked": 0,
                             "rulesRun": 0, "noRuleRan": ran.nothing_loaded(ws, cfg, ruleset)}
    missing = missing_folders_note(cfg)
    if missing is not None:
        empty["notes"] = [missing]
    return empty


def _say_what_ran(ws: Workspace, cfg: ProjectConfig, result: ScanPathResult, targets: Sequence[Path],
                  rules: Sequence[Rule]) -> None:
    """No file checked means no rule ran: not a success. A declared folder that is missing is said once."""
    if not result["filesChecked"]:
        result.update({"success": False, "rulesRun": 0,
                       "noRuleRan": ran.no_file_checked([ws.relative(t) for t in targets if t != ws.root], rules)})
    missing = missing_folders_note(cfg)
    if missing is not None:
        result["notes"] = [missing]


def _chosen_rules(ruleset: RuleSet, rule_ids: Sequence[str] | None) -> list[Rule]:
    """The enabled rules, only those named in `rule_ids` when given; an unknown id is an error saying why."""
    rules = [r for r in ruleset.rules if r.enabled]
    if not rule_ids:
        return rules
    wanted = [str(i) for i in ([rule_ids] if isinstance(rule_ids, str) else rule_ids)]
    known = {r.id for r in rules}
    unknown = [i for i in wanted if i not in known]
    if unknown:
        broken = {e.ruleId for e in ruleset.errors if e.ruleId}
        why = [f"{i} ({'its rule file is broken, see ruleErrors' if i in broken else 'no such enabled rule'})"
               for i in unknown]
        raise NotFound(f"Rule id(s) not found: {', '.join(why)}. Run list_rules to see the rule ids.")
    chosen = set(wanted)
    return [r for r in rules if r.id in chosen]


def _targets(ws: Workspace, paths: Sequence[str] | None) -> tuple[list[Path], list[str] | None]:
    """The outermost paths to scan, and the paths asked for when a name that is not UTF-8 had to be widened to
    its folder (confine.engine_paths: ast-grep panics on such an argument), else None."""
    targets = _outermost([ws.resolve(p, must_exist=True) for p in paths] if paths else [ws.root])
    widened, asked = engine_paths([ws.relative(t) for t in targets])
    if asked is not None:
        targets = _outermost([ws.root / w for w in widened])
    return targets, asked


def _run(ws: Workspace, engine: Engine, cfg: ProjectConfig, targets: Sequence[Path],
         rules_path: Path, watch: ScanWatch, extra: Sequence[str] = ()) -> list[AstGrepMatch]:
    """ast-grep's matches for `targets` under the rule file `rules_path`, each `file` workspace-relative."""
    cwd = cfg.root if all(cfg.relative(t) is not None for t in targets) else ws.root
    args = [os.path.relpath(t, cwd) for t in targets]
    deadline = engine.settings.path_scan_timeout
    # Only the loaded rules, with their globs: ast-grep matches globs of a `-r` file outside the project
    # against the path relative to the cwd, which is the sgconfig directory here.
    raw = engine.scan(config=scan_config(cfg), cwd=cwd, rule_file=rules_path, paths=args, extra=extra,
                      timeout=deadline,
                      watch=watch)
    _relative_files(ws, cwd, raw)
    return raw


# The rule set each (project, targets, filters) scan's first page ran with, so that a later page can say the
# rules changed in between (its findings come from the new set; the offsets may not line up with the first).
_first_pages: dict[tuple[Any, ...], str] = {}
_FIRST_PAGES_MAX = 512


# ast-grep's `--inspect entity` reasons for a walked file it did not scan, said for people.
_SKIP_REASONS = {"permissionDenied": "permission denied"}


def _note_unread(result: ScanPathResult, ws: Workspace, cfg: ProjectConfig, targets: Sequence[Path],
                 watch: ScanWatch, moved: Sequence[str]) -> None:
    """The files ast-grep could not read (`fileErrors`), and those whose matches were dropped because they
    changed or moved outside the root while it read them (a note: never text read through a swapped symlink)."""
    unread = _unread(ws, cfg, targets, watch)
    if unread:
        result["fileErrors"] = unread
    if moved:
        result["notes"] = [*result.get("notes", []), dropped_note(moved)]


def _unread(ws: Workspace, cfg: ProjectConfig, targets: Sequence[Path], watch: ScanWatch) -> list[FileError]:
    """The files ast-grep met but could not read, as `[io]` entries, and those it skipped as not UTF-8 text, as
    `[bad-input]` entries (never counted as checked, never silently). Empty files (an empty `__init__.py`) are
    left out of `filesChecked` only: there is no text to check, and nothing went wrong (docs/SPEC.md)."""
    cwd = cfg.root if all(cfg.relative(t) is not None for t in targets) else ws.root
    out: list[FileError] = []
    for name, reason in watch.skipped:
        if reason == "emptyFile":
            continue
        try:
            rel = ws.relative(cwd / name)
        except ValueError:
            rel = name
        if reason == "invalidUtf8":
            out.append({"file": rel, "code": "bad-input",
                        "message": f"[bad-input] {rel} is not UTF-8 text (ast-grep reads only UTF-8), so it was not "
                                   "checked. Convert it to UTF-8, or exclude it from the scan."})
            continue
        why = _SKIP_REASONS.get(reason, reason)
        out.append({"file": rel, "code": "io", "message": f"[io] {rel} could not be read ({why}), so it was not "
                                                          "checked. Make it readable, or exclude it from the scan."})
    return out


def _note_rule_set_change(result: ScanPathResult, ws: Workspace, cfg: ProjectConfig, targets: Sequence[Path],
                          filters: tuple[Any, ...], offset: int, rules_path: Path) -> None:
    changed = _rule_set_changed(ws, cfg, targets, filters, offset, rules_path)
    if changed:
        result["notes"] = [*result.get("notes", []), changed]


def _rule_set_changed(ws: Workspace, cfg: ProjectConfig, targets: Sequence[Path], filters: tuple[Any, ...],
                      offset: int, rules_path: Path) -> str | None:
    key = (str(ws.root), str(cfg.path), tuple(str(t) for t in targets), filters)
    stamp = rules_path.stem.removeprefix("rules-")
    if offset == 0:
        if len(_first_pages) >= _FIRST_PAGES_MAX:
            _first_pages.clear()
        _first_pages[key] = stamp
        return None
    first = _first_pages.get(key)
    if first is None or first == stamp:
        return None
    return (f"The rule set changed since the first page (rules {first[:12]} then, {stamp[:12]} now): this page "
            "comes from the new rules and its offsets may not continue the first page's. Scan again from offset 0 "
            "for one consistent list.")


def _page(files: _Files, raw: list[AstGrepMatch], by_id: Mapping[str, Rule], level: str | None, offset: int,
          limit: int, with_suppress: bool = True) -> tuple[list[Diagnostic], list[Diagnostic], dict[str, str]]:
    """(every diagnostic, the page from `offset`, the texts of the page's files). Only the page gets fix-its:
    building them needs each file's text."""
    if offset == 0 and len(raw) <= limit:
        # Everything fits on the first page (the usual case, and always for the CLI): build it once.
        by_rel = _read_matched_files(files, raw)
        diags = filter_severity(to_diagnostics(raw, text_by_file=by_rel, rules_by_id=by_id,
                                               with_suppress=with_suppress), level)
        return diags, diags, by_rel
    diags = filter_severity(to_diagnostics(raw, text_by_file={}, rules_by_id=by_id, with_fixits=False), level)
    on_page = Counter(_match_key(d["file"], d["byteStart"], d["byteEnd"], d["ruleId"])
                      for d in diags[offset: offset + limit])
    page_raw: list[AstGrepMatch] = []
    for m in raw:
        key = _match_key(m["file"], m["range"]["byteOffset"]["start"], m["range"]["byteOffset"]["end"],
                         m.get("ruleId"))
        if on_page[key] > 0:
            on_page[key] -= 1
            page_raw.append(m)
    by_rel = _read_matched_files(files, page_raw)
    page = to_diagnostics(page_raw, text_by_file=by_rel, rules_by_id=by_id, with_suppress=with_suppress)
    return diags, filter_severity(page, level), by_rel


class _Files:
    """Matched files' contents by workspace-relative name, each read once per scan (None when unreadable or
    past max_file_bytes): the signal pass and the fix-its both need them, and a sparse tree's findings touch
    hundreds of files."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._data: dict[str, bytes | None] = {}

    def data(self, name: str) -> bytes | None:
        if name not in self._data:
            try:  # confined as writes are: never through a folder swapped for a symlink
                self._data[name] = self.ws.read_bytes(name)
            except (OSError, SgToolsError):
                self._data[name] = None
        return self._data[name]

    def text(self, name: str) -> str | None:
        data = self.data(name)
        return None if data is None else data.decode("utf-8", "replace")


def _relative_files(ws: Workspace, cwd: Path, raw: list[AstGrepMatch]) -> None:
    """Point each match's `file` at its workspace-relative `/` path (ast-grep prints it relative to cwd), by
    name alone: resolving links here would follow a folder swapped for a symlink meanwhile (confine.py checks
    the file itself)."""
    rel_files: dict[str, str] = {}
    for m in raw:
        name = str(m.get("file"))
        if name not in rel_files:
            rel_files[name] = ws.relative(os.path.normpath(cwd / name))
        m["file"] = rel_files[name]


def _read_matched_files(files: _Files, raw: list[AstGrepMatch]) -> dict[str, str]:
    """The texts of the files that matched, for fix-it positions. A file that cannot be read, or that changed
    since ast-grep read it (a match's bytes differ), is left out: its findings stand, without fix-its that
    would edit the wrong bytes."""
    data: dict[str, bytes | None] = {}
    for m in raw:
        name = str(m["file"])
        if name not in data:  # past max_file_bytes no fix could be applied anyway: its findings stand without fix-its
            data[name] = files.data(name)
        content = data[name]
        if content is not None:
            start, end = m["range"]["byteOffset"]["start"], m["range"]["byteOffset"]["end"]
            if content[start:end] != str(m.get("text", "")).encode("utf-8"):
                data[name] = None
    texts: dict[str, str] = {}
    for name, content in data.items():
        if content is not None:
            try:
                texts[name] = content.decode("utf-8")
            except UnicodeDecodeError:
                continue
    return texts


def verify_files(ws: Workspace, engine: Engine, cfg: ProjectConfig, rules: Sequence[Rule],
                  diags: Sequence[Diagnostic], texts: Mapping[str, str], *, warm: bool = False,
                  baselines: Mapping[str, list[AstGrepMatch]] | None = None) -> None:
    """Verify the fix-its of a path scan: per language, one rule file of that language's rules (globs
    dropped, since the edited copies live outside the project) and one ast-grep call over all copies.
    `warm`: the re-scans go to the warm engine when the server runs one (scan/warmscan.py), as a snippet's do.
    `baselines`: per file, its matches under that rule file when the caller has them (not scanned again)."""
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diags:
        if d.get("fixits"):
            by_file.setdefault(str(d["file"]), []).append(d)
    if not by_file:
        return
    # Imported here: a scan that verifies no fix-it (the CLI's report-only gate) never loads the verifier or
    # the warm engine.
    from sgtools.fixits.verify import VerifyJob, verify_fixits
    from sgtools.scan.checker import TextChecker

    jobs: list[VerifyJob] = []
    lang_rules: dict[str, list[Rule]] = {}
    for r in rules:
        key = language_key(r.language, cfg)
        if key is not None:
            lang_rules.setdefault(key, []).append(r)
    for file, file_diags in by_file.items():
        lang = language_for_path(file, cfg)
        if lang is None or lang not in lang_rules:
            continue
        rel_cfg = cfg.relative(ws.root / file)
        applies = frozenset(r.id for r in lang_rules[lang] if rule_applies(r, rel_cfg))
        jobs.append(VerifyJob(file, texts[file], lang, file_diags, rule_ids=applies,
                              baseline=(baselines or {}).get(file)))
    files = {lang: (rule_file(lang_rules[lang], keep_globs=False, parse_language=lang), file_name_for(lang, cfg))
             for lang in {j.language for j in jobs}}

    checkers = {lang: TextChecker(engine, config=cfg.path, cwd=ws.root, rules_path=path, file_name=name,
                                  language=lang, rules=lang_rules[lang], project=cfg, warm=warm)
                for lang, (path, name) in files.items()}

    def run(lang: str, batch: Sequence[str]) -> list[list[AstGrepMatch]]:
        return checkers[lang].rescan(lang, batch)

    def count(lang: str, text: str) -> int | None:
        return checkers[lang].count_missing(lang, text) if lang in checkers else spawned(lang, text)

    spawned = missing_counter(engine, ws.root)
    # warm checkers (a pending change's documents) count MISSING tokens in the re-scans themselves
    counted = bool(checkers) and all([c.keep_counts() for c in checkers.values()])
    verify_fixits(jobs, run, count, settings=engine.settings, counted_by_rescan=counted)
    mark_unchecked(diags, "no rules of this file's language to re-scan with")


def _match_key(file: Any, start: Any, end: Any, rule_id: Any) -> tuple[str, int, int, str]:
    return str(file), int(start), int(end), str(rule_id)


def _outermost(targets: Sequence[Path]) -> list[Path]:
    """Drop repeated paths and paths inside another given directory: ast-grep would report them twice."""
    kept: list[Path] = []
    for t in sorted(set(targets), key=lambda p: len(p.parts)):
        if not any(t == k or k in t.parents for k in kept):
            kept.append(t)
    return kept
