"""`scan_code`: check a snippet as if it were saved at a path of the project, writing nothing.

ast-grep reads the snippet on stdin, one call per snippet, with the rules that would apply to that path (this
module picks them, since ast-grep ignores globs for stdin) and `-c <project sgconfig>`, so global utils and
custom languages resolve. test_rule checks its code the same way (`snippet_diagnostics`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sgtools.contracts.scan import Diagnostic, OverlayFile, ScanResult
from sgtools.core.errors import BadInput
from sgtools.engine.process import Engine
from sgtools.fixits.judge import PARSE_RULE_ID
from sgtools.fixits.verify import VerifyJob, verify_fixits
from sgtools.project.config import ProjectConfig, load_config, missing_folders_note
from sgtools.project.languages import file_name_for, language_key, resolve_language
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis.report import scan_analysis
from sgtools.rules.ruleset import rule_applies
from sgtools.scan import ran
from sgtools.scan.checker import TextChecker
from sgtools.scan.diagnostics import (
    check_severity,
    counts,
    filter_severity,
    result_limit,
    to_diagnostics,
)
from sgtools.scan.inputs import check_code, left_out
from sgtools.scan.rulefiles import cached_ruleset, rule_file
from sgtools.scan.signal import Signal


def scan_code(
    ws: Workspace,
    engine: Engine,
    code: str | None = None,
    language: str | None = None,
    path: str | None = None,
    min_severity: str | None = None,
    max_results: int | None = None,
    *,
    files: Sequence[OverlayFile] | None = None,
    config: ProjectConfig | None = None,
) -> ScanResult:
    """Check `code` as if saved at `path` (virtual; nothing is written), or the pending `files` together
    (scan/overlay.py). `counts` cover every finding, `issues` the first `max_results`. `config` replaces the
    workspace's sgconfig.yml (the bundled rules)."""
    level = check_severity(min_severity)
    limit = result_limit(max_results, ws.settings)
    if files is not None:
        if code is not None or path is not None or language is not None:
            raise BadInput("Pass either `files` (several files, each with its path) or `code` with `language`/`path` "
                           "(one snippet), not both.")
        from sgtools.scan.overlay import scan_files

        return scan_files(ws, engine, files, config if config is not None else load_config(ws), level, limit)
    if code is None:
        raise BadInput("scan_code needs `code` (one snippet, with `language` or `path`) or `files` (a list of "
                       "{path, code}, checked together).")
    check_code(code, ws.settings)
    cfg = config if config is not None else load_config(ws)
    file: str | None = None
    rel_cfg: str | None = None
    if path is not None:
        resolved = ws.resolve(path)
        file = ws.relative(resolved)
        rel_cfg = cfg.relative(resolved)
    lang = resolve_language(cfg, language, file)
    ruleset = cached_ruleset(ws, cfg, engine)
    of_lang = [r for r in ruleset.rules if r.enabled and language_key(r.language, cfg) == lang]
    rules = [r for r in of_lang if rule_applies(r, rel_cfg)]
    result: ScanResult = {"success": True, "issues": [], "counts": counts([]), "truncated": False,
                          "ruleErrors": ruleset.error_dicts(), "rulesRun": len(rules)}
    notes = [*left_out(of_lang, rules, lang, file), *filter(None, [missing_folders_note(cfg)])]
    if notes:
        result["notes"] = notes
    if not rules:  # checked nothing: never a success
        enabled = [r for r in ruleset.rules if r.enabled]
        result["success"] = False
        result["noRuleRan"] = (ran.not_for_language(of_lang, enabled, lang, file) if enabled
                               else ran.nothing_loaded(ws, cfg, ruleset))
        return result
    result["analysis"] = scan_analysis(engine, rules, cfg.path)
    rules_path = rule_file(rules, keep_globs=False, parse_language=lang)
    signal = Signal.for_config(cfg)
    checker = TextChecker(engine, config=cfg.path, cwd=cfg.root, rules_path=rules_path,
                          file_name=file_name_for(lang, cfg), language=lang, rules=rules, project=cfg)
    diags = snippet_diagnostics(checker, code, file=file, min_severity=level, verify_max=limit, signal=signal)
    page = diags[:limit]
    result.update({"success": not diags, "issues": page, "counts": counts(diags), "truncated": len(diags) > limit})
    result.update(signal.report())  # type: ignore[typeddict-item]
    _mark_skipped(result, file)
    if not result["analysis"]:
        del result["analysis"]
    return result


SKIPPED_AS_GENERATED = ("This code looks generated or minified, so its findings were skipped (see skippedGenerated); "
                        "it was not found clean. Format it as hand-written code, or set `skipGenerated: false` in "
                        "sgconfig.yml.")


def _mark_skipped(result: ScanResult, file: str | None) -> None:
    """A snippet whose findings were left out as generated is not a clean result: it says so first."""
    if result.get("skippedGenerated"):
        result["success"] = False
        for entry in result["skippedGenerated"]:
            if entry["file"] == "STDIN":  # ast-grep's name for stdin: the snippet's own path, or none
                entry["file"] = file or "<snippet>"
        result["notes"] = [SKIPPED_AS_GENERATED, *result.get("notes", [])]


def snippet_diagnostics(checker: TextChecker, code: str, *, file: str | None = None,
                        min_severity: str | None = None, verify_max: int | None = None,
                        signal: Signal | None = None) -> list[Diagnostic]:
    """`code` checked by `checker` (scan/checker.py: its rules, rule file and config; the warm engine when it
    can): its diagnostics at or above `min_severity`, the first `verify_max` (all by default) with verified
    fix-its. scan_code and test_rule share it, so a snippet is checked one way."""
    by_id = {r.id: r for r in checker.rules}
    raw = checker.scan(code, by_id)
    found = [m for m in raw if m.get("ruleId") != PARSE_RULE_ID]
    if signal is not None:  # scans only: test_rule reports every match of the rule under test
        found = signal.refine(found, by_id, lambda _name: code, file_override=file)
    diags = filter_severity(
        to_diagnostics(found, text_by_file={"STDIN": code}, rules_by_id=by_id, file_override=file),
        min_severity,
    )
    verify_fixits(
        [VerifyJob("STDIN", code, checker.language, diags[:verify_max], baseline=checker.baseline(code, raw),
                   counted=checker.counted(code))],
        checker.rescan,
        checker.count_missing,
        settings=checker.engine.settings,
        counted_by_rescan=checker.keep_counts(),  # warm: the re-scans count MISSING tokens too
    )
    checker.record()
    return diags
