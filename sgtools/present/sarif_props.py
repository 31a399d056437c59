"""SARIF rule `properties` that code-scanning platforms read: `tags` (the rule's category, `security`,
`external/cwe/cwe-NNN`), `security-severity` (a CVSS-like score as a string; GitHub: 9.0+ critical, 7.0+ high,
4.0+ medium, else low) on security rules, and `precision` (very-high | high | medium | low).

All of it comes from the rule's metadata: `tags` (its first tag is its category, as in the bundled rules),
`cwe` (a number, `CWE-79` or a list), `securitySeverity` (a number) and `precision`. A security rule that
declares no `securitySeverity` gets one from its severity; a rule that declares no `precision` is `medium`,
which says "not measured", not "measured medium".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

SECURITY_SEVERITY: Final = {"error": "8.0", "warning": "5.5", "info": "3.0", "hint": "1.0"}
PRECISIONS: Final = ("very-high", "high", "medium", "low")
UNMEASURED_PRECISION: Final = "medium"
_CWE = re.compile(r"(?i)\bcwe[-_ ]?(\d{1,5})\b")


def _tag_list(meta: Mapping[str, Any]) -> list[str]:
    raw = meta.get("tags")
    if isinstance(raw, str):
        raw = re.split(r"[,\s]+", raw)
    return [str(t).strip().lower() for t in raw or [] if str(t).strip()] if isinstance(raw, list | str) else []


def cwes(meta: Mapping[str, Any]) -> list[int]:
    """CWE numbers the rule's metadata names, in order, once each (`tags: [cwe-79]`, `cwe: CWE-79`)."""
    text = " ".join(_tag_list(meta))
    cwe = meta.get("cwe")
    text += " " + (" ".join(map(str, cwe)) if isinstance(cwe, list) else f" cwe-{cwe}" if isinstance(cwe, int)
                   else str(cwe or ""))
    out: list[int] = []
    for n in (int(m) for m in _CWE.findall(text)):
        if n not in out:
            out.append(n)
    return out


def properties(rule: Mapping[str, Any]) -> dict[str, Any]:
    """`tags`, `precision` and, on security rules, `security-severity` for one rule's SARIF descriptor."""
    meta = rule.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    tags = _tag_list(meta)
    numbers = cwes(meta)
    security = "security" in tags or bool(numbers)
    out_tags: list[str] = []
    category = next((t for t in tags if not _CWE.fullmatch(t)), None)  # the first tag, as the bundled rules
    for t in (category, "security" if security else None, *(f"external/cwe/cwe-{n}" for n in numbers)):
        if t and t not in out_tags:
            out_tags.append(t)
    props: dict[str, Any] = {"tags": out_tags}
    precision = str(meta.get("precision") or "").lower()
    props["precision"] = precision if precision in PRECISIONS else UNMEASURED_PRECISION
    if security:
        declared = meta.get("securitySeverity")
        if isinstance(declared, int | float) and not isinstance(declared, bool) and 0 <= declared <= 10:
            props["security-severity"] = f"{float(declared):.1f}"
        else:
            props["security-severity"] = SECURITY_SEVERITY.get(str(rule.get("severity")), "5.5")
    return props
