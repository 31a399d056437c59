"""`sgtools scan --summary`: per rule, what the scan found and what it left out (issue 21), so a reader sees
at once which rules are noisy and why findings are missing: suppressed for an equivalent check of another
linter, in test code, or in generated or bundled files."""

# No `from __future__ import annotations`: typing compiles each string annotation of a TypedDict (the first
# compile() of a process also sets up the AST types, ~10 million instructions of every `sgtools rule` command).
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from sgtools.contracts.scan import Diagnostic


class SummaryRow(TypedDict):
    ruleId: str
    findings: int  # reported (after baseline and --changed-since)
    suppressed: int  # silenced by an equivalent check's inline suppression
    inTests: int  # reported findings in test code
    skippedInTests: int  # dropped in tests by the rule's metadata.inTests: skip
    generated: int  # dropped in generated or bundled files


def rows(diags: "Iterable[Diagnostic]", signal: Mapping[str, Any]) -> list[SummaryRow]:
    """One row per rule that found or dropped anything, most findings first."""
    found: dict[str, int] = {}
    in_tests: dict[str, int] = {}
    for d in diags:
        found[d["ruleId"]] = found.get(d["ruleId"], 0) + 1
        if d.get("inTest"):
            in_tests[d["ruleId"]] = in_tests.get(d["ruleId"], 0) + 1
    counted = {k: dict(signal.get(k) or {}) for k in ("suppressed", "skippedInTests", "generated")}
    ids = set(found) | {r for c in counted.values() for r in c}
    out: list[SummaryRow] = [{"ruleId": r, "findings": found.get(r, 0), "suppressed": counted["suppressed"].get(r, 0),
                              "inTests": in_tests.get(r, 0), "skippedInTests": counted["skippedInTests"].get(r, 0),
                              "generated": counted["generated"].get(r, 0)} for r in ids]
    out.sort(key=lambda row: (-row["findings"], row["ruleId"]))
    return out


HEADERS = ("rule", "findings", "suppressed", "in tests", "skipped in tests", "skipped generated")


def render(table: list[SummaryRow], signal: Mapping[str, Any]) -> str:
    """A plain-text table, a totals line and the generated files that were skipped."""
    body = [(r["ruleId"], r["findings"], r["suppressed"], r["inTests"], r["skippedInTests"], r["generated"])
            for r in table]
    totals = ("total", *(sum(int(row[i]) for row in body) for i in range(1, len(HEADERS))))
    width = max([len(HEADERS[0]), *(len(str(row[0])) for row in [*body, totals])])
    lines = ["  ".join([HEADERS[0].ljust(width), *HEADERS[1:]])]
    for row in [*body, totals]:
        lines.append("  ".join([str(row[0]).ljust(width),
                                *(str(v).rjust(len(h)) for v, h in zip(row[1:], HEADERS[1:], strict=True))]))
    lines.extend(_generated(signal.get("skippedGenerated") or [], sum((signal.get("generated") or {}).values())))
    return "\n".join(lines) + "\n"


NAMED_GENERATED = 10  # generated files the summary names; a vendored tree of hundreds is a count, not a page
NAMED_IN_LINE = 3  # generated files the text report's "Also:" line names


def _generated(files: list[Mapping[str, str]], dropped: int) -> list[str]:
    """How many generated files were skipped, by kind, then the first few by name (only files that had
    findings are examined, so each named one would have had some; --json lists them all)."""
    if not files:
        return []
    kinds: dict[str, int] = {}
    for f in files:
        kinds[f["why"]] = kinds.get(f["why"], 0) + 1
    by_kind = ", ".join(f"{n} {why}" for why, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    out = [f"skipped as generated: {len(files)} file(s), {dropped} finding(s) ({by_kind})"]
    out.extend(f"  {f['file']} ({f['why']})" for f in files[:NAMED_GENERATED])
    if len(files) > NAMED_GENERATED:
        out.append(f"  ... and {len(files) - NAMED_GENERATED} more (--json lists every one in skippedGenerated)")
    return out


def line(signal: Mapping[str, Any], diags: "Iterable[Diagnostic]") -> list[str]:
    """The one line the text report adds: what was left out or marked (none when nothing was)."""
    parts: list[str] = []
    suppressed = sum((signal.get("suppressed") or {}).values())
    if suppressed:
        parts.append(f"{suppressed} suppressed by other linters' comments")
    in_tests = sum(1 for d in diags if d.get("inTest"))
    skipped_tests = sum((signal.get("skippedInTests") or {}).values())
    if in_tests or skipped_tests:
        parts.append(f"{in_tests} in tests" + (f" ({skipped_tests} more skipped there)" if skipped_tests else ""))
    files = signal.get("skippedGenerated") or []
    if files:  # named: a skip is never silent (the first few here, every one with --summary or --json)
        named = ", ".join(f"{f['file']} ({f['why']})" for f in files[:NAMED_IN_LINE])
        rest = f" and {len(files) - NAMED_IN_LINE} more" if len(files) > NAMED_IN_LINE else ""
        parts.append(f"{sum((signal.get('generated') or {}).values())} in {len(files)} generated file(s) skipped: "
                     f"{named}{rest}")
    out = ["Also: " + "; ".join(parts) + " (--summary shows them per rule)."] if parts else []
    return out + _unchecked(signal.get("fileErrors") or [])


def _unchecked(errors: list[Any]) -> list[str]:
    """One line per kind of file that was not checked: never part of "no problems found"."""
    out: list[str] = []
    for code, what in (("io", "could not be read"), ("bad-input", "are not UTF-8 text")):
        unread = [f for f in errors if f.get("code") == code]
        if unread:
            names = ", ".join(str(f["file"]) for f in unread[:NAMED_IN_LINE])
            more = f" and {len(unread) - NAMED_IN_LINE} more" if len(unread) > NAMED_IN_LINE else ""
            out.append(f"[{code}] {len(unread)} file(s) {what} and were not checked: {names}{more} "
                       "(--format json lists them in fileErrors).")
    return out
