"""scan_code's structured answer (issue 31): the service's Diagnostics made small for an agent's context.

A Diagnostic carries everything the CLI's formats need (byte offsets, the rule's note and url, the full
verification record); an agent acts on less. Per finding: where, what, the fix-its with their safety and whether
the re-scan proved them (with `why` when not), and the suppression comment; the rule's note and url once per
result under `rules`; empty lists, null files and false flags left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from sgtools.contracts.scan import Finding, FindingEdit, FindingFix, FindingLabel, RuleFacts, ScanAnswer

_POSITION = ("line", "column", "endLine", "endColumn")


def _why(verification: Mapping[str, Any]) -> str:
    """What kept a fix-it from being verified, in the words an agent acts on."""
    if not verification.get("checked"):
        return str(verification.get("reason") or "not checked")
    if verification.get("parseErrorsAfter", 0) > verification.get("parseErrorsBefore", 0):
        return "the fixed code does not parse"
    after = verification.get("missingAfter")
    if after is not None and after > verification.get("missingBefore", 0):
        return "the fixed code lacks a token the grammar needs"
    if verification.get("stillFires"):
        return "the rule still fires on the fixed code"
    return "not verified"


def _fix(fx: Mapping[str, Any], file: str | None) -> FindingFix:
    edits: list[FindingEdit] = []
    for e in fx.get("edits") or []:
        edit = cast(FindingEdit, {k: e[k] for k in _POSITION})
        edit["newText"] = e["newText"]
        if e.get("file") != file:
            edit["file"] = e.get("file")
        edits.append(edit)
    out: FindingFix = {"title": fx["title"], "safety": fx.get("safety", "unsafe"),
                       "confidence": fx["confidence"], "verified": fx["verified"], "edits": edits}
    if not fx["verified"]:
        out["why"] = _why(fx.get("verification") or {})
    if fx.get("conflictsWith"):
        out["conflictsWith"] = fx["conflictsWith"]
    return out


def _finding(d: Mapping[str, Any]) -> Finding:
    out = cast(Finding, {"ruleId": d["ruleId"], "severity": d["severity"], "message": d["message"],
                         **{k: d[k] for k in _POSITION}, "text": d["text"]})
    if d.get("file") is not None:
        out["file"] = d["file"]
    if d.get("labels"):
        labels: list[FindingLabel] = []
        for label in d["labels"]:
            item = cast(FindingLabel, {k: label[k] for k in _POSITION})
            if label.get("message"):
                item["message"] = label["message"]
            labels.append(item)
        out["labels"] = labels
    out["fixits"] = [_fix(fx, d.get("file")) for fx in d.get("fixits") or []]
    if d.get("inTest"):
        out["inTest"] = True
    if d.get("suppress"):
        out["suppress"] = d["suppress"]
    return out


def scan_answer(result: Mapping[str, Any]) -> ScanAnswer:
    """The service's scan result with compact findings and each rule's note and url once."""
    issues = result.get("issues") or []
    rules: dict[str, RuleFacts] = {}
    for d in issues:
        if d["ruleId"] not in rules:
            facts: RuleFacts = {}
            if d.get("note"):
                facts["note"] = str(d["note"]).strip()
            if d.get("url"):
                facts["url"] = d["url"]
            rules[d["ruleId"]] = facts
    answer = {k: v for k, v in result.items() if k != "issues"}
    answer["issues"] = [_finding(d) for d in issues]
    answer["rules"] = rules
    return cast(ScanAnswer, answer)


def first_sentence(note: str | None, limit: int = 200) -> str:
    """The note's first sentence (up to `limit` characters): the remedy a text-only host still passes on."""
    text = " ".join((note or "").split())
    for end in (". ", "; "):
        cut = text.find(end)
        if 0 < cut < limit:
            return text[:cut + 1].rstrip(";") + ("" if end == ". " else ".")
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"
