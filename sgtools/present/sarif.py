"""SARIF 2.1.0 for code-scanning uploads (GitHub, Azure DevOps, IDE viewers).

Unlike ast-grep's own SARIF this names the rules (so viewers show help and links) with the tags, CWE,
security-severity and precision code-scanning platforms filter on (present/sarif_props.py), says that columns count
code points, carries stable `partialFingerprints` (the baseline fingerprint, which survives line shifts),
turns fix-its into `fixes`, and keeps baselined findings as suppressed results.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from sgtools.contracts.scan import Diagnostic
from sgtools.present import sarif_props
from sgtools.present.report import Report
from sgtools.present.text import fix_claim

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "sgtools"
INFORMATION_URI = "https://pypi.org/project/context-sherpa/"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "sgtools/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note", "hint": "note"}


def level(severity: object) -> str:
    return LEVELS.get(str(severity), "note")


def _artifact(file: str) -> dict[str, Any]:
    return {"uri": quote(file, safe="/"), "uriBaseId": SRCROOT}


def _region(item: Mapping[str, Any], snippet: str | None = None) -> dict[str, Any]:
    region: dict[str, Any] = {
        "startLine": item.get("line"),
        "startColumn": item.get("column"),
        "endLine": item.get("endLine"),
        "endColumn": item.get("endColumn"),
    }
    if snippet:
        region["snippet"] = {"text": snippet}
    return {k: v for k, v in region.items() if v is not None}


def readable_name(rule_id: str) -> str:
    """SARIF's `name` is a readable identifier, distinct from the opaque `id` (as CodeQL and ruff do):
    `no-eval-python` becomes `NoEvalPython`."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", rule_id) if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or rule_id
    return name if name != rule_id else f"{name}Rule"


def _rule_descriptor(rule: dict[str, Any]) -> dict[str, Any]:
    rid = str(rule["id"])
    message = str(rule.get("message") or rid)
    note = rule.get("note")
    descriptor: dict[str, Any] = {
        "id": rid,
        "name": readable_name(rid),
        "shortDescription": {"text": message},
        "fullDescription": {"text": str(note or message)},
        "defaultConfiguration": {"level": level(rule.get("severity"))},
        "properties": {"severity": rule.get("severity"), **sarif_props.properties(rule)},
    }
    if note:
        descriptor["help"] = {"text": str(note), "markdown": str(note)}
    if rule.get("url"):
        descriptor["helpUri"] = str(rule["url"])
    if rule.get("language"):
        descriptor["properties"]["language"] = rule["language"]
    return descriptor


def _rules(report: Report, diags: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    """The rules that ran, plus any rule a finding names that the caller did not list."""
    by_id: dict[str, dict[str, Any]] = {}
    for rule in report.rules:
        by_id.setdefault(str(rule["id"]), rule)
    for d in diags:
        rid = str(d.get("ruleId"))
        by_id.setdefault(rid, {"id": rid, "severity": d.get("severity"), "message": d.get("message"),
                               "note": d.get("note"), "url": d.get("url")})
    return [_rule_descriptor(by_id[rid]) for rid in sorted(by_id)]


def _fixes(d: Mapping[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for fixit in d.get("fixits") or []:
        if fixit.get("kind") != "fix":
            continue
        by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for edit in fixit.get("edits") or []:
            by_file[str(edit.get("file") or d.get("file"))].append(
                {"deletedRegion": _region(edit), "insertedContent": {"text": str(edit.get("newText", ""))}}
            )
        out.append({
            "description": {"text": str(fixit.get("title") or "Apply the rule's fix") + f" ({fix_claim(fixit)})"},
            "artifactChanges": [{"artifactLocation": _artifact(f), "replacements": reps}
                                for f, reps in by_file.items()],
            "properties": {"verified": bool(fixit.get("verified")), "confidence": fixit.get("confidence"),
                           "safety": fixit.get("safety", "unsafe")},
        })
    return out


def _result(d: Mapping[str, Any], rule_index: dict[str, int], suppressed_by: str | None) -> dict[str, Any]:
    rid = str(d.get("ruleId"))
    result: dict[str, Any] = {
        "ruleId": rid,
        "ruleIndex": rule_index[rid],
        "level": level(d.get("severity")),
        "message": {"text": str(d.get("message") or rid)},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(str(d.get("file"))),
                                            "region": _region(d, d.get("text"))}}],
    }
    related = [
        {"id": i, "message": {"text": str(label["message"])},
         "physicalLocation": {"artifactLocation": _artifact(str(d.get("file"))), "region": _region(label)}}
        for i, label in enumerate(d.get("labels") or [])
        if label.get("message")
    ]
    if related:
        result["relatedLocations"] = related
    if d.get("fingerprint"):
        result["partialFingerprints"] = {FINGERPRINT_KEY: d["fingerprint"]}
    fixes = _fixes(d)
    if fixes:
        result["fixes"] = fixes
    if suppressed_by is not None:
        result["suppressions"] = [{"kind": "external", "status": "accepted",
                                   "justification": f"known finding, listed in the baseline {suppressed_by}"}]
    return result


def to_dict(report: Report) -> dict[str, Any]:
    every = [*report.diagnostics, *report.baselined]
    rules = _rules(report, every)
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = [_result(d, index, None) for d in report.diagnostics]
    results += [_result(d, index, report.baseline_file or "baseline") for d in report.baselined]
    notifications = [
        {"level": "error", "message": {"text": str(e.get("message"))},
         "locations": [{"physicalLocation": {"artifactLocation": _artifact(str(e.get("path")))}}]}
        for e in report.rule_errors
    ]
    if report.no_rule_ran is not None:
        notifications.insert(0, {"level": "error", "message": {"text": f"No rule ran: {report.no_rule_ran}."}})
    run: dict[str, Any] = {
        "tool": {"driver": {"name": TOOL_NAME, "version": report.tool_version, "semanticVersion": report.tool_version,
                            "informationUri": INFORMATION_URI, "rules": rules}},
        "originalUriBaseIds": {SRCROOT: {"uri": report.root.as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "invocations": [{"executionSuccessful": not report.rule_errors and report.no_rule_ran is None,
                         "toolConfigurationNotifications": notifications}],
    }
    if report.truncated:
        run["properties"] = {"truncated": True}
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render(report: Report) -> str:
    return report.dumps(to_dict(report))
