"""The analyser as a gate before a rule is saved (add_or_update_rule, import): a rule that provably never
fires is refused with `[rule-invalid]`, its cause and the verified repair, unless the caller forces it;
anything merely suspicious is saved with warnings. Kept apart from the rule store so the store only calls it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.contracts.rules import Finding
from sgtools.core.errors import RuleInvalid
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import Examples, analyse_rule
from sgtools.rules.analysis import findings as F


def describe(found: list[Finding]) -> str:
    """One line per finding at warning level or above: `path: cause`, and where one exists, the repair."""
    parts = []
    for f in F.at_least(found, F.WARNING):
        text = f"{f['path']}: {f['message']}"
        if "repair" in f:
            text += "\nVerified repair (save this instead):\n" + f["repair"]
        parts.append(text)
    return "\n".join(parts)


def check_before_save(ws: Workspace, engine: Engine, config: Path | str, data: Mapping[str, Any],
                      valid: list[str] | None, invalid: list[str] | None, *, force: bool,
                      warnings: list[str]) -> list[Finding]:
    """Analyse a compiled rule with its examples; refuse one that can never fire unless `force`.
    Appends a warning per finding at warning level (and, when forced, per error) to `warnings`."""
    examples: Examples = {"valid": list(valid or []), "invalid": list(invalid or [])}
    found = analyse_rule(ws, engine, data, examples, config=config)
    errors = [f for f in found if f["severity"] == F.ERROR]
    if errors and not force:
        raise RuleInvalid("The rule can never fire as written, so it was not saved:\n" + describe(errors)
                          + "\nSave the repair, or fix the rule and retry (force: true saves it anyway).",
                          check="analysis", analysis=found)
    for f in found:
        if f["severity"] == F.ERROR:
            warnings.append(f"saved with force although it can never fire: {f['path']}: {f['message']}")
        elif f["severity"] == F.WARNING:
            warnings.append(f"{f['path']}: {f['message']}")
    return found


def explain_refusal(ws: Workspace, engine: Engine, config: Path | str, data: Mapping[str, Any],
                    exc: RuleInvalid, valid: list[str] | None = None,
                    invalid: list[str] | None = None) -> RuleInvalid:
    """ast-grep refused the rule: the same error, with the analyser's cause and verified repair added."""
    examples: Examples = {"valid": list(valid or []), "invalid": list(invalid or [])}
    found = analyse_rule(ws, engine, data, examples, config=config)
    useful = [f for f in found if f["code"] != F.NOT_ANALYSED and ("repair" in f or f["code"] != F.RULE_REFUSED)]
    if not useful:
        return exc
    return RuleInvalid(exc.message + "\n" + describe(useful), **{**exc.details, "analysis": found})
