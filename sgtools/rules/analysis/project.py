"""The analysis of a whole project: every loaded rule with the examples of its tests, for `list_rules`,
`rule lint`, `doctor`/`server_info` and scans. One batched run for all rules; cached per rule content."""

from __future__ import annotations

from collections.abc import Iterable

from sgtools.contracts.project import RuleAnalysisSummary
from sgtools.contracts.rules import Finding
from sgtools.engine.process import Engine
from sgtools.project.config import ProjectConfig
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import Examples, analyse_rules
from sgtools.rules.analysis import findings as F
from sgtools.rules.locate import load_docs_quietly
from sgtools.rules.ruleset import Rule


def project_examples(cfg: ProjectConfig) -> dict[str, Examples]:
    """rule id -> the valid/invalid cases of its test files."""
    out: dict[str, Examples] = {}
    for path in cfg.test_files():
        if any(d in path.parents for d in cfg.snapshot_dirs):
            continue
        for doc in load_docs_quietly(path):
            if not isinstance(doc, dict) or doc.get("id") is None:
                continue
            ex = out.setdefault(str(doc["id"]), {"valid": [], "invalid": []})
            for key in ("valid", "invalid"):
                cases = doc.get(key)
                if isinstance(cases, list):
                    ex.setdefault(key, []).extend(str(c) for c in cases if c is not None)  # type: ignore[misc]
    return out


def analyse_project(ws: Workspace, engine: Engine, cfg: ProjectConfig, rules: Iterable[Rule]) -> dict[str, list[
        Finding]]:
    """rule id -> findings, for the given (loaded, enabled or not) rules of the project."""
    chosen = list(rules)
    if not chosen:
        return {}
    examples = project_examples(cfg)
    found = analyse_rules(ws, engine, [r.data for r in chosen], examples=[examples.get(r.id) for r in chosen],
                          config=cfg.path)
    return {r.id: f for r, f in zip(chosen, found, strict=True)}


def summary(by_rule: dict[str, list[Finding]]) -> RuleAnalysisSummary:
    """Counts for doctor/server_info: rules that can never fire and rules with warnings."""
    never = sorted(rid for rid, fs in by_rule.items() if F.never_fires(fs))
    warned = sorted(rid for rid, fs in by_rule.items() if not F.never_fires(fs) and F.at_least(fs, F.WARNING))
    return {"analysed": len(by_rule), "neverFire": never, "withWarnings": warned}
