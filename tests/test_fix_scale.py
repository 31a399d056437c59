"""Fix-it verification is linear in the number of fix-its: fixes whose matches do not touch share one edited
copy, a copy with a bad fix is halved until it stands alone, and judging a copy maps matches by bisection."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from sgtools.core.settings import Settings
from sgtools.edit.text import Span
from sgtools.engine.process import Engine
from sgtools.fixits.judge import Member, _cuts, _map_through, _Shifts
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.workflows import apply_fixes as apply
from tests.faults import report

RULE = ("id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nmetadata: {fixSafety: safe}\n"
        "rule: {pattern: eval($X)}\nfix: safe_eval($X)\n")


def _member(start: int, end: int, new: str) -> Member:
    return Member(0, {}, {"byteStart": start, "byteEnd": end}, Span(start, end, new, {}))  # type: ignore[typeddict-item]


def test_bisected_mapping_agrees_with_edit_by_edit_mapping() -> None:
    rng = random.Random(7)
    for _ in range(300):
        members, pos = [], 0
        for _ in range(rng.randint(1, 12)):
            pos += rng.randint(0, 6)
            end = pos + rng.choice([0, 0, 1, 2, 5])
            members.append(_member(pos, end, "x" * rng.randint(0, 7)))
            pos = end + (1 if end == pos else 0)
        cuts = _cuts(members)  # the members' edits, as judge maps them (a fix-it's import edit is one more cut)
        desc = list(reversed(cuts))
        shifts = _Shifts(cuts)
        for _ in range(40):
            a = rng.randint(0, pos + 3)
            b = a + rng.randint(1, 9)
            assert shifts.map((a, b)) == _map_through((a, b), desc), (members, (a, b))


def _project(root: Path, lines: int, bad_every: int = 0) -> Workspace:
    root.mkdir()
    ws = Workspace(root)
    project.initialize(ws)
    (root / "rules" / "no-eval.yml").write_text(RULE)
    (root / "rules" / "wrap.yml").write_text("id: wrap\nlanguage: python\nseverity: error\nmessage: w\n"
                                            "metadata: {fixSafety: safe}\nrule: {pattern: wrap($X)}\n"
                                            "fix: wrap(wrap($X))\n")
    body = "".join(f"a{i} = wrap(x{i})\n" if bad_every and i % bad_every == 0 else f"a{i} = eval(x{i})\n"
                   for i in range(lines))
    (root / "big.py").write_text(body)
    return ws


def _scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Per `ast-grep scan` call, how many texts it read: the project's files (1 here) or verification batches."""
    seen: list[int] = []
    real = Engine.scan

    def counting(self: Engine, **kw: Any) -> Any:
        seen.append(0 if kw.get("stdin") is None else 1)
        return real(self, **kw)

    monkeypatch.setattr(Engine, "scan", counting)
    return seen


def test_more_findings_than_a_page_are_scanned_and_verified_once(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """apply_fixes takes every finding from one engine pass and one verification, as `scan --fix` does: pages of
    hard_max_results each ran the whole scan again and verified against the whole file again (30,000 findings:
    3 of each)."""
    ws = _project(tmp_path / "p", 12)
    ws = Workspace(ws.root, settings=Settings(hard_max_results=5))  # 12 findings: 3 pages of the MCP tool
    seen = _scans(monkeypatch)
    res = apply.apply_fixes(ws, Engine(settings=ws.settings), apply=False)
    assert res["fixesApplied"] == 12 and not res["skipped"]
    assert len(seen) == 2, seen  # the scan and one verification round (12 fixes in one copy); 6 with pages


def test_fixes_past_the_verification_budget_are_verified_page_by_page(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """When one verification cannot check them all (fixit_verify_max per call), pages verify each its own:
    every fix is still verified and applied, as with pages alone."""
    ws = _project(tmp_path / "p", 12)
    ws = Workspace(ws.root, settings=Settings(hard_max_results=5, fixit_verify_max=5))
    res = apply.apply_fixes(ws, Engine(settings=ws.settings), apply=True)
    assert res["fixesApplied"] == 12 and not res["skipped"], res["skipped"][:3]
    assert (ws.root / "big.py").read_text().count("safe_eval(") == 12


@pytest.mark.slow  # thousands of fix-its verified: about 50 s on the shared 2-core machine
def test_a_few_bad_fixes_among_many_cost_log_rounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _project(tmp_path / "p", 2000, bad_every=500)  # 4 fixes that still fire among 1,996 good ones
    calls: list[Any] = []
    real = Engine.run

    def counting(self: Engine, args: list[str], **kw: Any) -> Any:
        calls.append(args[0])
        return real(self, args, **kw)

    monkeypatch.setattr(Engine, "run", counting)
    res = apply.apply_fixes(ws, Engine(), apply=False)
    assert res["fixesApplied"] == 1996
    assert {s["ruleId"] for s in res["skipped"]} == {"wrap"} and len(res["skipped"]) == 4
    assert calls.count("scan") <= 2 + 12  # the scan, the combined copy, then halves: log2(2000) < 11


@pytest.mark.slow
def test_catalogue_30000_fixes_in_one_file_are_applied(tmp_path: Path) -> None:
    ws = _project(tmp_path / "p", 30_000)
    start = time.monotonic()
    res = apply.apply_fixes(ws, Engine(), apply=True)
    took = time.monotonic() - start
    text = (ws.root / "big.py").read_text()
    failures = [] if res["fixesApplied"] == 30_000 and text.count("safe_eval(") == 30_000 and not res["skipped"] \
        else [f"applied {res['fixesApplied']}, skipped {len(res['skipped'])}"]
    print(f"\n30,000 fixes applied in {took:.1f} s")
    report("30,000 fixable findings in one file", 30_000, failures)
