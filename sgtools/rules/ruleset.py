"""Load a project's rules one file at a time, so one broken file is reported and never hides the others.

ast-grep aborts a whole scan on a single bad rule or duplicate id. This module finds out which rule
files are good (one project-wide check when everything is fine, a per-file check otherwise, both cached),
and hands the scanner, the rule store and `doctor` the same list of good rules and named errors.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import os
import threading
from pathlib import Path
from typing import Any, NamedTuple

from sgtools.contracts.common import RuleErrorDict
from sgtools.core import yamlio
from sgtools.core.cache import JsonCache
from sgtools.core.digest import sha256
from sgtools.engine import lifecycle, trust
from sgtools.engine.configview import missing_dirs
from sgtools.engine.process import Engine, stderr_message
from sgtools.project.config import ProjectConfig
from sgtools.project.workspace import Workspace

DEFAULT_SEVERITY = "hint"  # what ast-grep assumes when a rule names none
_CHECK_WORKERS = 4
GLOB_KEYS = ("files", "ignores")


class Rule(NamedTuple):
    """One rule document as ast-grep will see it, plus where it lives. Equal and hashed by everything but
    `data` (as the frozen dataclass it was, with `data` out of compare and hash). A NamedTuple: no module on a
    CLI scan's path imports `dataclasses`."""

    id: str
    language: str
    severity: str
    message: str
    note: str | None
    url: str | None
    path: Path
    index: int  # type: ignore[assignment]  # position of the document in a multi-document file (not tuple.index)
    data: dict[str, Any]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rule) and self[:-1] == other[:-1]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:-1])

    @property
    def has_fix(self) -> bool:
        return "fix" in self.data

    @property
    def enabled(self) -> bool:
        return self.severity != "off"


class RuleError(NamedTuple):
    """A rule file that cannot be used, and why (a NamedTuple: every CLI start defines it, and a dataclass costs
    several times more to define)."""

    path: str  # relative to the workspace root
    message: str
    ruleId: str | None = None

    def to_dict(self) -> RuleErrorDict:
        return {"path": self.path, "ruleId": self.ruleId, "message": self.message}


class RuleSet(NamedTuple):
    """The usable rules of a project and why the others are not (a NamedTuple: never changed once built)."""

    rules: list[Rule]
    errors: list[RuleError]
    all_valid: bool  # the project loads in ast-grep as it is

    def by_id(self) -> dict[str, Rule]:
        return {r.id: r for r in self.rules}

    def error_dicts(self) -> list[RuleErrorDict]:
        return [e.to_dict() for e in self.errors]


def parse_rule_docs(text: str | bytes, path: Path) -> list[dict[str, Any]]:
    """The rule documents of one file; raises `yamlio.YamlError` for YAML that is not rules. Bytes (a file as
    read from disk) go through the persistent parse cache."""
    loaded = yamlio.load_all_cached(text) if isinstance(text, bytes) else yamlio.load_all(text)
    docs = [d for d in loaded if d is not None]
    for d in docs:
        if not isinstance(d, dict):
            raise yamlio.YamlError("a rule document must be a mapping with `id`, `language` and `rule`")
    return docs


def rule_from_doc(doc: dict[str, Any], path: Path, index: int) -> Rule:
    rid = doc.get("id")
    sev = doc.get("severity", DEFAULT_SEVERITY)
    return Rule(
        id=str(rid) if rid is not None else path.stem,
        language=str(doc.get("language", "")),
        severity=str(sev) if sev is not None else DEFAULT_SEVERITY,
        message=str(doc.get("message") or ""),
        note=str(doc["note"]) if doc.get("note") is not None else None,
        url=str(doc["url"]) if doc.get("url") is not None else None,
        path=path,
        index=index,
        data=doc,
    )


def rule_applies(rule: Rule, rel_path: str | None) -> bool:
    """Would ast-grep run `rule` on the file at `rel_path` (relative to the sgconfig directory)?
    With no path (an anonymous snippet), rules limited to some `files` are left out: nothing says the
    snippet belongs there."""
    files = rule.data.get("files")
    ignores = rule.data.get("ignores")
    if rel_path is None:
        return files is None
    if files is None and ignores is None:
        return True
    from sgtools.core.globs import glob_list, glob_match  # its matcher classes only load for rules with globs

    if ignores is not None and any(glob_match(g, rel_path) for g in glob_list(ignores)):
        return False
    if files is not None:
        return any(glob_match(g, rel_path) for g in glob_list(files))
    return True


def glob_problem(rule: Rule) -> str | None:
    """Why ast-grep would refuse the project over this rule's `files`/`ignores` globs, or None."""
    if all(rule.data.get(key) is None for key in GLOB_KEYS):
        return None
    from sgtools.core.globs import compile_glob, glob_list

    for key in GLOB_KEYS:
        for glob in glob_list(rule.data.get(key)):
            if compile_glob(glob) is None:
                return (f"rejected by ast-grep: `{key}` holds {glob!r}, which is not a valid glob; ast-grep refuses "
                        "the whole project over it (exit 9). Fix or remove that glob.")
    return None


def private_copy(data: bytes, name: str) -> Path:
    """`data` as `name` in a content-addressed folder of the private temp directory (engine/texts.py), written
    once: what ast-grep says of it names the file as the user knows it."""
    from sgtools.core.atomic import write_atomic
    from sgtools.engine.tempdirs import tmp_root

    path = tmp_root() / f"rulecheck-{sha256(data).hexdigest()[:32]}" / name
    if not path.is_file():
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, data)
    return path


def _check_project(engine: Engine, cfg: ProjectConfig, contents: dict[Path, bytes | None], digest: str) -> bool:
    """Whether ast-grep loads the project as `contents` holds it: checked on a private copy of the config, util
    and rule files (their layout under the sgconfig directory kept), never on the files as they are now, which a
    save may have changed (or caught half-written) since they were read. A project whose copy cannot stand in
    for it (custom languages' library paths, a rule directory outside the config's) is not "known": each rule
    file is then checked from its own private copy."""
    import shutil

    from sgtools.core.atomic import write_atomic
    from sgtools.engine.tempdirs import tmp_root

    if b"customLanguages" in (contents[cfg.path] or b""):
        return False
    base = tmp_root() / f"project-{digest[:32]}-{threading.get_ident()}"
    try:
        for folder in (*cfg.rule_dirs, *cfg.util_dirs):
            if not folder.is_relative_to(cfg.root):
                return False
            if folder.is_dir():  # a missing one stays missing: ast-grep refuses it as it would the project's
                (base / folder.relative_to(cfg.root)).mkdir(parents=True, exist_ok=True)
        for path, data in contents.items():
            if data is None or not path.is_relative_to(cfg.root):
                return False
            copy = base / path.relative_to(cfg.root)
            copy.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(copy, data)
        return engine.check_project(base / cfg.path.name, cwd=base).returncode == 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _utf8_name(path: Path) -> bool:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _digest(contents: dict[Path, bytes | None], paths: list[Path]) -> str:
    h = sha256()
    for p in paths:
        data = contents.get(p)
        h.update(os.fsencode(p) + b"\0" + (data if data is not None else b"\0missing") + b"\0")
    return h.hexdigest()


# Check outcomes by content digest, in memory and on disk, so that a fresh CLI process does not re-check a
# project it has seen (parsed YAML is cached the same way, by `yamlio.load_all_cached`).
_cache_lock = threading.Lock()
_checks = JsonCache("rulechecks-v1")


def _engine_salt(engine: Engine, config: Path) -> str:
    # Whether native parsers load changes which rules ast-grep accepts, so it is part of the key.
    # So is which declared folders exist: ast-grep gets a config without the missing ones (engine/configview.py),
    # and a check cached while they existed must not answer for a clone without them.
    flags = ",".join(trust.flag(config, engine.custom_languages)) + repr(missing_dirs(config))
    try:
        st = engine.binary.stat()
        return f"{engine.binary}:{st.st_size}:{st.st_mtime_ns}:{flags}:"
    except OSError:
        return f"{engine.binary}:{flags}:"


def untrusted_languages(config: Path, engine: Engine) -> dict[str, str]:
    """Custom languages whose parser will not load for this engine, each with why and what to do."""
    if engine.custom_languages == "allow":
        return {}
    found = trust.status(config)
    if engine.custom_languages == "auto" and found and all(s["trusted"] for s in found):
        return {}
    why = {"untrusted": "is not trusted yet", "changed": "changed since it was trusted",
           "missing": "does not exist", "trusted": "is trusted, but another library of this config is not"}
    return {s["language"]: (
        f"custom language `{s['language']}` is not loaded: its parser library {s['library']} {why[s['state']]}. "
        "Loading a parser library runs its native code; review it, then run `sgtools trust` in the project "
        "(the MCP server: restart it with --trust-custom-languages)") for s in found}


def load_ruleset(ws: Workspace, cfg: ProjectConfig, engine: Engine, *, validate: bool = True) -> RuleSet:
    rule_files = cfg.rule_files()
    util_files = cfg.util_files()
    contents = {p: _read(p) for p in (cfg.path, *util_files, *rule_files)}  # each file is read once
    # The engine is part of a check's outcome: another ast-grep build may accept or refuse other rules.
    salt = _engine_salt(engine, cfg.path)
    blocked = untrusted_languages(cfg.path, engine) if b"customLanguages" in (contents[cfg.path] or b"") else {}
    utils_digest = salt + _digest(contents, [cfg.path, *util_files])
    files_digest = _digest(contents, [cfg.path, *util_files, *rule_files])
    project_digest = salt + files_digest

    errors: list[RuleError] = []
    per_file = _parse_files(ws, rule_files, contents, blocked, errors)
    if not validate:
        return RuleSet([r for file_rules in per_file.values() for r in file_rules], errors, all_valid=not errors)

    with _cache_lock:
        known = _checks.get("projectOk", project_digest)
    if not isinstance(known, bool):
        known = _check_project(engine, cfg, contents, files_digest)
        with _cache_lock:
            _checks.put("projectOk", project_digest, known)
    if known and not errors:
        return RuleSet([r for file_rules in per_file.values() for r in file_rules], errors, all_valid=True)

    def check(path: Path) -> str | None:
        key = sha256((utils_digest + _digest(contents, [path])).encode()).hexdigest()
        with _cache_lock:
            if _checks.has("fileChecks", key):
                stored = _checks.get("fileChecks", key)
                return stored if isinstance(stored, str) else None
        # The bytes read above, not the file as it is now: a rule saved during the load must not be judged by
        # its other version (and that verdict cached under this one's digest).
        copy = private_copy(contents[path] or b"", path.name)
        result = engine.check_rule(copy, config=cfg.path, cwd=ws.root)
        problem = None
        if result.returncode != 0:
            headline, causes = stderr_message(result.stderr)
            problem = ("; ".join(causes) if causes else headline).replace(str(copy), _shown(ws, path))
        with _cache_lock:
            _checks.put("fileChecks", key, problem)
        return problem

    paths = list(per_file)
    from concurrent.futures import ThreadPoolExecutor  # ~7 ms to import; only a project with a broken rule pays

    with ThreadPoolExecutor(max_workers=_CHECK_WORKERS, **lifecycle.pool_args()) as pool:
        problems = dict(zip(paths, pool.map(check, paths), strict=True))
    return RuleSet(_good_rules(ws, per_file, problems, errors), errors, all_valid=False)


def _shown(ws: Workspace, path: Path) -> str:
    """A rule file as errors name it: relative to the workspace, or whole when the rules live elsewhere (the
    bundled rules of a project without sgconfig.yml)."""
    return ws.relative(path) if path.is_relative_to(ws.root) else path.as_posix()


def _parse_files(ws: Workspace, rule_files: list[Path], contents: dict[Path, bytes | None],
                 blocked: dict[str, str], errors: list[RuleError]) -> dict[Path, list[Rule]]:
    """Each readable rule file's rules; the others become `errors` (unreadable, not YAML, untrusted language)."""
    per_file: dict[Path, list[Rule]] = {}
    for path in rule_files:
        data = contents[path]
        if not _utf8_name(path):
            errors.append(RuleError(_shown(ws, path), "the file name is not valid UTF-8, which ast-grep cannot load "
                                                       "(it aborts): rename the file"))
            continue
        try:
            if data is None:
                raise OSError("the file cannot be read")
            docs = parse_rule_docs(data, path)
        except (yamlio.YamlError, UnicodeDecodeError, OSError) as exc:
            errors.append(RuleError(_shown(ws, path), f"cannot be read as YAML: {exc}"))
            continue
        file_rules = [rule_from_doc(d, path, i) for i, d in enumerate(docs)]
        refused = next((blocked[r.language] for r in file_rules if r.language in blocked), None)
        if refused is not None:
            errors.append(RuleError(_shown(ws, path), refused, file_rules[0].id if len(file_rules) == 1 else None))
            continue
        per_file[path] = file_rules
    return per_file


def _good_rules(ws: Workspace, per_file: dict[Path, list[Rule]], problems: dict[Path, str | None],
                errors: list[RuleError]) -> list[Rule]:
    """The rules of the files ast-grep accepted, first definition of an id winning; the rest become errors."""
    rules: list[Rule] = []
    seen: dict[str, Path] = {}
    for path, file_rules in per_file.items():
        problem = problems[path]
        if problem is not None:
            ids = [r.id for r in file_rules]
            errors.append(RuleError(_shown(ws, path), f"rejected by ast-grep: {problem}",
                                    ids[0] if len(ids) == 1 else None))
            continue
        clash = next((r.id for r in file_rules if r.id in seen), None)
        if clash is not None:
            errors.append(RuleError(_shown(ws, path),
                                    f"duplicate rule id `{clash}`, already defined in {_shown(ws, seen[clash])}; "
                                    "give one of them another id", clash))
            continue
        for r in file_rules:
            seen[r.id] = path
        rules.extend(file_rules)
    return rules
