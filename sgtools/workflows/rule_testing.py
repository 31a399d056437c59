"""`test_rule`: try a rule on code and examples before it is saved, and say plainly why it fails.

Writing a rule is trial and error for an agent; this is the loop's fast step. Nothing is written in the
workspace: the rule goes to a private temp file, code and examples are scanned from temp copies, all with
`-c <project sgconfig>` when there is one (so global utils resolve) and in isolation when there is not.
The YAML and engine checks are the rule store's own, so a rule that passes here is accepted there.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sgtools.contracts.rules import Finding, TestRuleResult
from sgtools.core import languages, yamlio
from sgtools.core.errors import BadInput, EngineFailed, RuleInvalid
from sgtools.core.settings import Settings
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.engine.tempdirs import tmp_root
from sgtools.project.config import ProjectConfig, try_load_config
from sgtools.project.languages import file_name_for, language_key
from sgtools.project.workspace import Workspace
from sgtools.rules import syntax
from sgtools.rules.analysis import analyse_rule, at_least, never_fires
from sgtools.rules.draft import check_draft, compile_rule, parse_one, plain_data, snip
from sgtools.rules.examples import check_examples
from sgtools.rules.ruleset import glob_problem, rule_from_doc
from sgtools.rules.schema import schema_problems
from sgtools.scan.checker import TextChecker
from sgtools.scan.inputs import check_code
from sgtools.scan.rulefiles import rule_file
from sgtools.scan.snippet import snippet_diagnostics

DEFAULT_ID = "test-rule"
_FILE_NAME = "test-rule.yml"


def _check_inputs(rule_yaml: object, code: object, valid: object, invalid: object, settings: Settings) -> None:
    check_draft(rule_yaml, valid, invalid, settings)
    if code is not None:
        check_code(code, settings)


def _patterns(node: Any) -> list[str]:
    """Every pattern text in a rule (`pattern: str` and `pattern: {context: str}`), utils included."""
    found: list[str] = []
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                found.append(value)
            elif key == "pattern" and isinstance(value, Mapping) and isinstance(value.get("context"), str):
                found.append(str(value["context"]))
            else:
                found.extend(_patterns(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_patterns(item))
    return found


def _pattern_hints(ws: Workspace, engine: Engine, data: Mapping[str, Any], language: str) -> list[str]:
    """Asked only when something that should match did not: ast-grep accepts a pattern it reads with
    ERROR nodes (e.g. `def f(:`) and then silently matches nothing. The matcher's view shows ERROR nodes;
    MISSING ones only show in the raw parse, where a MISSING `;` says nothing (every Java, C# or C expression
    pattern lacks its statement's `;`)."""
    hints: list[str] = []
    for pattern in dict.fromkeys(_patterns({k: data.get(k) for k in ("rule", "utils", "constraints")})):
        try:
            tree, _ = engine.dump_tree(pattern, language, "pattern", cwd=ws.root)
            raw_tree, _ = engine.dump_tree(pattern, language, "cst", cwd=ws.root)
        except EngineFailed:
            continue
        nodes = syntax.problem_nodes(tree) + [n for n in syntax.problem_nodes(raw_tree)
                                              if n[0].startswith("MISSING") and not n[0].startswith("MISSING ;")]
        if nodes:
            kinds = ", ".join(sorted({n.split(" ", 1)[0] for n, _ in nodes}))
            hints.append(f"The pattern {snip(pattern)!r} does not parse as complete {language} code "
                         f"(ast-grep reads it with {kinds} nodes), so it matches nothing. Complete it, or use a "
                         "pattern object with `context` (complete code) and `selector` (the node kind to match). "
                         "dump_syntax_tree with format \"pattern\" shows how it is read.")
    return hints


def test_rule(
    ws: Workspace,
    engine: Engine,
    rule_yaml: str,
    code: str | None = None,
    language: str | None = None,
    valid_examples: Sequence[str] | None = None,
    invalid_examples: Sequence[str] | None = None,
) -> TestRuleResult:
    """Compile `rule_yaml` with the real binary, run it on `code` (diagnostics with verified fix-its) and on
    the examples (valid ones must not match, invalid ones must). `success` means no error and no failed
    example; a rule ast-grep rejects comes back as `success: false` with the cause and a hint, not raised."""
    _check_inputs(rule_yaml, code, valid_examples, invalid_examples, ws.settings)
    valid = list(valid_examples or [])
    invalid = list(invalid_examples or [])
    result: TestRuleResult = {"success": False, "errors": [], "matches": [],
                              "examples": {"passed": 0, "failed": []}, "hints": [], "warnings": []}
    cfg = try_load_config(ws)
    config: Path | str = cfg.path if cfg is not None else NO_CONFIG
    if cfg is None:
        result["warnings"].append("no sgconfig.yml: the rule runs in isolation, without global utils")

    doc = _draft(rule_yaml, language, cfg, result, has_inputs=code is not None or bool(valid or invalid))
    if doc is None:
        return result
    data: dict[str, Any] = plain_data(doc)
    # The same structural checks as add_or_update_rule (a misplaced `not`, `anyy`...), in our words.
    problems = schema_problems(data, ws.settings.max_reported_problems, result["warnings"])
    if problems:
        result["errors"].append("The rule's structure is invalid: " + "; ".join(problems) + " (fix these, then retry)")
        return result

    lang = _compiles(ws, engine, config, cfg, doc, rule_yaml, result)
    if lang is None:
        return result
    rule = rule_from_doc(data, Path(_FILE_NAME), 0)
    problem = glob_problem(rule)
    if problem is not None:
        result["errors"].append(problem.replace("rejected by ast-grep: ", "", 1))
        return result
    rules_path = rule_file([rule], keep_globs=False, parse_language=lang)
    file_name = file_name_for(lang, cfg)

    checker = TextChecker(engine, config=config, cwd=ws.root, rules_path=rules_path, file_name=file_name,
                          language=lang, rules=[rule], project=cfg)
    if code is not None:
        result["matches"] = snippet_diagnostics(checker, code)

    passed, failed = check_examples(lambda texts: checker.rescan(lang, texts), rule.id, valid, invalid)
    result["examples"] = {"passed": passed, "failed": failed}
    missed = any(f["kind"] == "invalid" for f in failed)
    found = analyse_rule(ws, engine, data, {"valid": valid, "invalid": invalid}, config=config)
    result["analysis"] = found
    result["hints"].extend(_analysis_hints(found))
    if missed or (code is not None and not result["matches"] and not (valid or invalid)):
        result["hints"].extend(_pattern_hints(ws, engine, data, lang))
    result["success"] = not result["errors"] and not result["examples"]["failed"] and not never_fires(found)
    return result


def _draft(rule_yaml: str, language: str | None, cfg: ProjectConfig | None, result: TestRuleResult, *,
           has_inputs: bool) -> Any:
    """The rule as it will be tested (round-trip document: `language` and `id` filled in, `off` as `hint`), or
    None with the reason in `result["errors"]`."""
    try:
        doc = parse_one(rule_yaml)
    except RuleInvalid as exc:
        result["errors"].append(exc.message)
        return None
    if language is not None:
        wanted = language_key(str(language), cfg)
        if wanted is None:
            raise BadInput(f"Unknown language {language!r}. Use a language ast-grep knows, e.g. python.")
        if doc.get("language") is None:
            doc["language"] = str(language)
        elif language_key(str(doc["language"]), cfg) != wanted:
            result["errors"].append(f"The rule says `language: {doc['language']}` but language is {language!r}. "
                                    "Make them the same, or leave `language` out of one of them.")
            return None
    if doc.get("language") is not None and language_key(str(doc["language"]), cfg) is None:
        result["errors"].append(f"language: {doc['language']!r} is not a language ast-grep knows here. Use one of "
                                + ", ".join(sorted(languages.LANGUAGES)) + " (or a customLanguages key).")
        return None
    if doc.get("id") is None:
        doc.insert(0, "id", DEFAULT_ID)
    if str(doc.get("severity")) == "off":
        result["warnings"].append("severity: off means the rule never reports; it was tested as `hint`")
        doc["severity"] = "hint"
    if has_inputs and any(k in doc for k in ("files", "ignores")):
        result["warnings"].append("`files`/`ignores` were not applied here: code and examples have no path "
                                  "(scan_code with a `path` applies them)")
    return doc


def _analysis_hints(found: list[Finding]) -> list[str]:
    """The analyser's warnings, except a bare restatement of a failed example (already in `examples`)."""
    return [f"{f['path']}: {f['message']}" + (f"\nVerified repair:\n{f['repair']}" if "repair" in f else "")
            for f in at_least(found, "warning")
            if f["code"] not in ("example-not-matched", "example-matched") or "Likely cause" in f["message"]
            or "repair" in f]


def _compiles(ws: Workspace, engine: Engine, config: Path | str, cfg: ProjectConfig | None, doc: Any,
              rule_yaml: str, result: TestRuleResult) -> str | None:
    """The rule's language key once the real binary accepted the rule, or None with the reason in `errors`."""
    with tempfile.TemporaryDirectory(prefix="rule-", dir=tmp_root()) as tmp:
        rule_path = Path(tmp) / _FILE_NAME
        rule_path.write_text(yamlio.dump_rt(doc), encoding="utf-8")
        try:
            compile_rule(ws, engine, config, rule_path, rule_yaml, Path(tmp))
        except RuleInvalid as exc:
            result["errors"].append(exc.message)
            return None

    lang = language_key(str(doc.get("language")), cfg)
    if lang is None:  # the binary accepted it, so this is a custom language we could not resolve
        result["errors"].append(f"language {str(doc.get('language'))!r} is not known to this project.")
        return None
    return lang
