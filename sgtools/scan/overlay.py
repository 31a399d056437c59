"""`scan_code` with `files`: a pending change of several files checked together, as if written, writing nothing.

An agent's change often spans files (a module and its test, code in two languages). Checked one at a time,
each file would meet the disk's version of the others and cost a round trip of its own. Here all of them are
laid out in a private copy at their paths relative to the project (engine/texts.py `scan_tree`) and scanned
in one ast-grep call with every rule of their languages, globs kept, so `files`/`ignores`, `languageGlobs` and
global utils apply exactly as `ast-grep scan` applies them on disk. With the MCP server's warm engine, the same
files are opened as documents of its long-lived ast-grep instead (`_warm_tree`: one round for all of them, no
process start), with the same answer. Fix-its are verified as for `scan_path`, in one batched round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sgtools.contracts.scan import ScanResult
from sgtools.core.errors import BadInput, SgToolsError, TooLarge
from sgtools.engine.process import Engine
from sgtools.engine.texts import TreeFile, scan_tree
from sgtools.fixits.judge import PARSE_RULE_ID
from sgtools.project.config import ProjectConfig, missing_folders_note
from sgtools.project.languages import file_name_for, language_for_path, language_key
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis.report import scan_analysis
from sgtools.rules.ruleset import Rule, RuleSet, rule_applies
from sgtools.scan import ran
from sgtools.scan.checker import TextChecker
from sgtools.scan.diagnostics import counts, filter_severity, to_diagnostics
from sgtools.scan.inputs import check_code, left_out
from sgtools.scan.paths import verify_files
from sgtools.scan.rulefiles import cached_ruleset, rule_file
from sgtools.scan.signal import Signal

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch


@dataclass(frozen=True)
class Pending:
    """One checked file of the change: workspace-relative path, path relative to the sgconfig directory (None
    outside it), language (None when no language claims the path), content."""

    path: str
    where: str | None
    language: str | None
    code: str


def pending_files(ws: Workspace, cfg: ProjectConfig, files: object) -> list[Pending]:
    """The `files` argument checked: a list of `{path, code}` within the count and byte limits, each path
    confined to the workspace and named once (a file and a directory of another file cannot both be)."""
    s = ws.settings
    if not isinstance(files, list) or not files:
        raise BadInput("`files` must be a non-empty list of {path, code} objects, one per file of the change.")
    if len(files) > s.max_overlay_files:
        raise TooLarge(f"`files` holds {len(files)} files, over the limit of {s.max_overlay_files}. Split the change "
                       "into several scan_code calls, or raise SGTOOLS_MAX_OVERLAY_FILES.")
    out: list[Pending] = []
    total = 0
    for i, item in enumerate(files):
        if not isinstance(item, dict) or not isinstance(item.get("path"), str) or set(item) != {"path", "code"}:
            raise BadInput(f"files[{i}] must be an object with exactly `path` (a string) and `code`, "
                           f"got {_shape(item)}.")
        try:
            data = check_code(item["code"], s)
        except SgToolsError as exc:
            raise type(exc)(f"files[{i}] ({item['path'][:200]}): {exc.message}") from None
        total += len(data)
        if total > s.max_overlay_bytes:
            raise TooLarge(f"The files hold more than {s.max_overlay_bytes} bytes of code together. Split the change "
                           "into several scan_code calls, or raise SGTOOLS_MAX_OVERLAY_BYTES.")
        resolved = ws.resolve(item["path"])
        rel = ws.relative(resolved)
        out.append(Pending(rel, cfg.relative(resolved), language_for_path(rel, cfg), item["code"]))
    _distinct(out)
    return out


def _shape(item: object) -> str:
    if isinstance(item, dict):
        return "an object with " + (", ".join(f"`{str(k)[:40]}`" for k in list(item)[:5]) or "no keys")
    return type(item).__name__


def _distinct(pending: Sequence[Pending]) -> None:
    seen: dict[str, int] = {}
    for i, p in enumerate(pending):
        if p.path in seen:
            raise BadInput(f"files[{seen[p.path]}] and files[{i}] are both {p.path}. Send each file once, with its "
                           "whole new content.")
        seen[p.path] = i
    for p in pending:
        for parent in Path(p.path).parents:
            if parent.as_posix() in seen:
                raise BadInput(f"{parent.as_posix()} is sent as a file and as the directory of {p.path}. "
                               "Send one or the other.")


def scan_files(ws: Workspace, engine: Engine, files: object, cfg: ProjectConfig, level: str | None,
               limit: int) -> ScanResult:
    """Check the pending `files` together (see the module docstring). `counts` cover every finding, `issues`
    the first `limit`, each naming its virtual path in `file`."""
    pending = pending_files(ws, cfg, files)
    ruleset = cached_ruleset(ws, cfg, engine)
    langs = {p.language for p in pending if p.language is not None}
    rules = [r for r in ruleset.rules if r.enabled and language_key(r.language, cfg) in langs]
    checked = [p for p in pending if p.language is not None]
    result: ScanResult = {"success": True, "issues": [], "counts": counts([]), "truncated": False,
                          "ruleErrors": ruleset.error_dicts(), "rulesRun": len(rules) if checked else 0}
    notes = _notes(pending, ruleset, cfg)
    missing = missing_folders_note(cfg)
    if missing is not None:
        notes.append(missing)
    if notes:
        result["notes"] = notes
    if not rules or not checked:  # checked nothing: never a success
        enabled = [r for r in ruleset.rules if r.enabled]
        result["success"] = False
        result["noRuleRan"] = (
            ran.nothing_loaded(ws, cfg, ruleset) if not enabled
            else "no language is known for any of the files" if not checked
            else ran.not_for_language([], enabled, " or ".join(sorted(langs)), None))
        return result
    analysis = scan_analysis(engine, rules, cfg.path)
    raw, baselines = _scan_pending(engine, cfg, rules, checked)
    texts = {p.path: p.code for p in checked}
    by_id = {r.id: r for r in rules}
    signal = Signal.for_config(cfg)
    raw = signal.refine(raw, by_id, texts.get)
    diags = filter_severity(to_diagnostics(raw, text_by_file=texts, rules_by_id=by_id), level)
    page = diags[:limit]
    verify_files(ws, engine, cfg, rules, page, texts, warm=True, baselines=baselines)
    result.update({"success": not diags, "issues": page, "counts": counts(diags), "truncated": len(diags) > limit})
    result.update(signal.report())  # type: ignore[typeddict-item]
    if analysis:
        result["analysis"] = analysis
    return result


def _scan_pending(engine: Engine, cfg: ProjectConfig, rules: Sequence[Rule], checked: Sequence[Pending],
                  ) -> tuple[list[AstGrepMatch], dict[str, list[AstGrepMatch]]]:
    """The matches of the pending files, each `file` its virtual path: from the warm engine when the server runs
    one (`_warm_tree`), the files it cannot answer from one `scan_tree` spawn; and the fix-it verification's
    baselines of the files answered warm."""
    raw: list[AstGrepMatch] = []
    baselines: dict[str, list[AstGrepMatch]] = {}
    left, why = list(checked), None
    if engine.warm is not None:
        raw, baselines, left, why = _warm_tree(engine, cfg, rules, checked)
    if left:
        raw += scan_tree(engine, cfg.path, rule_file(rules, keep_globs=True),
                         [TreeFile(p.path, p.where, p.code) for p in left])
    if engine.warm is not None:
        engine.warm.note("spawn" if left else "warm", why)
    return raw, baselines


def _warm_tree(engine: Engine, cfg: ProjectConfig, rules: Sequence[Rule], checked: Sequence[Pending],
               ) -> tuple[list[AstGrepMatch], dict[str, list[AstGrepMatch]], list[Pending], str | None]:
    """The matches of the pending files the warm engine can answer, as `scan_tree` gives them; per such file its
    matches under the verification rules (parse errors included: the fix-it verification's baseline, so it does
    not scan the file again); the files left to the spawn path, and the first reason why. Per language, one
    document round under the rule file that fix-it verification uses too (every rule of the language, globs
    dropped: one process serves both), each file keeping the rules whose `files`/`ignores` take its path
    (`rule_applies`, as for a snippet with a path); the document is named for its language, so `languageGlobs`
    decide as they do on disk. Left to the spawn path: a file outside the project root (globs would not apply),
    custom languages, findings whose labels the server cannot give, and everything when the engine fails."""
    left = [p for p in checked if p.where is None]
    why = "a file lies outside the project root" if left else None
    by_lang: dict[str, list[Pending]] = {}
    for p in checked:
        if p.where is not None:
            by_lang.setdefault(str(p.language), []).append(p)
    out: list[AstGrepMatch] = []
    baselines: dict[str, list[AstGrepMatch]] = {}
    for lang, files in by_lang.items():
        of_lang = [r for r in rules if language_key(r.language, cfg) == lang]
        if not of_lang:
            continue  # no rule of this language: nothing can match, and no process is started for it
        found, reason = _warm_language(engine, cfg, lang, of_lang, files)
        why = why or reason
        for p, matches in zip(files, found, strict=True):
            if matches is None:
                left.append(p)
                continue
            out += [{**m, "file": p.path} for m in matches if m["ruleId"] != PARSE_RULE_ID]
            baselines[p.path] = matches  # the other rules' matches do not count for this file (`rule_ids`)
    return out, baselines, left, why


def _warm_language(engine: Engine, cfg: ProjectConfig, lang: str, of_lang: Sequence[Rule],
                   files: Sequence[Pending]) -> tuple[Sequence[list[AstGrepMatch] | None], str | None]:
    """One document round for the pending files of one language: each file's matches (None: left to the
    spawn path), and why a file was left, if one was."""
    checker = TextChecker(engine, config=cfg.path, cwd=cfg.root,
                          rules_path=rule_file(of_lang, keep_globs=False, parse_language=lang),
                          file_name=file_name_for(lang, cfg), language=lang, rules=of_lang, project=cfg)
    return checker.scan_many([p.code for p in files],
                             [{r.id: r for r in of_lang if rule_applies(r, p.where)} for p in files])


def _notes(pending: Sequence[Pending], ruleset: RuleSet, cfg: ProjectConfig) -> list[str]:
    """Said, not silent: files no language claims, and per file the rules its globs leave out."""
    notes: list[str] = []
    unknown = [p.path for p in pending if p.language is None]
    if unknown:
        notes.append(f"{len(unknown)} file(s) not checked: no language is known for {', '.join(unknown[:5])}"
                     f"{', …' if len(unknown) > 5 else ''} (a languageGlobs entry in sgconfig.yml can name one).")
    by_lang: dict[str, list[Rule]] = {}
    for r in ruleset.rules:
        key = language_key(r.language, cfg) if r.enabled else None
        if key is not None:
            by_lang.setdefault(key, []).append(r)
    for p in pending:
        if p.language is not None:
            of_lang = by_lang.get(p.language, [])
            notes += left_out(of_lang, [r for r in of_lang if rule_applies(r, p.where)], p.language, p.path)
    return notes
