"""Scan a snippet or workspace paths with the project's rules; structured diagnostics with verified fix-its.

A snippet is checked exactly as `ast-grep scan` would check that text saved as `path` in the project, without
writing anything into the workspace: ast-grep reads it on stdin, one call per snippet, with the rules that
would apply to that path. ast-grep ignores `files`/`ignores` for stdin and takes the stdin language from the
first rule, so this module picks the rules itself (same glob semantics as ast-grep's globset matching, same
`languageGlobs`) and hands ast-grep one multi-document rule file of that language, cached by content.
`-c <project sgconfig>` stays on every call so global utils (`utilDirs`) and custom languages resolve.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from sgtools.core import languages
from sgtools.core.errors import BadInput, NotFound, SgToolsError, TooLarge
from sgtools.core.settings import get_settings, requested_results
from sgtools.engine.process import Engine
from sgtools.fixits import verify as fixits
from sgtools.project import config as project
from sgtools.project.config import ProjectConfig
from sgtools.project.workspace import Workspace
from sgtools.rules import syntax
from sgtools.rules.ruleset import Rule, RuleError, RuleSet, load_ruleset
from sgtools.scan.diagnostics import check_severity, counts, filter_severity, normalize_file, to_diagnostics
from sgtools.scan.globs import compile_glob, glob_match

_GLOB_KEYS = ("files", "ignores")


# ---- globs: ast-grep matches `files`, `ignores` and `languageGlobs` with the globset crate (see scan/globs) ---


def _glob_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, list) else []


def rule_applies(rule: Rule, rel_path: str | None) -> bool:
    """Would ast-grep run `rule` on the file at `rel_path` (relative to the sgconfig directory)?
    With no path (an anonymous snippet), rules limited to some `files` are left out: nothing says the
    snippet belongs there."""
    files = rule.data.get("files")
    ignores = rule.data.get("ignores")
    if rel_path is None:
        return files is None
    if ignores is not None and any(glob_match(g, rel_path) for g in _glob_list(ignores)):
        return False
    if files is not None:
        return any(glob_match(g, rel_path) for g in _glob_list(files))
    return True


# ---- languages ----------------------------------------------------------------------------------------------


def _custom_languages(cfg: ProjectConfig | None) -> dict[str, dict[str, Any]]:
    raw = (cfg.raw.get("customLanguages") if cfg is not None else None) or {}
    return {str(k): v for k, v in raw.items() if isinstance(v, dict)} if isinstance(raw, dict) else {}


def language_key(name: str, cfg: ProjectConfig | None = None) -> str | None:
    """Built-in languages by canonical name; custom ones (sgconfig `customLanguages`) by their key."""
    canon = languages.canonical(name)
    if canon is not None:
        return canon
    for key in _custom_languages(cfg):
        if key.lower() == str(name).strip().lower():
            return key
    return None


def language_for_path(rel_path: str, cfg: ProjectConfig | None) -> str | None:
    """The language ast-grep gives a file: `languageGlobs` first (matched on the file name, as ast-grep does),
    then custom language extensions, then the built-in extensions."""
    name = PurePosixPath(rel_path).name
    if cfg is not None:
        for lang, globs in cfg.language_globs.items():
            if any(glob_match(g, name) for g in globs):
                key = language_key(lang, cfg)
                if key is not None:
                    return key
        suffix = PurePosixPath(rel_path).suffix.lstrip(".")
        for key, spec in _custom_languages(cfg).items():
            if suffix and suffix in [str(e) for e in spec.get("extensions") or []]:
                return key
    return languages.from_path(rel_path)


def file_name_for(language: str, cfg: ProjectConfig | None) -> str:
    """A file name ast-grep parses as `language` under this config (languageGlobs can remap extensions)."""
    custom = _custom_languages(cfg).get(language)
    exts = [str(e) for e in custom.get("extensions") or []] if custom else []
    if not exts and language in languages.LANGUAGES:
        exts = list(languages.LANGUAGES[language][1])
    for ext in exts:
        if language_for_path(f"snippet.{ext}", cfg) == language:
            return f"snippet.{ext}"
    raise BadInput(f"No file extension maps to {language} in this project (check languageGlobs in sgconfig.yml).")


def resolve_language(cfg: ProjectConfig | None, language: str | None, rel_path: str | None) -> str:
    if language is not None and str(language).strip():
        key = language_key(str(language), cfg)
        if key is None:
            raise BadInput(
                f"Unknown language {language!r}. Use one ast-grep knows, e.g. "
                + ", ".join(sorted(languages.LANGUAGES)) + "."
            )
        return key
    if rel_path is not None:
        key = language_for_path(rel_path, cfg)
        if key is None:
            raise BadInput(f"Cannot tell the language of {rel_path} from its name. Pass `language` as well.")
        return key
    raise BadInput("Pass `language` (e.g. python), or a `path` whose extension names the language.")


# ---- rules: cached rule sets and rule files -----------------------------------------------------------------

_lock = threading.Lock()
_rulesets: dict[str, tuple[tuple[Any, ...], RuleSet]] = {}
_rule_files: dict[str, Path] = {}
# (rule object ids, keep_globs, parse language) -> (the rules, kept alive so ids stay theirs; the file)
_rule_file_memo: dict[tuple[Any, ...], tuple[list[Rule], Path]] = {}
_MEMO_MAX = 256
_tmp_root: Path | None = None


def _stamp(path: str, stat: Callable[[], os.stat_result]) -> tuple[Any, ...]:
    try:
        st = stat()
    except OSError:
        return (path, None)
    return (path, st.st_mtime_ns, st.st_size, st.st_ino)


def _tree_signature(files: Iterable[Path], dirs: Iterable[Path]) -> tuple[Any, ...]:
    """Name, mtime, size and inode of every file under `dirs` (atomic writes change the inode): any edit,
    addition or removal of a rule or util file changes it. os.scandir keeps this near a millisecond for
    a few hundred rules, where pathlib's rglob took ten times that."""
    sig: list[Any] = [_stamp(str(p), p.stat) for p in files]
    stack = [str(d) for d in dirs]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as it:
                for entry in it:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        sig.append(_stamp(entry.path, entry.stat))
        except OSError:
            sig.append((top, None))
    sig.sort(key=lambda item: item[0])
    return tuple(sig)


def cached_ruleset(ws: Workspace, cfg: ProjectConfig, engine: Engine) -> RuleSet:
    """`load_ruleset`, kept while no rule, util or config file changed: parsing YAML in Python is the most
    expensive part of a snippet scan otherwise."""
    sig = _tree_signature([cfg.path], [*cfg.rule_dirs, *cfg.util_dirs])
    key = f"{ws.root}\0{cfg.path}"
    with _lock:
        hit = _rulesets.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    rs = _without_bad_globs(ws, load_ruleset(ws, cfg, engine))
    with _lock:
        _rulesets[key] = (sig, rs)
    return rs


def glob_problem(rule: Rule) -> str | None:
    for key in _GLOB_KEYS:
        for glob in _glob_list(rule.data.get(key)):
            if compile_glob(glob) is None:
                return (f"rejected by ast-grep: `{key}` holds {glob!r}, which is not a valid glob; ast-grep refuses "
                        "the whole project over it (exit 9). Fix or remove that glob.")
    return None


def _without_bad_globs(ws: Workspace, rs: RuleSet) -> RuleSet:
    """A `files`/`ignores` glob ast-grep cannot parse passes the rule checks (they run on stdin, where globs
    are not used) but stops every path scan: such rules become rule errors here, like any broken rule."""
    bad = {id(r): problem for r in rs.rules if (problem := glob_problem(r)) is not None}
    if not bad:
        return rs
    errors = list(rs.errors)
    for r in rs.rules:
        if id(r) in bad:
            try:
                where = ws.relative(r.path)
            except ValueError:
                where = str(r.path)
            errors.append(RuleError(where, bad[id(r)], r.id))
    return RuleSet([r for r in rs.rules if id(r) not in bad], errors, all_valid=False)


def tmp_root() -> Path:
    """A private directory outside any workspace for rule files and edited texts; removed at exit."""
    global _tmp_root
    with _lock:
        if _tmp_root is None or not _tmp_root.is_dir():
            _tmp_root = Path(tempfile.mkdtemp(prefix="sgtools-scan-"))
            _rule_files.clear()
            _rule_file_memo.clear()
            atexit.register(shutil.rmtree, str(_tmp_root), True)
        return _tmp_root


_YAML_UNSAFE = re.compile("[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]")


def yaml_doc(doc: Mapping[str, Any]) -> str:
    """One rule document as YAML: JSON is YAML, exact and fast; characters YAML readers treat as line
    breaks or refuse are escaped."""
    text = json.dumps(doc, ensure_ascii=False, default=str)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def parse_rule_doc(language: str) -> dict[str, Any]:
    return {"id": fixits.PARSE_RULE_ID, "language": language, "severity": "hint", "rule": {"kind": "ERROR"}}


def rule_doc(rule: Rule, *, keep_globs: bool) -> dict[str, Any]:
    doc = dict(rule.data)
    doc["id"] = rule.id  # a document without `id` would take the temp file's name
    if not keep_globs:
        for k in _GLOB_KEYS:
            doc.pop(k, None)
    return doc


def rule_file(rules: Sequence[Rule], *, keep_globs: bool, parse_language: str | None = None) -> Path:
    """A multi-document rule file for `rules` (plus the parse-error rule when `parse_language` is given),
    written once per distinct content. Memoised on the rule objects: dumping a few hundred rules only to
    learn their digest would cost more than the scan."""
    memo_key = (tuple(id(r) for r in rules), keep_globs, parse_language)
    with _lock:
        memo = _rule_file_memo.get(memo_key)
    if memo is not None and memo[0] == list(rules) and memo[1].is_file():
        return memo[1]
    docs = [yaml_doc(rule_doc(r, keep_globs=keep_globs)) for r in rules]
    if parse_language is not None:
        docs.append(yaml_doc(parse_rule_doc(parse_language)))
    body = "\n---\n".join(docs) + "\n"
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]
    root = tmp_root()
    with _lock:
        path = _rule_files.get(digest)
    if path is None or not path.is_file():
        path = root / f"rules-{digest}.yml"
        fd, tmp = tempfile.mkstemp(dir=root, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
        os.replace(tmp, path)
    with _lock:
        _rule_files[digest] = path
        if len(_rule_file_memo) > _MEMO_MAX:
            _rule_file_memo.clear()
        _rule_file_memo[memo_key] = (list(rules), path)
    return path


def scan_texts(engine: Engine, cfg_path: Path | str, rules_path: Path, file_name: str,
               texts: Sequence[str]) -> list[list[dict[str, Any]]]:
    """Scan several texts in one ast-grep call (files in a private temp dir); matches per text, in order."""
    if not texts:
        return []
    _stem, dot, ext = file_name.rpartition(".")
    work = Path(tempfile.mkdtemp(prefix="texts-", dir=tmp_root()))
    try:
        names = [f"t{i}{dot}{ext}" for i in range(len(texts))]
        for name, text in zip(names, texts, strict=True):
            (work / name).write_bytes(text.encode("utf-8"))
        raw = engine.scan(config=cfg_path, cwd=work, rule_file=rules_path, paths=names)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    position = {name: i for i, name in enumerate(names)}
    out: list[list[dict[str, Any]]] = [[] for _ in texts]
    for m in raw:
        i = position.get(normalize_file(str(m.get("file"))) or "")
        if i is not None:
            out[i].append(m)
    return out


def missing_counter(engine: Engine, cwd: Path) -> fixits.MissingCounter:
    """Counts tree-sitter's MISSING tokens in a text from ast-grep's CST dump (the text goes in argv, so
    texts over `max_arg_bytes` and custom languages are not counted)."""
    limit = get_settings().max_arg_bytes

    def count(language: str, text: str) -> int | None:
        if language not in languages.LANGUAGES or not text.strip() or len(text.encode("utf-8")) > limit:
            return None
        try:
            tree, _ = engine.dump_tree(text, language, "cst", cwd=cwd)
        except SgToolsError:
            return None
        if not tree:
            return None
        return sum(1 for node, _line in syntax.problem_nodes(tree) if node.startswith("MISSING"))

    return count


# ---- inputs -------------------------------------------------------------------------------------------------


def check_code(code: object) -> bytes:
    """The snippet as UTF-8 bytes; refuses non-text, NUL bytes and anything over `max_code_bytes`."""
    if not isinstance(code, str):
        raise BadInput(f"`code` must be a string, not {type(code).__name__}.")
    if "\x00" in code:
        raise BadInput("`code` contains NUL bytes: it looks like binary data. Pass source text.")
    try:
        data = code.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("`code` is not valid Unicode text (lone surrogates). Pass UTF-8 source text.") from None
    limit = get_settings().max_code_bytes
    if len(data) > limit:
        raise TooLarge(
            f"`code` is {len(data)} bytes, over the {limit}-byte limit. Scan the file with scan_path instead, "
            "or raise SGTOOLS_MAX_CODE_BYTES."
        )
    return data


def result_limit(max_results: object) -> int:
    return min(requested_results(max_results), get_settings().hard_max_results)


def _rel_to(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def _match_key(file: Any, start: Any, end: Any, rule_id: Any) -> tuple[str, int, int, str]:
    return str(file), int(start), int(end), str(rule_id)


def _outermost(targets: Sequence[Path]) -> list[Path]:
    """Drop repeated paths and paths inside another given directory: ast-grep would report them twice."""
    kept: list[Path] = []
    for t in sorted(set(targets), key=lambda p: len(p.parts)):
        if not any(t == k or k in t.parents for k in kept):
            kept.append(t)
    return kept


def _by_id(rules: Iterable[Rule]) -> dict[str, Rule]:
    return {r.id: r for r in rules}


# ---- scan_code ----------------------------------------------------------------------------------------------


def scan_code(
    ws: Workspace,
    engine: Engine,
    code: str,
    language: str | None = None,
    path: str | None = None,
    min_severity: str | None = None,
    max_results: int | None = None,
    *,
    config: ProjectConfig | None = None,
) -> dict[str, Any]:
    """Check `code` as if saved at `path` (virtual; nothing is written). `counts` cover every finding,
    `issues` the first `max_results`. `config` replaces the workspace's sgconfig.yml (the bundled rules)."""
    level = check_severity(min_severity)
    limit = result_limit(max_results)
    check_code(code)
    cfg = config if config is not None else project.load(ws)
    file: str | None = None
    rel_cfg: str | None = None
    if path is not None:
        resolved = ws.resolve(path)
        file = ws.relative(resolved)
        rel_cfg = _rel_to(resolved, cfg.root)
    lang = resolve_language(cfg, language, file)
    ruleset = cached_ruleset(ws, cfg, engine)
    of_lang = [r for r in ruleset.rules if r.enabled and language_key(r.language, cfg) == lang]
    rules = [r for r in of_lang if rule_applies(r, rel_cfg)]
    result: dict[str, Any] = {"success": True, "issues": [], "counts": counts([]), "truncated": False,
                              "ruleErrors": ruleset.error_dicts()}
    if path is None:
        scoped = [r.id for r in of_lang if r.data.get("files") is not None]
        if scoped:
            result["notes"] = [f"{len(scoped)} rule(s) limited to some files did not run ({', '.join(scoped[:5])}"
                               f"{', …' if len(scoped) > 5 else ''}): pass `path` to check the code as that file."]
    if ruleset.errors and not ruleset.rules:
        result.setdefault("notes", []).append("No rule could be loaded, so nothing was checked: see ruleErrors.")
    if not rules:
        return result
    rules_path = rule_file(rules, keep_globs=False, parse_language=lang)
    diags = snippet_diagnostics(engine, cfg.path, cfg.root, rules_path, file_name_for(lang, cfg), rules, lang, code,
                                file=file, min_severity=level, verify_max=limit)
    page = diags[:limit]
    result.update(success=not diags, issues=page, counts=counts(diags), truncated=len(diags) > limit)
    return result


def snippet_diagnostics(engine: Engine, config: Path | str, cwd: Path, rules_path: Path, file_name: str,
                        rules: Sequence[Rule], language: str, code: str, *, file: str | None = None,
                        min_severity: str | None = None, verify_max: int | None = None) -> list[dict[str, Any]]:
    """`code` scanned on stdin with `rules_path` (holding `rules` and the parse-error rule of `language`): its
    diagnostics at or above `min_severity`, the first `verify_max` (all by default) with verified fix-its.
    scan_code and test_rule share it, so a snippet is checked one way. `file_name` names the edited copies."""
    raw = engine.scan(config=config, cwd=cwd, rule_file=rules_path, stdin=code.encode("utf-8"))
    found = [m for m in raw if m.get("ruleId") != fixits.PARSE_RULE_ID]
    diags = filter_severity(
        to_diagnostics(found, text_by_file={"STDIN": code}, rules_by_id=_by_id(rules), file_override=file),
        min_severity,
    )
    fixits.verify_fixits(
        [fixits.VerifyJob("STDIN", code, language, diags[:verify_max], baseline=raw)],
        lambda _lang, texts: scan_texts(engine, config, rules_path, file_name, texts),
        missing_counter(engine, cwd),
    )
    return diags


# ---- scan_path ----------------------------------------------------------------------------------------------


def scan_path(
    ws: Workspace,
    engine: Engine,
    paths: Sequence[str] | None = None,
    min_severity: str | None = None,
    rule_ids: Sequence[str] | None = None,
    max_results: int | None = None,
    offset: int = 0,
    *,
    config: ProjectConfig | None = None,
    verify_fixits: bool = True,
) -> dict[str, Any]:
    """Scan files and directories of the workspace (default: all of it) as `ast-grep scan` does, with
    `.gitignore` and rule globs honoured; broken rule files are skipped and named in `ruleErrors`.
    Results are sorted; `offset`/`nextOffset` page through them; `counts` cover every finding.
    `verify_fixits=False` skips the re-scan of fix-its (a CI gate that only reports does not need it)."""
    level = check_severity(min_severity)
    limit = result_limit(max_results)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise BadInput(f"offset must be a non-negative integer, not {offset!r}.")
    if isinstance(paths, str):
        paths = [paths]
    cfg = config if config is not None else project.load(ws)
    targets = _outermost([ws.resolve(p, must_exist=True) for p in paths] if paths else [ws.root])
    ruleset = cached_ruleset(ws, cfg, engine)
    rules = [r for r in ruleset.rules if r.enabled]
    if rule_ids:
        wanted = [str(i) for i in ([rule_ids] if isinstance(rule_ids, str) else rule_ids)]
        known = {r.id for r in rules}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            broken = {e.ruleId for e in ruleset.errors if e.ruleId}
            why = [f"{i} ({'its rule file is broken, see ruleErrors' if i in broken else 'no such enabled rule'})"
                   for i in unknown]
            raise NotFound(f"Rule id(s) not found: {', '.join(why)}. Run list_rules to see the rule ids.")
        chosen = set(wanted)
        rules = [r for r in rules if r.id in chosen]
    empty: dict[str, Any] = {"success": True, "issues": [], "counts": counts([]), "truncated": False,
                             "nextOffset": None, "ruleErrors": ruleset.error_dicts()}
    if ruleset.errors and not ruleset.rules:
        empty["notes"] = ["No rule could be loaded, so nothing was checked: see ruleErrors."]
    if not rules:
        return empty
    cwd = cfg.root if all(_rel_to(t, cfg.root) is not None for t in targets) else ws.root
    args = [os.path.relpath(t, cwd) for t in targets]
    deadline = get_settings().path_scan_timeout
    if ruleset.all_valid and not rule_ids:
        raw = engine.scan(config=cfg.path, cwd=cwd, paths=args, timeout=deadline)
    else:
        # Only the good rules, with their globs: ast-grep matches globs of a `-r` file outside the
        # project against the path relative to the cwd, which is the sgconfig directory here.
        raw = engine.scan(config=cfg.path, cwd=cwd, rule_file=rule_file(rules, keep_globs=True), paths=args,
                          timeout=deadline)

    _relative_files(ws, cwd, raw)
    by_id = _by_id(rules)
    if offset == 0 and len(raw) <= limit:
        # Everything fits on the first page (the usual case, and always for the CLI): build it once.
        by_rel = _read_matched_files(ws, raw)
        diags = page = filter_severity(to_diagnostics(raw, text_by_file=by_rel, rules_by_id=by_id), level)
        more = False
    else:
        # Every finding counts, but only the page gets fix-its: building them needs each file's text.
        diags = filter_severity(to_diagnostics(raw, text_by_file={}, rules_by_id=by_id, with_fixits=False), level)
        more = offset + limit < len(diags)
        on_page = Counter(_match_key(d["file"], d["byteStart"], d["byteEnd"], d["ruleId"])
                         for d in diags[offset: offset + limit])
        page_raw: list[dict[str, Any]] = []
        for m in raw:
            key = _match_key(m["file"], m["range"]["byteOffset"]["start"], m["range"]["byteOffset"]["end"],
                             m.get("ruleId"))
            if on_page[key] > 0:
                on_page[key] -= 1
                page_raw.append(m)
        by_rel = _read_matched_files(ws, page_raw)
        page = filter_severity(to_diagnostics(page_raw, text_by_file=by_rel, rules_by_id=by_id), level)
    if verify_fixits:
        _verify_files(ws, engine, cfg, rules, page, by_rel)
    else:
        fixits.mark_unchecked(page, "verification not requested")
    return {"success": not diags, "issues": page, "counts": counts(diags), "truncated": more,
            "nextOffset": offset + len(page) if more else None, "ruleErrors": ruleset.error_dicts()}


def _relative_files(ws: Workspace, cwd: Path, raw: list[dict[str, Any]]) -> None:
    """Point each match's `file` at its workspace-relative `/` path (ast-grep prints it relative to cwd)."""
    rel_files: dict[str, str] = {}
    for m in raw:
        name = str(m.get("file"))
        if name not in rel_files:
            rel_files[name] = ws.relative((cwd / name).resolve())
        m["file"] = rel_files[name]


def _read_matched_files(ws: Workspace, raw: list[dict[str, Any]]) -> dict[str, str]:
    """The texts of the files that matched, for fix-it positions. A file that cannot be read, or that changed
    since ast-grep read it (a match's bytes differ), is left out: its findings stand, without fix-its that
    would edit the wrong bytes."""
    data: dict[str, bytes | None] = {}
    for m in raw:
        name = str(m["file"])
        if name not in data:
            try:
                data[name] = (ws.root / name).read_bytes()
            except OSError:
                data[name] = None
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


def _verify_files(ws: Workspace, engine: Engine, cfg: ProjectConfig, rules: Sequence[Rule],
                  diags: Sequence[dict[str, Any]], texts: Mapping[str, str]) -> None:
    """Verify the fix-its of a path scan: per language, one rule file of that language's rules (globs
    dropped, since the edited copies live outside the project) and one ast-grep call over all copies."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for d in diags:
        if d.get("fixits"):
            by_file.setdefault(str(d["file"]), []).append(d)
    if not by_file:
        return
    jobs: list[fixits.VerifyJob] = []
    lang_rules: dict[str, list[Rule]] = {}
    for r in rules:
        key = language_key(r.language, cfg)
        if key is not None:
            lang_rules.setdefault(key, []).append(r)
    for file, file_diags in by_file.items():
        lang = language_for_path(file, cfg)
        if lang is None or lang not in lang_rules:
            continue
        rel_cfg = _rel_to(ws.root / file, cfg.root)
        applies = frozenset(r.id for r in lang_rules[lang] if rule_applies(r, rel_cfg))
        jobs.append(fixits.VerifyJob(file, texts[file], lang, file_diags, rule_ids=applies))
    files = {lang: (rule_file(lang_rules[lang], keep_globs=False, parse_language=lang), file_name_for(lang, cfg))
             for lang in {j.language for j in jobs}}

    def run(lang: str, batch: Sequence[str]) -> list[list[dict[str, Any]]]:
        rules_path, name = files[lang]
        return scan_texts(engine, cfg.path, rules_path, name, batch)

    fixits.verify_fixits(jobs, run, missing_counter(engine, ws.root))
    fixits.mark_unchecked(diags, "no rules of this file's language to re-scan with")
