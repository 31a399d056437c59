"""`validate_rule`, and the checks every stored rule passes first, cheapest first.

An agent writes rules blind, and ast-grep refuses a whole project over one bad rule or one duplicate id. So a
candidate rule goes through YAML, our JSON Schema, id, language, the real binary on a temp copy, id
collisions with the project and the examples; only a rule that passed them all is written (rules/store.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.contracts.rules import Finding
from sgtools.core.errors import Conflict, RuleInvalid
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.engine.tempdirs import private_dir
from sgtools.engine.texts import scan_texts
from sgtools.project.config import ProjectConfig, try_load_config
from sgtools.project.languages import file_name_for, language_key, unknown_language_message
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import gate
from sgtools.rules.docfile import DocFile
from sgtools.rules.draft import check_rule_inputs, compile_rule, read_draft, warn_about
from sgtools.rules.examples import check_examples
from sgtools.rules.locate import doc_id, file_ids, project_ids
from sgtools.rules.ruleset import GLOB_KEYS
from sgtools.rules.schema import schema_problems


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
    check_rule_inputs(rule_id, rule_yaml, valid_examples, invalid_examples, None, ws.settings)
    cfg = try_load_config(ws)
    cand = prepare(ws, engine, cfg, rule_id, rule_yaml, valid_examples, invalid_examples,
                    metadata=None, overwrite=True)
    return {"valid": True, "rule": cand.data, "yaml": cand.text, "warnings": cand.warnings}


class Target:
    """Where the rule will be written, and what that file holds now."""

    __slots__ = ("doc_file", "exists", "index", "path", "same")

    def __init__(self, path: Path, exists: bool, doc_file: DocFile | None = None, index: int = 0,
                 same: bool = False) -> None:
        self.same = same  # it already holds exactly the text being saved
        self.path = path
        self.exists = exists  # the rule already exists there (an update)
        self.doc_file = doc_file  # the file's current documents, when it holds more than this rule
        self.index = index

    def ids_after(self, rule_id: str) -> list[str]:
        if self.doc_file is None:
            return [rule_id]
        ids = [doc_id(d, self.path) for d in self.doc_file.docs]
        ids[self.index] = rule_id
        return ids

    def new_file_text(self, rule_text: str) -> str:
        if self.doc_file is None:
            return rule_text
        return self.doc_file.replace(self.index, rule_text)


class Candidate:
    __slots__ = ("analysis", "data", "examples_given", "invalid", "rule_id", "target", "text", "valid", "warnings")

    def __init__(self, rule_id: str, text: str, data: dict[str, Any], valid: list[str], invalid: list[str],
                 examples_given: bool, warnings: list[str] | None = None, target: Target | None = None,
                 analysis: list[Finding] | None = None) -> None:
        self.rule_id = rule_id
        self.text = text  # canonical YAML, exactly the bytes that get written
        self.data = data
        self.valid = valid
        self.invalid = invalid
        self.examples_given = examples_given
        self.warnings: list[str] = [] if warnings is None else warnings
        self.target = target
        self.analysis: list[Finding] = [] if analysis is None else analysis


def prepare(
    ws: Workspace, engine: Engine, cfg: ProjectConfig | None, rule_id: str, rule_yaml: str,
    valid: list[str] | None, invalid: list[str] | None, *, metadata: Mapping[str, object] | None, overwrite: bool,
    force: bool = False,
) -> Candidate:
    warnings: list[str] = []
    # 1. YAML: one document, a mapping (remembered by content: see read_draft).
    data, declared, canonical_text = read_draft(rule_yaml, rule_id, metadata)
    _check_data(cfg, rule_id, data, declared, ws.settings.max_reported_problems, warnings)
    # The canonical text only once the checks passed: a rule they refuse never pays for the round-trip parse and
    # dump (~70 + 30 ms of pure-Python YAML for a big rule; the dump changes none of the document's values).
    text, exact = canonical_text()
    if exact != data:  # the safe loader read the text otherwise than the round-trip parser, which decides
        warnings.clear()
        _check_data(cfg, rule_id, exact, exact.get("id"), ws.settings.max_reported_problems, warnings)
    data = exact
    warn_about(data, warnings)
    config: Path | str = cfg.path if cfg is not None else NO_CONFIG
    if cfg is None:
        warnings.append("no sgconfig.yml: checked in isolation, without global utils or id collisions")
    target = None
    with private_dir("rule-") as tmp:
        rule_file = Path(tmp) / f"{rule_id}.yml"
        rule_file.write_text(text, encoding="utf-8")
        # 5. The real binary compiles it (with the project's utils when there is a project).
        try:
            compile_rule(ws, engine, config, rule_file, rule_yaml, Path(tmp))
        except RuleInvalid as exc:
            if exc.details.get("check") != "engine":
                raise
            raise gate.explain_refusal(ws, engine, config, data, exc, valid, invalid) from None
        # 6. The project still loads: no duplicate id, no file clobbered.
        if cfg is not None:
            target = choose_target(ws, cfg, rule_id, overwrite, warnings, text)
        # 7. The examples behave as claimed.
        try:
            _check_examples(engine, config, cfg, Path(tmp), rule_id, valid or [], invalid or [], data)
        except RuleInvalid as exc:
            raise gate.explain_refusal(ws, engine, config, data, exc, valid, invalid) from None
        # 8. It can fire at all (the analyser's self-match): refused unless forced.
        analysis = gate.check_before_save(ws, engine, config, data, valid, invalid, force=force, warnings=warnings)
    return Candidate(rule_id, text, data, list(valid or []), list(invalid or []),
                      examples_given=bool(valid or invalid), warnings=warnings, target=target, analysis=analysis)


def _check_data(cfg: ProjectConfig | None, rule_id: str, data: dict[str, Any], declared: Any, max_problems: int,
                warnings: list[str]) -> None:
    # 2. Structure, with our schema.
    problems = schema_problems(data, max_problems, warnings)
    if problems:
        raise RuleInvalid("The rule's structure is invalid: " + "; ".join(problems) + " (fix these, then retry)",
                          check="schema", problems=problems)
    # 3. The id.
    if declared is not None and str(declared) != rule_id:
        raise RuleInvalid(f"id: the rule says `id: {declared}` but rule_id is `{rule_id}`. Make them the same, "
                          "or leave `id` out of the YAML and it is filled in.", check="id")
    # 4. The language.
    if language_key(str(data["language"]), cfg) is None:
        raise RuleInvalid("language: " + unknown_language_message(cfg, str(data["language"])), check="language")


def choose_target(ws: Workspace, cfg: ProjectConfig, rule_id: str, overwrite: bool, warnings: list[str],
                  text: str | None = None) -> Target:
    """Where the rule goes. Without `overwrite`, an existing rule with this id is a conflict, unless it already
    holds exactly `text` (`Target.same`): the store then decides, once it knows the test file and snapshot the
    save would write, whether there is a half state to repair or a conflict (rules/store.py)."""
    unreadable: list[Path] = []
    places = project_ids(cfg, unreadable).get(rule_id, [])
    if unreadable:
        warnings.append("rule files that cannot be read were not checked for this id: "
                        + ", ".join(ws.relative(p) for p in unreadable))
    if len(places) > 1:
        where = ", ".join(ws.relative(p) for p, _ in places)
        raise Conflict(f"Rule id {rule_id} is already defined {len(places)} times ({where}); ast-grep refuses a "
                       "project with duplicate ids. Remove the duplicates (remove_rule) first.", check="project")
    if places:
        path, index = places[0]
        doc_file = DocFile.parse(path.read_text(encoding="utf-8"))
        single = len(doc_file.doc_segments) == 1
        same = text is not None and (path.read_text(encoding="utf-8") if single else doc_file.doc_text(index)) == text
        if not overwrite and not same:
            raise Conflict(f"Rule {rule_id} already exists in {ws.relative(path)}. Pass overwrite=true to replace "
                           "it, or choose another id.", check="project")
        if single:
            return Target(path, exists=True, same=same)
        return Target(path, exists=True, doc_file=doc_file, index=index, same=same)
    path = cfg.first_rule_dir / f"{rule_id}.yml"
    if path.exists():
        others = file_ids(path)
        if others is None and not overwrite:
            raise Conflict(f"{ws.relative(path)} exists but cannot be read as rules. Pass overwrite=true to replace "
                           "it, or fix or remove it first.", check="project")
        if others:
            raise Conflict(f"{ws.relative(path)} already holds rule(s) {', '.join(others)}, not {rule_id}; writing "
                           f"would replace them. Remove or rename that file, or use the id {others[0]}.",
                           check="project")
    return Target(path, exists=False)


def _check_examples(engine: Engine, config: Path | str, cfg: ProjectConfig | None, tmp: Path, rule_id: str,
                    valid: list[str], invalid: list[str], data: dict[str, Any]) -> None:
    """Refuse the rule when its examples contradict it. The examples have no path, so the rule runs without
    its `files`/`ignores` globs (as ast-grep's stdin and `ast-grep test` run it), and an `off` rule as `hint`."""
    if not valid and not invalid:
        return
    lang = language_key(str(data["language"]), cfg)
    if lang is None:  # refused by the language check before this
        return
    checked = {k: v for k, v in data.items() if k not in GLOB_KEYS}
    if checked.get("severity") == "off":
        checked["severity"] = "hint"  # checked as it matches once enabled, as test_rule does (warned about)
    bare = tmp / "examples.yml"
    bare.write_text(json.dumps(checked), encoding="utf-8")
    file_name = file_name_for(lang, cfg)
    _passed, failed = check_examples(lambda texts: scan_texts(engine, config, bare, file_name, texts),
                                     rule_id, valid, invalid)
    if failed:
        reasons = [f["reason"] for f in failed]
        raise RuleInvalid("The examples contradict the rule: " + "; ".join(reasons)
                          + ". Fix the rule or the examples.", check="examples", failures=reasons)
