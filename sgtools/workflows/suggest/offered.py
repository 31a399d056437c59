"""A rule from outside the generaliser (the caller's draft, a known rule), put before its candidates once proven.
Why one home: both are proven the same way (ast-grep on the examples, then the rule analyser), carry the call's id,
message, severity and path scope, and displace the generaliser's top rule, whose caution then no longer applies.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgtools.contracts.suggest import SuggestedRule, SuggestResult
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules import analysis
from sgtools.workflows.suggest import carry, render, scope
from sgtools.workflows.suggest.call import SuggestCall


def item(ws: Workspace, engine: Engine, call: SuggestCall, body: dict[str, Any], rule_id: str, message: str,
         form: str, why: str, reach: str, in_files: bool = False) -> SuggestedRule | str:
    """The candidate for `body` (proven on the examples by the caller) with the call's scope added, or the rule
    analyser's refusal when it finds an error."""
    doc = render.rule_doc(call.rule_id or rule_id, call.language, call.severity, call.message or message, body)
    findings = analysis.analyse_rules(ws, engine, [doc], examples=[{"valid": call.valid, "invalid": call.invalid}])[0]
    if analysis.never_fires(findings):
        return analysis.refusal(findings)
    out: SuggestedRule = {"yaml": "", "rule_id": str(doc["id"]), "form": form, "analysis": findings, "why": why,
                          "checked": {"invalid": call.invalid, "valid": call.valid}, "scope": reach}
    if call.asked is not None:  # as for every candidate: verified without the scope, which is added now
        doc.update(call.asked[0])
        out["scope"] = f"{reach}; {scope.note(*call.asked, in_files=in_files)}"
    out["yaml"] = render.dump(doc)
    return out


def put_first(result: SuggestResult, items: Sequence[SuggestedRule], count: int, after: int = 0) -> None:
    """`items` before the generaliser's candidates, or after its first `after` (at most `count` in all); the
    answer is a success."""
    if after == 0 or not result["candidates"]:
        # The generaliser's caution speaks of its own top rule, which is no longer the top one.
        result["warnings"] = [w for w in result["warnings"] if carry.TOP_RULE not in w]
    head, tail = result["candidates"][:after], result["candidates"][after:]
    result["candidates"] = [*head, *items, *tail][:count]
    result["success"] = True
    result.pop("explanation", None)
