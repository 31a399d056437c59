"""Per-rule cost of a scan (`sgtools scan --profile`, `scan_path(profile=true)`).

ast-grep 0.51 reports no timings (`--inspect` only counts files and rules), so each rule is measured by running
it alone over the same paths, and each language's fixed cost (walking, reading and parsing its files) by running
a parse-only rule (`kind: ERROR`) of that language. A rule's `cost` is its run minus that baseline: what the
rule itself adds to a scan. Figures are wall-clock seconds on a possibly busy machine; compare them within one
profile, not across machines.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from sgtools.contracts.scan import Profile, RuleCost
from sgtools.engine.process import Engine
from sgtools.project.config import ProjectConfig
from sgtools.project.workspace import Workspace
from sgtools.rules.ruleset import Rule
from sgtools.scan.rulefiles import rule_file


def profile_rules(ws: Workspace, engine: Engine, cfg: ProjectConfig, targets: Sequence[Path],
                  rules: Sequence[Rule], extra: Sequence[str] = ()) -> Profile:
    """Time every rule of `rules` alone over `targets` (one ast-grep call each, plus one per language)."""
    cwd = cfg.root if all(cfg.relative(t) is not None for t in targets) else ws.root
    args = [os.path.relpath(t, cwd) for t in targets]

    def timed(path: Path) -> tuple[float, int]:
        start = time.perf_counter()
        found = engine.scan(config=cfg.path, cwd=cwd, rule_file=path, paths=args, extra=extra,
                            timeout=engine.settings.path_scan_timeout)
        return time.perf_counter() - start, len(found)

    baseline: dict[str, float] = {}
    for lang in sorted({r.language for r in rules}):
        baseline[lang] = timed(rule_file([], keep_globs=False, parse_language=lang))[0]
    costs: list[RuleCost] = []
    for r in rules:
        seconds, found = timed(rule_file([r], keep_globs=True))
        costs.append({"ruleId": r.id, "language": r.language, "seconds": round(seconds, 4),
                      "cost": round(max(0.0, seconds - baseline[r.language]), 4), "findings": found})
    costs.sort(key=lambda c: (-c["cost"], -c["seconds"], c["ruleId"]))
    return {"rules": costs, "baseline": {k: round(v, 4) for k, v in baseline.items()},
            "slowest": costs[0]["ruleId"] if costs else None,
            "totalCost": round(sum(c["cost"] for c in costs), 4)}


def merge(parts: Sequence[Profile]) -> Profile:
    """One profile of a scan run in several engine calls (batches of a long file list): times add up."""
    by_rule: dict[str, RuleCost] = {}
    baseline: dict[str, float] = {}
    for part in parts:
        for lang, s in part["baseline"].items():
            baseline[lang] = round(baseline.get(lang, 0.0) + s, 4)
        for c in part["rules"]:
            have = by_rule.setdefault(c["ruleId"], {**c, "seconds": 0.0, "cost": 0.0, "findings": 0})
            have["seconds"] = round(have["seconds"] + c["seconds"], 4)
            have["cost"] = round(have["cost"] + c["cost"], 4)
            have["findings"] += c["findings"]
    costs = sorted(by_rule.values(), key=lambda c: (-c["cost"], -c["seconds"], c["ruleId"]))
    return {"rules": costs, "baseline": baseline, "slowest": costs[0]["ruleId"] if costs else None,
            "totalCost": round(sum(c["cost"] for c in costs), 4)}


def render(profile: Profile, limit: int | None = None) -> str:
    """The profile as a table for people, slowest first, with each language's parse-only baseline."""
    rows = profile["rules"] if limit is None else profile["rules"][:limit]
    width = max([len(c["ruleId"]) for c in rows] + [4])
    lines = [f"{'rule':<{width}}  {'language':<11} {'cost s':>8} {'alone s':>8} {'findings':>8}"]
    lines += [f"{c['ruleId']:<{width}}  {c['language']:<11} {c['cost']:>8.3f} {c['seconds']:>8.3f} "
              f"{c['findings']:>8}" for c in rows]
    if limit is not None and len(profile["rules"]) > limit:
        lines.append(f"... {len(profile['rules']) - limit} more rule(s)")
    base = ", ".join(f"{lang} {s:.3f}s" for lang, s in profile["baseline"].items())
    lines.append(f"parse-only baseline per language: {base or 'none'}")
    lines.append(f"total rule cost {profile['totalCost']:.3f}s; slowest: {profile['slowest'] or 'none'}")
    return "\n".join(lines) + "\n"
