"""`ast-grep test` output read into a report: it has no JSON, so its status lines and case blocks are parsed.

Apart from engine/process.py: only a rule's tests (`rule add`, `rule test`, the test-runner tools) read it, so a
scan does not define these classes or compile these patterns at start-up.
"""

from __future__ import annotations

import re


class TestCaseFailure:
    __slots__ = ("code", "kind", "rule_id")

    def __init__(self, kind: str, rule_id: str, code: str) -> None:
        self.kind = kind  # "noisy" (a valid case matched), "missing" (an invalid case did not), "wrong" (snapshot)
        self.rule_id = rule_id
        self.code = code


class TestReport:
    __slots__ = ("failures", "not_found", "passed", "statuses", "summary")

    def __init__(self, passed: bool, summary: str, failures: list[TestCaseFailure] | None = None,
                 statuses: dict[str, str] | None = None, not_found: list[str] | None = None) -> None:
        self.passed = passed
        self.summary = summary
        self.failures: list[TestCaseFailure] = [] if failures is None else failures
        self.statuses: dict[str, str] = {} if statuses is None else statuses  # rule id -> ".NM" status string
        self.not_found: list[str] = [] if not_found is None else not_found  # test files naming an unknown rule id


# One character per case, or, past about 40 cases, counts between dots: `....Pass × 46, Noisy × 1....`
_STATUS = re.compile(r"^(PASS|FAIL) (\S+)\s+([.NMWU]*|\.*[A-Z][a-z]+ × \d+(?:, [A-Z][a-z]+ × \d+)*\.*)\s*$")
_COUNT = re.compile(r"([A-Z][a-z]+) × (\d+)")
_CASE = re.compile(r"^\[(Noisy|Missing|Wrong)\] (.*)$")


def parse_test_output(text: str, ok: bool) -> TestReport:
    """`ast-grep test` has no JSON: read its status lines and case blocks."""
    report = TestReport(passed=ok, summary="")
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if (m := _STATUS.match(line)) is not None:
            report.statuses[m.group(2)] = _status_chars(m.group(3))
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


def _status_chars(status: str) -> str:
    """The one-character-per-case form of a status, from ast-grep's counted form when it printed that."""
    if "×" not in status:
        return status
    return "".join(("." if name == "Pass" else name[0]) * int(n) for name, n in _COUNT.findall(status))
