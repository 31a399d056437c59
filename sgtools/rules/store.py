"""The project's rules as a store: add or update, remove, list and explain rules, with every check before any write.

An agent writes rules blind, and ast-grep refuses a whole project over one bad rule or one duplicate id. So a
candidate rule goes through every check first, cheapest first (YAML, our JSON Schema, id, language, the real
binary on a temp copy, id collisions with the project, the examples), and only a rule that passed them all
is written, atomically and under the workspace lock. A refused call leaves every byte as it was.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import itertools
import json
import re
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruamel.yaml.comments import CommentedMap, TaggedScalar
from ruamel.yaml.scalarbool import ScalarBoolean
from ruamel.yaml.scalarstring import LiteralScalarString

from sgtools.community.migrate import RESERVED_UTIL_CHARS
from sgtools.core import languages, yamlio
from sgtools.core.errors import BadInput, Conflict, NotFound, RuleInvalid, SgToolsError, TooLarge
from sgtools.core.settings import get_settings
from sgtools.engine.process import NO_CONFIG, Engine, TestReport, stderr_message
from sgtools.project import config as project
from sgtools.project.config import ProjectConfig
from sgtools.project.workspace import Workspace, check_rule_id
from sgtools.rules.ruleset import DEFAULT_SEVERITY, load_ruleset, parse_rule_docs

if TYPE_CHECKING:  # jsonschema costs ~50 ms to import: only a validation pays it
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SCHEMA_PATH = Path(__file__).with_name("rule_schema.json")
TEST_SUFFIX = "-test.yml"
SNAPSHOT_SUFFIX = "-snapshot.yml"
_DOC_START = re.compile(r"^---(?=[ \t\r]|$)", re.MULTILINE)


# ---- public API -----------------------------------------------------------------------------------


def add_or_update_rule(
    ws: Workspace,
    engine: Engine,
    rule_id: str,
    rule_yaml: str,
    valid_examples: list[str] | None = None,
    invalid_examples: list[str] | None = None,
    *,
    metadata: dict[str, Any] | None = None,
    overwrite: bool = True,
) -> dict[str, Any]:
    cfg = project.load(ws)
    _check_inputs(rule_id, rule_yaml, valid_examples, invalid_examples, metadata)
    with ws.lock():
        cand = _prepare(ws, engine, cfg, rule_id, rule_yaml, valid_examples, invalid_examples,
                        metadata=metadata, overwrite=overwrite)
        assert cand.target is not None
        writes: dict[Path, str] = {cand.target.path: cand.target.new_file_text(cand.text)}
        test_path = _test_file_for(cfg, rule_id) if cand.examples_given else None
        if test_path is not None:
            writes[test_path] = _test_file_text(rule_id, cand.valid, cand.invalid)
        _write_all(ws, writes)
        _prime("rules", cand.target.path, writes[cand.target.path], cand.target.ids_after(rule_id))
        if test_path is not None:
            _prime("tests", test_path, writes[test_path], [rule_id])
        if test_path is None:
            test_path = _existing_test_file(cfg, rule_id)
        test_result = _run_tests(ws, engine, cfg, rule_id) if test_path is not None else None
    rel = ws.relative(cand.target.path)
    verb = "Updated" if cand.target.exists else "Created"
    message = f"{verb} rule {rule_id} in {rel}."
    if cand.examples_given and test_path is None:
        message += " The examples were checked but not saved: sgconfig.yml names no testConfigs."
    if test_result is not None:
        message += " Tests " + ("passed." if test_result["passed"] else "FAILED: " + test_result["summary"])
    if cand.warnings:
        message += " Warnings: " + "; ".join(cand.warnings)
    return {
        "success": True,
        "message": message,
        "path": rel,
        "created": not cand.target.exists,
        "testPath": ws.relative(test_path) if test_path is not None else None,
        "testResult": test_result,
        "warnings": cand.warnings,
    }


def validate_rule(
    ws: Workspace,
    engine: Engine,
    rule_id: str,
    rule_yaml: str,
    valid_examples: list[str] | None = None,
    invalid_examples: list[str] | None = None,
) -> dict[str, Any]:
    """Every check `add_or_update_rule` makes, writing nothing. Without sgconfig.yml the rule is checked in
    isolation (no global utils, no id collisions), and a warning says so."""
    _check_inputs(rule_id, rule_yaml, valid_examples, invalid_examples, None)
    cfg = project.try_load(ws)
    cand = _prepare(ws, engine, cfg, rule_id, rule_yaml, valid_examples, invalid_examples,
                    metadata=None, overwrite=True)
    return {"valid": True, "rule": cand.data, "yaml": cand.text, "warnings": cand.warnings}


def remove_rule(ws: Workspace, engine: Engine, rule_id: str) -> dict[str, Any]:
    """The rule's document (the whole file when it is the only one), its tests and its snapshots."""
    check_rule_id(rule_id)
    cfg = project.load(ws)
    with ws.lock():
        places = _project_ids(cfg).get(rule_id, [])
        if not places:
            raise NotFound(_unknown_id_message(cfg, rule_id))
        # Edit each file once: drop its documents with this id, or the whole file when nothing else is in it.
        by_file: dict[Path, list[int]] = {}
        for path, index in places:
            by_file.setdefault(path, []).append(index)
        writes: dict[Path, str | None] = {}
        for path, indexes in by_file.items():
            text = path.read_text(encoding="utf-8")
            doc_file = _DocFile.parse(text)
            if len(doc_file.doc_segments) == len(indexes):
                writes[path] = None
            else:
                writes[path] = doc_file.without(sorted(indexes))
        for path in _test_files_for(cfg, rule_id):
            tests = _DocFile.parse(path.read_text(encoding="utf-8"))
            mine = [i for i, d in enumerate(tests.docs) if str(d.get("id")) == rule_id]
            writes[path] = None if len(mine) == len(tests.docs) else tests.without(mine)
        for test_dir in cfg.test_dirs:
            named = test_dir / f"{rule_id}{TEST_SUFFIX}"
            if named.is_file() and named not in writes and not _test_file_ids(named):
                writes[named] = None  # named after the rule but unreadable: it would break `ast-grep test`
        for snap_dir in cfg.snapshot_dirs:
            snap = snap_dir / f"{rule_id}{SNAPSHOT_SUFFIX}"
            if snap.is_file():
                writes[snap] = None
        _write_all(ws, writes)
        removed = [ws.relative(p) for p in writes]
    kept = [ws.relative(p) for p, new in writes.items() if new is not None]
    message = f"Removed rule {rule_id}: " + ", ".join(removed) + "."
    if kept:
        message += " Other rules in " + ", ".join(kept) + " were kept."
    return {"success": True, "message": message, "removed": removed}


def list_rules(ws: Workspace, engine: Engine, language: str | None = None) -> dict[str, Any]:
    cfg = project.load(ws)
    want = _language_key(cfg, language) if language else None
    if language and want is None:
        raise BadInput(_unknown_language_message(cfg, language))
    ruleset = load_ruleset(ws, cfg, engine)
    tested = _test_ids(cfg)
    rules = []
    for r in sorted(ruleset.rules, key=lambda r: (r.id, str(r.path), r.index)):
        if want is not None and _language_key(cfg, r.language) != want:
            continue
        rules.append({
            "id": r.id, "language": r.language, "severity": r.severity, "message": r.message,
            "path": ws.relative(r.path), "hasFix": r.has_fix and r.data.get("fix") is not None,
            "hasTests": r.id in tested,
        })
    return {"rules": rules, "ruleErrors": ruleset.error_dicts()}


def explain_rule(ws: Workspace, engine: Engine, rule_id: str) -> dict[str, Any]:
    check_rule_id(rule_id)
    cfg = project.load(ws)
    places = _project_ids(cfg).get(rule_id, [])
    if not places:
        raise NotFound(_unknown_id_message(cfg, rule_id))
    path, index = places[0]
    doc_file = _DocFile.parse(path.read_text(encoding="utf-8"))
    data = doc_file.docs[index]
    ruleset = load_ruleset(ws, cfg, engine)
    rel = ws.relative(path)
    problems = [e.message for e in ruleset.errors if e.path == rel]
    if len(places) > 1:
        problems.append(f"rule id {rule_id} is defined {len(places)} times: "
                        + ", ".join(ws.relative(p) for p, _ in places))
    examples: dict[str, list[str]] = {"valid": [], "invalid": []}
    for test_path in _test_files_for(cfg, rule_id):
        for doc in _load_docs_quietly(test_path):
            if isinstance(doc, dict) and str(doc.get("id")) == rule_id:
                for key in ("valid", "invalid"):
                    cases = doc.get(key)
                    if isinstance(cases, list):
                        examples[key].extend(str(c) for c in cases if c is not None)
    sev = data.get("severity")
    return {
        "id": rule_id,
        "language": str(data.get("language", "")),
        "severity": str(sev) if sev is not None else DEFAULT_SEVERITY,
        "message": str(data.get("message") or ""),
        "note": _text_or_none(data.get("note")),
        "url": _text_or_none(data.get("url")),
        "fix": _jsonable(data.get("fix")),
        "yaml": doc_file.doc_text(index),
        "path": rel,
        "examples": examples,
        "source": _source_of(data),
        "metadata": _jsonable(data.get("metadata")),
        "problems": problems,
    }


# ---- inputs -----------------------------------------------------------------------------------------


def _check_inputs(rule_id: object, rule_yaml: object, valid: object, invalid: object, metadata: object) -> None:
    check_rule_id(rule_id)
    check_draft(rule_yaml, valid, invalid)
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
            raise BadInput("metadata must be a mapping with string keys.")
        try:
            json.dumps(metadata)
        except (TypeError, ValueError):
            raise BadInput("metadata must hold plain JSON values (strings, numbers, lists, mappings).") from None


def check_draft(rule_yaml: object, valid: object, invalid: object) -> None:
    """Type and size checks of a draft rule and its examples, before any parsing (shared with test_rule)."""
    settings = get_settings()
    if not isinstance(rule_yaml, str):
        raise BadInput(f"rule_yaml must be a string of YAML, got {type(rule_yaml).__name__}. Pass the rule's text.")
    size = len(rule_yaml.encode("utf-8", "surrogatepass"))
    if size > settings.max_rule_bytes:
        raise TooLarge(f"rule_yaml is {size} bytes, over the {settings.max_rule_bytes}-byte limit. "
                       "A rule is a few KB; split it or raise SGTOOLS_MAX_RULE_BYTES.")
    if "\x00" in rule_yaml:
        raise BadInput("rule_yaml contains NUL bytes: it looks like binary data, not YAML. Pass the rule's YAML text.")
    for name, examples in (("valid_examples", valid), ("invalid_examples", invalid)):
        if examples is None:
            continue
        if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
            raise BadInput(f"{name} must be a list of code strings. Pass e.g. [\"print(1)\"].")
        if len(examples) > settings.max_examples:
            raise TooLarge(f"{name} has {len(examples)} items, over the limit of {settings.max_examples}. "
                           "Keep the most telling ones.")
        for i, code in enumerate(examples):
            if len(code.encode("utf-8", "surrogatepass")) > settings.max_code_bytes:
                raise TooLarge(f"{name}[{i}] is over {settings.max_code_bytes} bytes. Use a shorter snippet.")
            if "\x00" in code:
                raise BadInput(f"{name}[{i}] contains NUL bytes. Pass source code text.")


# ---- the checks -------------------------------------------------------------------------------------


@dataclass
class _Target:
    """Where the rule will be written, and what that file holds now."""

    path: Path
    exists: bool  # the rule already exists there (an update)
    doc_file: _DocFile | None = None  # the file's current documents, when it holds more than this rule
    index: int = 0

    def ids_after(self, rule_id: str) -> list[str]:
        if self.doc_file is None:
            return [rule_id]
        ids = [_doc_id(d, self.path) for d in self.doc_file.docs]
        ids[self.index] = rule_id
        return ids

    def new_file_text(self, rule_text: str) -> str:
        if self.doc_file is None:
            return rule_text
        return self.doc_file.replace(self.index, rule_text)


@dataclass
class _Candidate:
    rule_id: str
    text: str  # canonical YAML, exactly the bytes that get written
    data: dict[str, Any]
    valid: list[str]
    invalid: list[str]
    examples_given: bool
    warnings: list[str] = field(default_factory=list)
    target: _Target | None = None


def _prepare(
    ws: Workspace, engine: Engine, cfg: ProjectConfig | None, rule_id: str, rule_yaml: str,
    valid: list[str] | None, invalid: list[str] | None, *, metadata: dict[str, Any] | None, overwrite: bool,
) -> _Candidate:
    warnings: list[str] = []
    # 1. YAML: one document, a mapping.
    doc = parse_one(rule_yaml)
    declared = doc.get("id")
    if metadata:
        meta = doc.get("metadata")
        if meta is None:
            meta = CommentedMap()
            doc["metadata"] = meta
        if isinstance(meta, dict):
            meta.update(metadata)
    if declared is None:
        doc.insert(0, "id", rule_id)
    text = yamlio.dump_rt(doc)
    data = plain_data(doc)
    # 2. Structure, with our schema.
    problems = schema_problems(data)
    if problems:
        raise RuleInvalid("The rule's structure is invalid: " + "; ".join(problems) + " (fix these, then retry)",
                          check="schema", problems=problems)
    # 3. The id.
    if declared is not None and str(declared) != rule_id:
        raise RuleInvalid(f"id: the rule says `id: {declared}` but rule_id is `{rule_id}`. Make them the same, "
                          "or leave `id` out of the YAML and it is filled in.", check="id")
    # 4. The language.
    if _language_key(cfg, str(data["language"])) is None:
        raise RuleInvalid("language: " + _unknown_language_message(cfg, str(data["language"])), check="language")
    _warn_about(data, warnings)
    config: Path | str = cfg.path if cfg is not None else NO_CONFIG
    if cfg is None:
        warnings.append("no sgconfig.yml: checked in isolation, without global utils or id collisions")
    target = None
    with tempfile.TemporaryDirectory(prefix="sgtools-rule-") as tmp:
        rule_file = Path(tmp) / f"{rule_id}.yml"
        rule_file.write_text(text, encoding="utf-8")
        # 5. The real binary compiles it (with the project's utils when there is a project).
        compile_rule(ws, engine, config, rule_file, rule_yaml, Path(tmp))
        # 6. The project still loads: no duplicate id, no file clobbered.
        if cfg is not None:
            target = _choose_target(ws, cfg, rule_id, overwrite, warnings)
        # 7. The examples behave as claimed.
        _check_examples(ws, engine, config, rule_file, rule_id, valid or [], invalid or [], data)
    return _Candidate(rule_id, text, data, list(valid or []), list(invalid or []),
                      examples_given=bool(valid or invalid), warnings=warnings, target=target)


def parse_one(rule_yaml: str) -> Any:
    """The round-trip document (comments kept), parsed once: ruamel is pure Python and a big rule costs
    milliseconds per parse. The node budget and depth cap of `yamlio.check_shape` still apply."""
    docs: list[Any] = []
    try:
        if rule_yaml.strip():
            try:
                doc = yamlio.load_rt(rule_yaml)
            except yamlio.YamlError as exc:
                if "another document" not in exc.problem:
                    raise
                docs = [d for d in yamlio.load_all(rule_yaml) if d is not None]
            else:
                yamlio.check_shape(doc)
                if isinstance(doc, CommentedMap):
                    return doc
                docs = [] if doc is None else [doc]
    except yamlio.YamlError as exc:
        if any(word in exc.problem for word in ("nested", "expands to more than", "limit")):
            raise TooLarge(f"rule_yaml is refused: {exc}. A real rule is small and shallow; simplify it.",
                           check="yaml") from None
        hint = ""
        if "mapping values are not allowed" in exc.problem:
            hint = " A value containing `: ` (common in patterns such as `def $F(): $$$`) must be quoted."
        elif "\\t" in exc.problem or "\t" in exc.problem:
            hint = " YAML indentation must use spaces, not tabs."
        raise RuleInvalid(f"rule_yaml is not valid YAML: {exc}.{hint} Fix the YAML and retry.", check="yaml",
                          line=exc.line, column=exc.column) from None
    except RecursionError:
        raise TooLarge("rule_yaml is nested too deeply. A real rule is small and shallow; simplify it.",
                       check="yaml") from None
    if not docs:
        raise RuleInvalid("rule_yaml is empty. Pass a rule with at least `language` and `rule`.", check="yaml")
    if len(docs) > 1:
        raise RuleInvalid(f"rule_yaml holds {len(docs)} YAML documents (separated by `---`); pass one rule per "
                          "call.", check="yaml")
    raise RuleInvalid(f"rule_yaml must be a mapping with `id`, `language` and `rule`, got "
                      f"{_type_name(docs[0])}.", check="yaml")


def compile_rule(ws: Workspace, engine: Engine, config: Path | str, rule_file: Path, original: str,
                 tmp: Path) -> None:
    result = engine.check_rule(rule_file, config=config, cwd=ws.root)
    if result.returncode == 0:
        return
    headline, causes = stderr_message(result.stderr)
    if not (headline.startswith("Cannot parse rule") and rule_file.name in headline):
        # ast-grep failed before it got to the rule: the project's own config or utils are broken.
        raise RuleInvalid(f"ast-grep could not load the project to check the rule: {headline}"
                          + (": " + "; ".join(causes) if causes else "")
                          + ". Fix sgconfig.yml or the util files first (see list_rules ruleErrors).",
                          check="project")
    detail = _join_causes(causes)
    if any(re.search(r"line \d+", c) for c in causes):
        # Line numbers refer to the normalised text; ask the binary about the text as given, for positions
        # the caller can find.
        original_file = tmp / "as-given.yml"
        original_file.write_text(original, encoding="utf-8")
        again = engine.check_rule(original_file, config=config, cwd=ws.root)
        if again.returncode != 0:
            _, causes = stderr_message(again.stderr)
            detail = _join_causes(causes)
    raise RuleInvalid(f"ast-grep 0.51 rejects the rule: {detail or headline}. {_advice(detail)}",
                      check="engine", causes=causes)


def _join_causes(causes: list[str]) -> str:
    """ast-grep's cause chain without its generic first link and the excerpt-bearing duplicate."""
    keep = [c.rstrip(". ") for c in causes if not c.startswith(("Fail to parse yaml as", "error: line"))]
    return "; ".join(dict.fromkeys(keep))


_ADVICE = (
    ("Rule must specify a set of AST kinds", "The pattern is not one complete piece of code: complete it, quote "
     "it in YAML, or use a pattern object with `context` and `selector`, or add `kind`."),
    ("Multiple AST nodes", "A pattern must be one node: split it with `all`/`has`, or use a pattern object with "
     "`context` and `selector`."),
    ("No AST root", "The pattern is empty: give code to match."),
    ("Undefined meta var", "Bind that metavariable in `rule` (e.g. in its pattern) or remove it from fix/transform."),
    ("invalid kind", "Use a node kind of this language; dump_syntax_tree shows the kinds."),
    ("is invalid", "Use a node kind of this language; dump_syntax_tree shows the kinds."),
    ("reserved characters", "Rename the util without ( ) , = and update its `matches:` references."),
    ("is not defined", "Define that util under `utils:` or in a util file of utilDirs, or fix the `matches:` name."),
    ("regex parse error", "Fix the regular expression (Rust regex syntax)."),
    ("unknown field", "Remove or rename that key; metadata belongs under `metadata:`."),
    ("positive matcher", "Give the rule at least one of pattern, kind, regex, nthChild, range, matches."),
)


def _advice(detail: str) -> str:
    return next((text for needle, text in _ADVICE if needle in detail), "Fix the rule and retry.")


def _choose_target(ws: Workspace, cfg: ProjectConfig, rule_id: str, overwrite: bool, warnings: list[str]) -> _Target:
    unreadable: list[Path] = []
    places = _project_ids(cfg, unreadable).get(rule_id, [])
    if unreadable:
        warnings.append("rule files that cannot be read were not checked for this id: "
                        + ", ".join(ws.relative(p) for p in unreadable))
    if len(places) > 1:
        where = ", ".join(ws.relative(p) for p, _ in places)
        raise Conflict(f"Rule id {rule_id} is already defined {len(places)} times ({where}); ast-grep refuses a "
                       "project with duplicate ids. Remove the duplicates (remove_rule) first.", check="project")
    if places:
        path, index = places[0]
        if not overwrite:
            raise Conflict(f"Rule {rule_id} already exists in {ws.relative(path)}. Pass overwrite=true to replace "
                           "it, or choose another id.", check="project")
        doc_file = _DocFile.parse(path.read_text(encoding="utf-8"))
        if len(doc_file.doc_segments) == 1:
            return _Target(path, exists=True)
        return _Target(path, exists=True, doc_file=doc_file, index=index)
    path = cfg.first_rule_dir / f"{rule_id}.yml"
    if path.exists():
        others = _file_ids(path)
        if others is None and not overwrite:
            raise Conflict(f"{ws.relative(path)} exists but cannot be read as rules. Pass overwrite=true to replace "
                           "it, or fix or remove it first.", check="project")
        if others:
            raise Conflict(f"{ws.relative(path)} already holds rule(s) {', '.join(others)}, not {rule_id}; writing "
                           f"would replace them. Remove or rename that file, or use the id {others[0]}.",
                           check="project")
    return _Target(path, exists=False)


def _check_examples(ws: Workspace, engine: Engine, config: Path | str, rule_file: Path, rule_id: str,
                    valid: list[str], invalid: list[str], data: dict[str, Any]) -> None:
    cases = [(False, i, c) for i, c in enumerate(valid)] + [(True, i, c) for i, c in enumerate(invalid)]
    if not cases:
        return

    def hits(code: str) -> list[dict[str, Any]]:
        found = engine.scan(config=config, cwd=ws.root, rule_file=rule_file, stdin=code.encode("utf-8"))
        return [m for m in found if m.get("ruleId", rule_id) == rule_id]

    with ThreadPoolExecutor(max_workers=max(1, get_settings().rule_check_workers)) as pool:
        results = list(pool.map(hits, [c for _, _, c in cases]))
    failures: list[str] = []
    for (should_match, i, code), found in zip(cases, results, strict=True):
        if should_match and not found:
            failures.append(f"invalid_examples[{i}] is not matched: {snip(code)}")
        elif not should_match and found:
            first = found[0]
            line = first.get("range", {}).get("start", {}).get("line", 0) + 1
            failures.append(f"valid_examples[{i}] is matched at line {line} (`{snip(first.get('text', ''))}`)")
    if failures:
        raise RuleInvalid("The examples contradict the rule: " + "; ".join(failures)
                          + ". Fix the rule or the examples.", check="examples", failures=failures)


def _warn_about(data: dict[str, Any], warnings: list[str]) -> None:
    if "severity" not in data:
        warnings.append("no severity: ast-grep reports it as `hint`")
    elif data["severity"] == "off":
        warnings.append("severity is `off`: ast-grep neither scans nor tests with this rule until it gets another")
    if not data.get("message"):
        warnings.append("no message: findings will have an empty message")


# ---- the schema -------------------------------------------------------------------------------------


@functools.cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_problems(data: Any, limit: int | None = None) -> list[str]:
    """Every structural problem, each naming its JSON path and how to fix it."""
    cap = get_settings().max_reported_problems if limit is None else limit
    problems: list[str] = []
    for err in sorted(_validator().iter_errors(data), key=lambda e: _path(e.absolute_path)):
        for text in _describe(err):
            if text not in problems:
                problems.append(text)
    if len(problems) > cap:
        problems = [*problems[:cap], f"... and {len(problems) - cap} more"]
    return problems


def _describe(err: ValidationError) -> list[str]:
    if err.validator in ("anyOf", "oneOf") and err.context:
        if all(e.validator in ("type", "enum") and e.absolute_path == err.absolute_path for e in err.context):
            words: list[str] = []
            for e in err.context:
                values = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
                if e.validator == "enum":
                    words.append(" or ".join(repr(v) for v in values if v is not None))
                else:
                    words.extend(_TYPE_WORDS.get(str(v), str(v)) for v in values if v != "null")
            where = _path(err.absolute_path)
            inst = err.instance
            quote = _quote_hint(inst) if "a string" in words else ""
            return [f"{where}: expected {' or '.join(dict.fromkeys(words))}, got {_type_name(inst)}{quote}"]
        return _describe(_best(err.context, err))
    where = _path(err.absolute_path)
    prefix = f"{where}: " if where else ""
    inst = err.instance
    if "propertyNames" in err.schema_path:
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", str(inst)).strip("-") or "util"
        return [f"{where}.{inst}: util id contains characters ast-grep 0.51 reserves (any of "
                f"{' '.join(sorted(RESERVED_UTIL_CHARS))}); rename it (e.g. `{slug}`) and update its `matches:` "
                "references"]
    if err.validator == "additionalProperties" and isinstance(inst, dict):
        allowed = sorted((err.schema.get("properties") or {}).keys())
        out = []
        for key in inst:
            if key in allowed:
                continue
            close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]}?" if close else "allowed: " + ", ".join(allowed)
            if not where and not close:
                hint = "move extra information under `metadata:`; allowed: " + ", ".join(allowed)
            elif key in ("stopBy", "field") and "stopBy" not in allowed:
                hint = f"`{key}` belongs inside a relational rule (inside, has, precedes, follows)"
            out.append(f"{where + '.' if where else ''}{key}: unknown key; {hint}")
        return out
    if err.validator == "required" and isinstance(inst, dict):
        missing = [k for k in err.validator_value if k not in inst]
        return [f"{where + '.' if where else ''}{k}: required key is missing" for k in missing]
    if err.validator == "type":
        want = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        names = " or ".join(_TYPE_WORDS.get(str(t), str(t)) for t in want if t != "null")
        quote = _quote_hint(inst) if "string" in want else ""
        return [f"{prefix}expected {names}, got {_type_name(inst)}{quote}"]
    if err.validator == "enum":
        options = ", ".join(str(v) for v in err.validator_value if v is not None)
        close = difflib.get_close_matches(str(inst), [str(v) for v in err.validator_value if v is not None], n=1)
        return [f"{prefix}{inst!r} is not one of {options}" + (f"; did you mean {close[0]}?" if close else "")]
    if err.validator == "minLength":
        return [f"{prefix}must not be empty"]
    if err.validator == "minimum":
        return [f"{prefix}must be {err.validator_value} or more"]
    if err.validator in ("maxProperties", "minProperties") and where.startswith(("transform", "rewriters")):
        return [f"{prefix}a transformation needs exactly one of substring, replace, convert, rewrite"]
    return [f"{prefix}{err.message}"]


def _quote_hint(value: Any) -> str:
    """YAML reads `42`, `1.5` and `true` as numbers and booleans; as code they must be quoted."""
    if isinstance(value, bool):
        return f" (quote it: '{str(value).lower()}')"
    if isinstance(value, (int, float)):
        return f" (quote it: '{value}')"
    return ""


def _best(errors: Iterable[ValidationError], parent: ValidationError) -> ValidationError:
    """The branch error that says the most: anything beats a bare type mismatch, deeper beats shallower."""
    candidates = list(errors)
    informative = [e for e in candidates if not (e.validator == "type" and e.absolute_path == parent.absolute_path)]
    pool = informative or candidates
    return max(pool, key=lambda e: (len(e.absolute_path), e.validator not in ("type", "anyOf", "oneOf")))


_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
               "boolean": "true or false", "number": "a number"}


def _path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    for kind, word in ((dict, "a mapping"), (list, "a list"), (str, "a string"), (int, "an integer"),
                       (float, "a number")):
        if isinstance(value, kind):
            return word
    return type(value).__name__


# ---- the project's rule files --------------------------------------------------------------------------


_ids_cache: dict[tuple[str, str, bytes], list[str] | None] = {}
_ids_lock = threading.Lock()
_IDS_CACHE_MAX = 16384


def _by_content(kind: str, path: Path, compute: Callable[[Path, str], list[str] | None]) -> list[str] | None:
    """`compute(path, text)`, cached by the file's bytes: reading and hashing a file costs microseconds, parsing
    it (pure-Python YAML) milliseconds, and a store of hundreds of rules asks for every file's ids on each call.
    Keyed by content, not mtime, so an in-place edit within one timestamp tick is never served stale."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    key = _content_key(kind, path, data)
    with _ids_lock:
        if key in _ids_cache:
            return _ids_cache[key]
    try:
        value = compute(path, data.decode("utf-8"))
    except UnicodeDecodeError:
        value = None
    with _ids_lock:
        if len(_ids_cache) > _IDS_CACHE_MAX:
            _ids_cache.clear()
        _ids_cache[key] = value
    return value


def _prime(kind: str, path: Path, text: str, ids: list[str]) -> None:
    """Record the ids of a file just written, sparing the next call its parse."""
    key = _content_key(kind, path, text.encode("utf-8"))
    with _ids_lock:
        _ids_cache[key] = ids


def _content_key(kind: str, path: Path, data: bytes) -> tuple[str, str, bytes]:
    """The one key `_by_content` looks up and `_prime` fills: a different digest here would never be hit."""
    return kind, str(path), hashlib.blake2b(data, digest_size=20).digest()


def _rule_ids_of(path: Path, text: str) -> list[str] | None:
    try:
        docs = parse_rule_docs(text, path)
    except yamlio.YamlError:
        return None
    return [_doc_id(d, path) for d in docs]


def _doc_id(doc: dict[str, Any], path: Path) -> str:
    """A document's rule id as ast-grep reads it: its `id`, else the file stem. `_Target.ids_after` primes the
    id cache with this, so it must agree with `_rule_ids_of`."""
    return str(doc["id"]) if doc.get("id") is not None else path.stem


def _file_ids(path: Path) -> list[str] | None:
    """The rule ids one file defines (the file stem for a document without `id`); None if unreadable."""
    return _by_content("rules", path, _rule_ids_of)


def _test_ids_of(path: Path, text: str) -> list[str]:
    """The `id` of each test document in a test file ("" for a document without one); [] if unreadable."""
    try:
        docs = [d for d in yamlio.load_all(text) if d is not None]
    except yamlio.YamlError:
        return []
    return [str(d.get("id")) if isinstance(d, dict) and d.get("id") is not None else "" for d in docs]


def _test_file_ids(path: Path) -> list[str]:
    return _by_content("tests", path, _test_ids_of) or []


def _project_ids(cfg: ProjectConfig, unreadable: list[Path] | None = None) -> dict[str, list[tuple[Path, int]]]:
    """Where each rule id is defined; the rule files that cannot be read are appended to `unreadable`."""
    out: dict[str, list[tuple[Path, int]]] = {}
    for path in cfg.rule_files():
        ids = _file_ids(path)
        if ids is None and unreadable is not None:
            unreadable.append(path)
        for index, rid in enumerate(ids or []):
            out.setdefault(rid, []).append((path, index))
    return out


def _unknown_id_message(cfg: ProjectConfig, rule_id: str) -> str:
    known = sorted(_project_ids(cfg))
    close = difflib.get_close_matches(rule_id, known, n=3, cutoff=0.5)
    if close:
        return f"No rule with id {rule_id}. Did you mean {', '.join(close)}? (list_rules shows all.)"
    return f"No rule with id {rule_id} in the project ({len(known)} rules). Use list_rules to see the ids."


def _language_key(cfg: ProjectConfig | None, name: str | None) -> str | None:
    """One key per language whatever the spelling (`py`, `Python`), custom languages by their sgconfig name."""
    if not name:
        return None
    canon = languages.canonical(name)
    if canon is not None:
        return canon
    if name in _custom_languages(cfg):
        return f"custom:{name}"
    return None


def _custom_languages(cfg: ProjectConfig | None) -> dict[Any, Any]:
    """sgconfig's `customLanguages` mapping; {} without a project or when it is not a mapping."""
    custom = cfg.raw.get("customLanguages") if cfg is not None else None
    return custom if isinstance(custom, dict) else {}


def _unknown_language_message(cfg: ProjectConfig | None, name: str) -> str:
    names = sorted(languages.LANGUAGES) + sorted(str(k) for k in _custom_languages(cfg))
    aliases = sorted({a for canon, (al, _, _) in languages.LANGUAGES.items() for a in (canon, *al)})
    close = difflib.get_close_matches(name.lower(), aliases + names, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]}?" if close else ""
    return f"{name!r} is not a language ast-grep knows.{hint} Use one of: {', '.join(names)}."


# ---- test files ---------------------------------------------------------------------------------------


def _load_docs_quietly(path: Path) -> list[Any]:
    try:
        return [d for d in yamlio.load_all(path.read_text(encoding="utf-8")) if d is not None]
    except (yamlio.YamlError, UnicodeDecodeError, OSError):
        return []


def _test_files_for(cfg: ProjectConfig, rule_id: str) -> list[Path]:
    out = []
    for path in cfg.test_files():
        if any(cfg_dir in path.parents for cfg_dir in cfg.snapshot_dirs):
            continue
        if rule_id in _test_file_ids(path):
            out.append(path)
    return out


def _test_ids(cfg: ProjectConfig) -> set[str]:
    ids: set[str] = set()
    for path in cfg.test_files():
        ids.update(i for i in _test_file_ids(path) if i)
    return ids


def _existing_test_file(cfg: ProjectConfig, rule_id: str) -> Path | None:
    found = _test_files_for(cfg, rule_id)
    return found[0] if found else None


def _test_file_for(cfg: ProjectConfig, rule_id: str) -> Path | None:
    """Update the one test file that already tests this id; otherwise `<first test dir>/<id>-test.yml`."""
    found = _test_files_for(cfg, rule_id)
    if len(found) == 1 and len(_test_file_ids(found[0])) == 1:
        return found[0]
    first = cfg.first_test_dir
    return first / f"{rule_id}{TEST_SUFFIX}" if first is not None else None


def _test_file_text(rule_id: str, valid: list[str], invalid: list[str]) -> str:
    """Multi-line cases as `|` blocks, for people reading the file; plain scalars when a block would not read
    back byte for byte (trailing spaces, leading blank lines...)."""
    want = {"id": rule_id, "valid": valid, "invalid": invalid}
    for literal in (True, False):
        doc = CommentedMap()
        doc["id"] = rule_id
        for key, cases in (("valid", valid), ("invalid", invalid)):
            doc[key] = [LiteralScalarString(c) if literal and "\n" in c.rstrip("\n") else c for c in cases]
        text = yamlio.dump(doc)
        if yamlio.load_one(text) == want:
            return text
    raise RuleInvalid("The examples cannot be written as YAML that reads back unchanged. Simplify them "
                      "(e.g. remove control characters).", check="examples")


def _run_tests(ws: Workspace, engine: Engine, cfg: ProjectConfig, rule_id: str) -> dict[str, Any]:
    try:
        report: TestReport = engine.test(cfg.path, cwd=ws.root, rule_filter=f"^{re.escape(rule_id)}$")
    except SgToolsError as exc:
        # The rule is written and checked; a broken rule elsewhere can still stop `ast-grep test`.
        return {"passed": False, "summary": f"could not run the tests: {exc.message}", "failures": []}
    return {
        "passed": report.passed,
        "summary": report.summary,
        "failures": [{"kind": f.kind, "ruleId": f.rule_id, "code": f.code} for f in report.failures],
    }


# ---- multi-document files and writes --------------------------------------------------------------------


@dataclass
class _DocFile:
    """A rule file cut into its `---` segments, so one document can be replaced or dropped while every other
    byte (comments, formatting) of the file stays as it was."""

    segments: list[str]
    doc_segments: list[int]  # segment index of each non-empty document, in order
    docs: list[dict[str, Any]]

    @classmethod
    def parse(cls, text: str) -> _DocFile:
        starts = [m.start() for m in _DOC_START.finditer(text)]
        bounds = [0, *[s for s in starts if s > 0], len(text)]
        segments = [text[a:b] for a, b in itertools.pairwise(bounds)]
        doc_segments: list[int] = []
        docs: list[dict[str, Any]] = []
        for i, seg in enumerate(segments):
            doc = yamlio.load_one(seg)
            if doc is not None:
                if not isinstance(doc, dict):
                    raise RuleInvalid("a rule document must be a mapping; fix the file by hand.")
                doc_segments.append(i)
                docs.append(doc)
        parsed = parse_rule_docs(text, Path("rule.yml"))
        if parsed != docs:
            raise RuleInvalid("This rule file cannot be split safely into documents (a `---` inside a value?). "
                              "Edit it by hand.")
        return cls(segments, doc_segments, docs)

    def doc_text(self, index: int) -> str:
        seg = self.segments[self.doc_segments[index]]
        return _DOC_START.sub("", seg, count=1).lstrip("\r\n") if seg.startswith("---") else seg

    def replace(self, index: int, rule_text: str) -> str:
        segments = list(self.segments)
        k = self.doc_segments[index]
        lead = "---\n" if segments[k].startswith("---") else ""
        segments[k] = lead + rule_text
        return self._joined(segments)

    def without(self, indexes: list[int]) -> str:
        drop = {self.doc_segments[i] for i in indexes}
        kept = [s for k, s in enumerate(self.segments) if k not in drop]
        if 0 in drop and kept and kept[0].startswith("---"):
            # The old first document had no `---`; neither does the new first one.
            kept[0] = _DOC_START.sub("", kept[0], count=1).lstrip(" \t").lstrip("\r\n")
        return self._joined(kept)

    @staticmethod
    def _joined(segments: list[str]) -> str:
        out = ""
        for seg in segments:
            if out and not out.endswith("\n"):
                out += "\n"
            out += seg
        yamlio.load_all(out)  # the result must still be YAML
        return out


def _write_all(ws: Workspace, writes: Mapping[Path, str | None]) -> None:
    """Write or remove each file; if one fails, put back what was already changed (all or nothing)."""
    done: list[tuple[Path, bytes | None]] = []
    try:
        for path, text in writes.items():
            old = path.read_bytes() if path.is_file() else None
            if text is None:
                ws.remove(path)
            else:
                ws.write_text(path, text)
            done.append((path, old))
    except BaseException:
        for path, old in reversed(done):
            if old is None:
                ws.remove(path)
            else:
                ws.write_bytes(path, old)
        raise


# ---- small helpers ------------------------------------------------------------------------------------


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def snip(code: str, limit: int = 60) -> str:
    flat = " ".join(code.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def plain_data(node: Any) -> Any:
    """Plain Python data from a round-trip document, as a safe load would give (for the schema)."""
    if isinstance(node, dict):
        return {plain_data(k): plain_data(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain_data(v) for v in node]
    if node is None or isinstance(node, bool):
        return node
    if isinstance(node, ScalarBoolean):
        return bool(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, TaggedScalar):
        return str(node.value)
    return str(node)  # dates and times: text to ast-grep


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.loads(json.dumps(value, default=str))


def _source_of(data: dict[str, Any]) -> Any:
    """Provenance recorded by the community importer in `metadata.source` (a name or a mapping)."""
    meta = data.get("metadata")
    if isinstance(meta, dict):
        for key in ("source", "provenance"):
            if meta.get(key):
                return _jsonable(meta[key])
    return "project"
