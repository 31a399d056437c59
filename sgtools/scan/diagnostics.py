"""Raw ast-grep matches -> SPEC Diagnostics: positions, messages, related spans and fix-its, in a stable order.

ast-grep's JSON is close to what agents need but not quite: lines are 0-based, output order is hash order,
`url` is never printed, every match repeats itself as a "primary" label, and fixes come as byte offsets.
This module is the one place that turns that into the public shape, so path scans, snippet scans, rule
tests and the CLI formats all report the same positions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from sgtools.contracts.common import SEVERITIES, severity
from sgtools.core import languages
from sgtools.core.errors import BadInput
from sgtools.core.settings import Settings, requested_results
from sgtools.edit.text import LineIndex, position
from sgtools.engine.texts import normalize_file
from sgtools.fixits import imports, safety
from sgtools.fixits.build import build_fixits, mark_conflicts, suppression
from sgtools.rules.ruleset import Rule

if TYPE_CHECKING:  # shapes only: the CLI's scan never loads contracts/scan.py (the server's schemas do)
    from sgtools.contracts.fixits import Fixit
    from sgtools.contracts.scan import Counts, Diagnostic, Label, Span
    from sgtools.engine.match import AstGrepMatch, MatchRange

D = TypeVar("D", bound=Mapping[str, Any])

SEVERITY_ORDER: dict[str, int] = {s: i for i, s in enumerate(SEVERITIES)}



def _range(raw_range: MatchRange) -> Span:
    offsets = raw_range["byteOffset"]
    return {**position(raw_range), "byteStart": int(offsets["start"]), "byteEnd": int(offsets["end"])}


def _labels(raw: AstGrepMatch, start: int, end: int) -> list[Label]:
    """Related spans of a match over bytes `start`..`end`. The primary label ast-grep adds to every match only
    repeats it, so it goes, unless the rule gave it a message or it covers some other span; duplicates (ast-grep
    repeats sub-matches) go too."""
    labels = raw.get("labels") or []
    if len(labels) == 1 and _repeats_match(labels[0], start, end):
        return []  # nearly every match: its one label is the repeated primary (no sets, no sort)
    out: list[Label] = []
    seen: set[tuple[Any, ...]] = set()
    for label in labels:
        if not isinstance(label, Mapping) or "range" not in label:
            continue
        if _repeats_match(label, start, end):
            continue  # decided before working out positions
        message = label.get("message")
        style = str(label.get("style") or "secondary")
        span = _range(label["range"])
        key = (style, message, span["byteStart"], span["byteEnd"])
        if key in seen:
            continue
        seen.add(key)
        out.append({"message": message, "style": style, "text": label.get("text"), **span})
    out.sort(key=lambda lb: (lb["byteStart"], lb["byteEnd"], lb["style"]))
    return out


def _repeats_match(label: Any, start: int, end: int) -> bool:
    """The primary label ast-grep adds to a match, without a message and over the match's own bytes. (`type is
    dict` first: the ABC check of `Mapping` costs more than the rest, once per finding.)"""
    if (type(label) is not dict and not isinstance(label, Mapping)) or "range" not in label or label.get("message"):
        return False
    offsets = label["range"]["byteOffset"]
    return label.get("style") == "primary" and int(offsets["start"]) == start and int(offsets["end"]) == end


def sort_key(diag: Mapping[str, Any]) -> tuple[str, int, str, int]:
    return (diag.get("file") or "", int(diag["byteStart"]), str(diag["ruleId"]), int(diag["byteEnd"]))


def _import_rules(rules_by_id: Mapping[str, Rule]) -> dict[str, dict[str, tuple[str, LineIndex, str, list[Fixit]]]]:
    """{rule id: {}} for the rules whose fixes carry imports (fixits/imports.py), to collect their fix-its per file."""
    return {rid: {} for rid, r in rules_by_id.items() if imports.declared(r.data) is not None}


def _attach_imports(with_imports: Mapping[str, Mapping[str, tuple[str, LineIndex, str, list[Fixit]]]],
                    rules_by_id: Mapping[str, Rule]) -> None:
    for rule_id, by_file in with_imports.items():
        for text, index, language, fixits in by_file.values():
            imports.attach(fixits, text, index, language, rules_by_id[rule_id].data)


def _fixits(raw: AstGrepMatch, diag: Diagnostic, index: LineIndex, language: str, rule: Rule | None,
            with_suppress: bool) -> None:
    """A finding's fix-its, their safety, and its `suppress` comment when the output shows it."""
    diag["fixits"] = build_fixits(raw, diag, index)
    safety.mark(diag["fixits"], rule.data if rule else None)
    if with_suppress:
        quiet = suppression(diag, index, language)
        if quiet is not None:
            diag["suppress"] = quiet


def to_diagnostics(
    raw_matches: Iterable[AstGrepMatch],
    *,
    text_by_file: Mapping[str, str],
    rules_by_id: Mapping[str, Rule],
    file_override: str | None = None,
    with_fixits: bool = True,
    with_suppress: bool = True,
) -> list[Diagnostic]:
    """SPEC Diagnostics, sorted by (file, byteStart, ruleId).

    `text_by_file` maps ast-grep's `file` field (as printed) to the scanned text; it is needed for fix-it
    positions. `file_override` names the file for snippet scans (ast-grep prints `STDIN`); pass None with
    snippet scans that have no virtual path. Fix-its come back unverified: `fixits.verify.verify_fixits` checks them.
    `with_suppress=False` leaves out each finding's `suppress` comment (text output never shows it, and on a
    dense tree working one out per finding is a tenth of the run).
    """
    out: list[Diagnostic] = []
    indexes: dict[str, LineIndex] = {}
    canonical: dict[str, str] = {}  # ast-grep's language name -> ours, worked out once per name
    files: dict[str, str | None] = {}  # ast-grep's file name -> ours, once per file
    # rules whose fixes carry imports (fixits/imports.py): their fix-its per file, for one import edit each
    with_imports = _import_rules(rules_by_id) if with_fixits else {}
    for raw in raw_matches:  # tens of thousands on a dense tree: each value is read once, the dict built once
        raw_file = str(raw.get("file", ""))
        if raw_file in files:
            file = files[raw_file]
        else:
            file = files[raw_file] = (file_override if file_override is not None or raw_file == "STDIN"
                                      else normalize_file(raw_file))
        rule_id = str(raw.get("ruleId", ""))
        rule = rules_by_id.get(rule_id)
        where = raw["range"]
        offsets, first, last = where["byteOffset"], where["start"], where["end"]
        byte_start, byte_end = int(offsets["start"]), int(offsets["end"])
        note = raw.get("note")
        diag: Diagnostic = {
            "ruleId": rule_id,
            "severity": severity(raw.get("severity") or (rule.severity if rule else "hint")),
            "message": str(raw.get("message") or ""),
            "note": note if note is not None else (rule.note if rule else None),
            "url": rule.url if rule else None,
            "file": file,
            "line": int(first["line"]) + 1, "column": int(first["column"]) + 1,
            "endLine": int(last["line"]) + 1, "endColumn": int(last["column"]) + 1,
            "byteStart": byte_start, "byteEnd": byte_end,
            "text": str(raw.get("text", "")),
            "labels": _labels(raw, byte_start, byte_end),
            "fixits": [],
            "inTest": bool(raw.get("inTest")),
        }
        text = text_by_file.get(raw_file)
        if with_fixits and text is not None:
            index = indexes.get(raw_file)
            if index is None:
                index = indexes[raw_file] = LineIndex(text.encode("utf-8"))
            named = str(raw.get("language", ""))
            language = canonical.get(named)
            if language is None:
                language = canonical[named] = languages.canonical(named) or named.lower()
            _fixits(raw, diag, index, language, rule, with_suppress)
            if diag["fixits"] and rule_id in with_imports:
                with_imports[rule_id].setdefault(raw_file, (text, index, language, []))[3].extend(diag["fixits"])
        out.append(diag)
    _attach_imports(with_imports, rules_by_id)
    out.sort(key=sort_key)
    if with_fixits:
        mark_conflicts(out)
    return out


def counts(diags: Iterable[Mapping[str, Any]]) -> Counts:
    result: Counts = {"error": 0, "warning": 0, "info": 0, "hint": 0}
    for d in diags:
        sev = d.get("severity")
        if sev in SEVERITY_ORDER:
            result[severity(sev)] += 1
    return result


def check_severity(min_severity: str | None) -> str | None:
    """A caller's `min_severity`, checked; None keeps everything."""
    if min_severity is None:
        return None
    value = str(min_severity).strip().lower()
    if value not in SEVERITY_ORDER:
        raise BadInput(f"min_severity {min_severity!r} is not one of {', '.join(SEVERITIES)}. Pass one of those.")
    return value


def filter_severity(diags: Sequence[D], min_severity: str | None) -> list[D]:
    """Keep diagnostics at or above `min_severity` (`error` is the highest, `hint` the lowest)."""
    level = check_severity(min_severity)
    if level is None:
        return list(diags)
    limit = SEVERITY_ORDER[level]
    return [d for d in diags if SEVERITY_ORDER.get(str(d.get("severity")), len(SEVERITY_ORDER)) <= limit]


def result_limit(max_results: object, settings: Settings) -> int:
    """How many findings a caller gets: what it asked for, within the hard maximum."""
    return min(requested_results(max_results, settings), settings.hard_max_results)
