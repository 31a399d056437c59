"""The rule sets and temporary rule files a scan hands ast-grep, cached so a scan pays for YAML only once.

ast-grep ignores `files`/`ignores` for stdin and takes the stdin language from the first rule, so snippet scans
and fix-it verification hand it one multi-document rule file of one language, written once per distinct
content into a private directory outside any workspace.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.core import languages
from sgtools.core.atomic import write_atomic
from sgtools.core.cache import cache_root
from sgtools.core.digest import blake2b, sha256
from sgtools.core.errors import SgToolsError
from sgtools.core.lazyre import LazyRe
from sgtools.engine.process import Engine
from sgtools.engine.tempdirs import tmp_root
from sgtools.project.config import ProjectConfig, yaml_files
from sgtools.project.workspace import Workspace
from sgtools.rules.ruleset import GLOB_KEYS, Rule, RuleError, RuleSet, glob_problem, load_ruleset
from sgtools.scan import testcode

if TYPE_CHECKING:
    from sgtools.fixits.verify import MissingCounter

_lock = threading.Lock()
_rulesets: dict[str, tuple[tuple[Any, ...], RuleSet]] = {}
_rule_files: dict[str, Path] = {}
# (rule object ids, keep_globs, parse language) -> (the rules, kept alive so ids stay theirs; the file)
_rule_file_memo: dict[tuple[Any, ...], tuple[list[Rule], Path]] = {}
_MEMO_MAX = 256


# A file modified this recently may be written again within the file system's timestamp tick (a few ms) with
# the same size: its stat alone could hide the second edit, so its content is part of its stamp (git's "racy" rule).
_RACY_NS = 2_000_000_000


def _stamp(path: str, stat: Callable[[], os.stat_result], contents: bool = False) -> tuple[Any, ...]:
    try:
        st = stat()
    except OSError:
        return (path, None)
    if contents or time.time_ns() - st.st_mtime_ns < _RACY_NS:
        try:
            with open(path, "rb") as fh:
                return (path, st.st_mtime_ns, st.st_size, st.st_ino, blake2b(fh.read()).digest())
        except OSError:
            return (path, None)
    return (path, st.st_mtime_ns, st.st_size, st.st_ino)


def tree_signature(files: Iterable[Path], dirs: Iterable[Path], *, contents: bool = False) -> tuple[Any, ...]:
    """Name, mtime, size and inode of every file under `dirs` (atomic writes change the inode): any edit,
    addition or removal of a rule or util file changes it. os.scandir keeps this near a millisecond for
    a few hundred rules, where pathlib's rglob took ten times that.

    A file written in the last 2 s also carries its content's digest (`_RACY_NS`), so the signature of an
    unchanged tree changes once when that window passes: harmless for a cache, not for a key that names a
    process. `contents=True` gives every file its digest, so the signature changes only when a file does."""
    sig: list[Any] = [_stamp(str(p), p.stat, contents) for p in files]
    stack = [str(d) for d in dirs]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as it:
                for entry in it:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        sig.append(_stamp(entry.path, entry.stat, contents))
        except OSError:
            sig.append((top, None))
    sig.sort(key=lambda item: item[0])
    return tuple(sig)


def cached_ruleset(ws: Workspace, cfg: ProjectConfig, engine: Engine) -> RuleSet:
    """`load_ruleset`, kept while no rule, util or config file changed: parsing YAML in Python is the most
    expensive part of a snippet scan otherwise."""
    sig = tree_signature([cfg.path], [*cfg.rule_dirs, *cfg.util_dirs])
    key = f"{ws.root}\0{cfg.path}"
    with _lock:
        hit = _rulesets.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    rs = _without_unusable(ws, load_ruleset(ws, cfg, engine))
    with _lock:
        _rulesets[key] = (sig, rs)
    return rs


def _without_unusable(ws: Workspace, rs: RuleSet) -> RuleSet:
    """A `files`/`ignores` glob ast-grep cannot parse passes the rule checks (they run on stdin, where globs
    are not used) but stops every path scan, and a bad `metadata.inTests` would fail the scan at its first
    finding in test code: such rules become rule errors here, like any broken rule, and the rest run."""
    bad = {id(r): problem for r in rs.rules
           if (problem := glob_problem(r) or testcode.in_tests_problem(r)) is not None}
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


_YAML_UNSAFE = LazyRe("[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]")


def yaml_doc(doc: Mapping[str, Any]) -> str:
    """One rule document as YAML: JSON is YAML, exact and fast; characters YAML readers treat as line
    breaks or refuse are escaped."""
    text = json.dumps(doc, ensure_ascii=False, default=str)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def parse_rule_doc(language: str) -> dict[str, Any]:
    from sgtools.fixits.judge import PARSE_RULE_ID  # only fix-it verification asks: a plain scan never loads judge

    return {"id": PARSE_RULE_ID, "language": language, "severity": "hint", "rule": {"kind": "ERROR"}}


def rule_doc(rule: Rule, *, keep_globs: bool) -> dict[str, Any]:
    doc = dict(rule.data)
    doc["id"] = rule.id  # a document without `id` would take the temp file's name
    if not keep_globs:
        for k in GLOB_KEYS:
            doc.pop(k, None)
    return doc


def scan_rules_file(rules: Sequence[Rule]) -> Path:
    """The rule set of one path scan, globs kept: exactly these rules' documents, in a content-addressed file
    of the user cache (not the temp directory: a CLI scan must not import tempfile for it, and the next CLI
    call finds the file written), never rewritten once there. Memoised like `rule_file`."""
    memo_key = (tuple(id(r) for r in rules), "scan")
    with _lock:
        memo = _rule_file_memo.get(memo_key)
    if memo is not None and memo[0] == list(rules) and _touched(memo[1]):
        return memo[1]
    body = ("\n---\n".join(yaml_doc(rule_doc(r, keep_globs=True)) for r in rules) + "\n").encode("utf-8")
    folder = cache_root() / "scan-rules"
    path = folder / f"rules-{sha256(body).hexdigest()[:32]}.yml"
    if not _touched(path):
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, body)
        _prune(folder, path)
    with _lock:
        if len(_rule_file_memo) > _MEMO_MAX:
            _rule_file_memo.clear()
        _rule_file_memo[memo_key] = (list(rules), path)
    return path


_KEEP_SECONDS = 86_400  # a rule set file older than a day is no scan's (a scan reads its file at its start)


def _touched(path: Path) -> bool:
    """Whether `path` exists, its time set to now: a file in use is never a day old, so never pruned."""
    try:
        os.utime(path)
    except OSError:
        return False
    return True


def _prune(folder: Path, keep: Path) -> None:
    """Remove rule set files of earlier rule versions once they are a day old."""
    now = time.time()
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if entry.path != str(keep) and now - entry.stat().st_mtime > _KEEP_SECONDS:
                    os.unlink(entry.path)
    except OSError:
        pass


def rule_file(rules: Sequence[Rule], *, keep_globs: bool, parse_language: str | None = None) -> Path:
    """A multi-document rule file for `rules` (plus the parse-error rule when `parse_language` is given),
    written once per distinct content. Memoised on the rule objects: dumping a few hundred rules only to
    learn their digest would cost more than the scan."""
    memo_key = (tuple(id(r) for r in rules), keep_globs, parse_language)
    with _lock:
        memo = _rule_file_memo.get(memo_key)
    if memo is not None and memo[0] == list(rules) and memo[1].is_file():
        return memo[1]
    docs = [rule_doc(r, keep_globs=keep_globs) for r in rules]
    if parse_language is not None:
        docs.append(parse_rule_doc(parse_language))
    path = docs_file(docs)
    with _lock:
        if len(_rule_file_memo) > _MEMO_MAX:
            _rule_file_memo.clear()
        _rule_file_memo[memo_key] = (list(rules), path)
    return path


def docs_file(docs: Sequence[Mapping[str, Any]]) -> Path:
    """A multi-document rule file of `docs` in the private temp directory, written once per distinct content."""
    body = "\n---\n".join(yaml_doc(d) for d in docs) + "\n"
    digest = sha256(body.encode("utf-8")).hexdigest()[:32]
    with _lock:
        path = _rule_files.get(digest)
    if path is None or not path.is_file():
        path = tmp_root() / f"rules-{digest}.yml"
        write_atomic(path, body.encode("utf-8"))
    with _lock:
        _rule_files[digest] = path
    return path


def missing_counter(engine: Engine, cwd: Path) -> MissingCounter:
    """Counts tree-sitter's MISSING tokens in a text from ast-grep's CST dump (the text goes in argv, so
    texts over `max_arg_bytes` and custom languages are not counted)."""
    limit = engine.settings.max_arg_bytes

    def count(language: str, text: str) -> int | None:
        if language not in languages.LANGUAGES or not text.strip() or len(text.encode("utf-8")) > limit:
            return None
        try:
            tree, _ = engine.dump_tree(text, language, "cst", cwd=cwd)
        except SgToolsError:
            return None
        if not tree:
            return None
        from sgtools.rules import syntax  # only fix-it verification counts MISSING tokens

        return sum(1 for node, _line in syntax.problem_nodes(tree) if node.startswith("MISSING"))

    return count


# ---- the config of one path scan ------------------------------------------------------------------------------

_configs: dict[tuple[Any, ...], Path] = {}


def scan_config(cfg: ProjectConfig) -> Path:
    """The sgconfig a path scan hands ast-grep (issue 33.2, one rule set per scan): the project's config as
    `load_config` read it, with its utils read once into a private, content-addressed copy, so a util or config
    edited while ast-grep runs cannot give the scan a second rule set (the rules themselves come through the `-r`
    file of `scan_rules_file`). Folders are named by absolute path (engine/configview), the rules folders left
    out, and the copy is made again only when a util's or the config's stamp changes (`tree_signature`)."""
    from sgtools.engine.configview import absolute_view

    key = (str(cfg.path), tree_signature([cfg.path], cfg.util_dirs))
    with _lock:
        hit = _configs.get(key)
    if hit is not None and _touched(hit):
        return hit
    utils: list[tuple[str, bytes]] = []
    for i, folder in enumerate(cfg.util_dirs):
        for path in yaml_files([folder]):
            try:
                utils.append((f"{i}/{path.relative_to(folder).as_posix()}", path.read_bytes()))
            except OSError:
                continue  # gone since it was listed: as ast-grep would not find it either
    view = absolute_view(cfg.root, cfg.raw)
    view["ruleDirs"] = []
    view.pop("testConfigs", None)
    digest = sha256(json.dumps([view, [(n, sha256(b).hexdigest()) for n, b in utils]], sort_keys=True)
                    .encode("utf-8")).hexdigest()[:32]
    home = cache_root() / "scan-config" / f"config-{digest}"
    view["utilDirs"] = [str(home / "utils" / str(i)) for i in range(len(cfg.util_dirs))]
    target = home / "sgconfig.yml"
    if not _touched(target):
        home.mkdir(parents=True, exist_ok=True)
        for i in range(len(cfg.util_dirs)):
            (home / "utils" / str(i)).mkdir(parents=True, exist_ok=True)
        for name, data in utils:
            (home / "utils" / name).parent.mkdir(parents=True, exist_ok=True)
            write_atomic(home / "utils" / name, data)
        write_atomic(target, json.dumps(view, sort_keys=True).encode("utf-8"))  # last: the copy is whole
        _prune_configs(home.parent, home)
    with _lock:
        if len(_configs) > _MEMO_MAX:
            _configs.clear()
        _configs[key] = target
    return target


def _prune_configs(folder: Path, keep: Path) -> None:
    """Remove the copies of earlier configs whose sgconfig.yml no scan touched for a day."""
    import shutil

    now = time.time()
    try:
        entries = [e.path for e in os.scandir(folder) if e.path != str(keep)]
    except OSError:
        return
    for entry in entries:
        for probe in (os.path.join(entry, "sgconfig.yml"), entry):  # a copy being made has no config yet
            try:
                old = now - os.stat(probe).st_mtime > _KEEP_SECONDS
                break
            except OSError:
                old = False
        if old:
            shutil.rmtree(entry, ignore_errors=True)
