"""`list_rules` and `explain_rule`: what the project's rules are, read-only."""

from __future__ import annotations

import json
from typing import Any

from sgtools.contracts.common import Examples
from sgtools.contracts.rules import ExplainRuleResult, ListRulesResult, RuleSummary
from sgtools.core.errors import BadInput, NotFound
from sgtools.engine.process import Engine
from sgtools.project.config import load_config
from sgtools.project.languages import language_key, unknown_language_message
from sgtools.project.workspace import Workspace, check_rule_id
from sgtools.rules.analysis.project import analyse_project
from sgtools.rules.docfile import DocFile
from sgtools.rules.locate import (
    load_docs_quietly,
    project_ids,
    proven_ids,
    test_files_for,
    tested_ids,
    unknown_id_message,
)
from sgtools.rules.ruleset import DEFAULT_SEVERITY, load_ruleset


def list_rules(ws: Workspace, engine: Engine, language: str | None = None) -> ListRulesResult:
    cfg = load_config(ws)
    want = language_key(language, cfg) if language else None
    if language and want is None:
        raise BadInput(unknown_language_message(cfg, language))
    ruleset = load_ruleset(ws, cfg, engine)
    tested = tested_ids(cfg)
    proven = proven_ids(cfg)
    chosen = [r for r in sorted(ruleset.rules, key=lambda r: (r.id, str(r.path), r.index))
              if want is None or language_key(r.language, cfg) == want]
    analysis = analyse_project(ws, engine, cfg, chosen)
    rules: list[RuleSummary] = []
    for r in chosen:
        rules.append({
            "id": r.id, "language": r.language, "severity": r.severity, "message": r.message,
            "path": ws.relative(r.path), "hasFix": r.has_fix and r.data.get("fix") is not None,
            "hasTests": r.id in tested, "unproven": r.id not in proven, "analysis": analysis.get(r.id, []),
        })
    return {"rules": rules, "ruleErrors": ruleset.error_dicts()}


def explain_rule(ws: Workspace, engine: Engine, rule_id: str) -> ExplainRuleResult:
    check_rule_id(rule_id)
    cfg = load_config(ws)
    places = project_ids(cfg).get(rule_id, [])
    if not places:
        raise NotFound(unknown_id_message(cfg, rule_id))
    path, index = places[0]
    doc_file = DocFile.parse(path.read_text(encoding="utf-8"))
    data = doc_file.docs[index]
    ruleset = load_ruleset(ws, cfg, engine)
    rel = ws.relative(path)
    problems = [e.message for e in ruleset.errors if e.path == rel]
    if len(places) > 1:
        problems.append(f"rule id {rule_id} is defined {len(places)} times: "
                        + ", ".join(ws.relative(p) for p, _ in places))
    examples: Examples = {"valid": [], "invalid": []}
    for test_path in test_files_for(cfg, rule_id):
        for doc in load_docs_quietly(test_path):
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


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


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
