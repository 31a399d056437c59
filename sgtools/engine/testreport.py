"""`ast-grep test` output read into a report: it has no JSON, so its status lines and case blocks are parsed.

Apart from engine/process.py: only a rule's tests (`rule add`, `rule test`, the test-runner tools) read it, so a
scan does not define these classes or compile these patterns at start-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class TestCaseFailure:
    kind: str  # "noisy" (a valid case matched), "missing" (an invalid case did not), "wrong" (snapshot)
    rule_id: str
    code: str


@dataclass
class TestReport:
    passed: bool
    summary: str
    failures: list[TestCaseFailure] = field(default_factory=list)
    statuses: dict[str, str] = field(default_factory=dict)  # rule id -> ".NM" status string
    not_found: list[str] = field(default_factory=list)  # test files naming an unknown rule id


_STATUS = re.compile(r"^(PASS|FAIL) (\S+)\s+([.NMWU]*)\s*$")
_CASE = re.compile(r"^\[(Noisy|Missing|Wrong)\] (.*)$")


def parse_test_output(text: str, ok: bool) -> TestReport:
    """`ast-grep test` has no JSON: read its status lines and case blocks."""
    report = TestReport(passed=ok, summary="")
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if (m := _STATUS.match(line)) is not None:
            report.statuses[m.group(2)] = m.group(3)
        elif line.startswith("Configuration not found! "):
            report.not_found.append(line.split("! ", 1)[1].strip())
        elif line.startswith("test result:"):
            report.summary = line.strip()
        elif (m := _CASE.match(line)) is not None:
            kind = m.group(1).lower()
            rule = re.search(r"(?:rule )?([A-Za-z0-9][A-Za-z0-9._-]*) (?:to report|snapshot)", m.group(2))
            j = i + 1
            block: list[str] = []
            while j < len(lines) and not _CASE.match(lines[j]) and not _STATUS.match(lines[j]):
                block.append(lines[j])
                j += 1
            code = "\n".join(ln[2:] if ln.startswith("  ") else ln for ln in block).strip("\n")
            report.failures.append(TestCaseFailure(kind, rule.group(1) if rule else "", code))
            i = j
            continue
        i += 1
    if not report.summary:
        report.summary = "test result: ok" if ok else "test result: failed"
    return report
