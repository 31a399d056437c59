"""The `analysis` list of a scan result: what the last analysis of each rule that ran found at warning level or
above (a rule that can never fire says so next to `ruleErrors`), read from the cache, never computed in a scan."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sgtools.engine.process import Engine
from sgtools.rules.analysis import findings as F
from sgtools.rules.analysis import last_findings
from sgtools.rules.ruleset import Rule

if TYPE_CHECKING:
    from sgtools.contracts.scan import RuleFinding


def scan_analysis(engine: Engine, rules: Sequence[Rule], config: Path | str) -> list[RuleFinding]:
    out: list[RuleFinding] = []
    for rule, found in zip(rules, last_findings(engine, [r.data for r in rules], config=config), strict=True):
        for f in F.at_least(found or [], F.WARNING):
            item: RuleFinding = {"ruleId": rule.id, "code": f["code"], "severity": f["severity"], "path": f["path"],
                                 "message": f["message"]}
            if "repair" in f:
                item["repair"] = f["repair"]
            out.append(item)
    return out
