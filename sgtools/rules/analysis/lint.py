"""`rule lint`: the project's rules (all, or the named ones) analysed with their tests' examples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgtools.core.errors import BadInput
from sgtools.engine.process import Engine
from sgtools.project.config import load_config
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import findings as F
from sgtools.rules.analysis.project import analyse_project, summary
from sgtools.rules.ruleset import load_ruleset


def lint_rules(ws: Workspace, engine: Engine, rule_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """`{rules: [{id, path, analysis}], neverFire: [ids], withWarnings: [ids], ruleErrors}`."""
    cfg = load_config(ws)
    ruleset = load_ruleset(ws, cfg, engine)
    wanted = list(dict.fromkeys(rule_ids or []))
    known = {r.id for r in ruleset.rules}
    unknown = [i for i in wanted if i not in known]
    if unknown:
        raise BadInput(f"No loaded rule with id {', '.join(unknown)}. `sgtools rule list` shows the ids (and the "
                       "rule files that cannot be loaded).")
    chosen = [r for r in sorted(ruleset.rules, key=lambda r: r.id) if not wanted or r.id in wanted]
    by_rule = analyse_project(ws, engine, cfg, chosen)
    rules = [{"id": r.id, "path": ws.relative(r.path), "analysis": F.sort_findings(by_rule.get(r.id, []))}
             for r in chosen]
    return {"rules": rules, **{k: v for k, v in summary(by_rule).items() if k != "analysed"},
            "ruleErrors": ruleset.error_dicts()}
