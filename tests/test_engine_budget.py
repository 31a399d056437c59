"""Engine calls per request are bounded: a draft with 8,000 `any` alternatives used to start 16,002 ast-grep
processes (87-98 s); the rule analysis now stops at SGTOOLS_ANALYSIS_MAX_ENGINE_CALLS and says so."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows import rule_testing as testing


@pytest.mark.slow
def test_a_draft_too_large_to_analyse_is_capped_and_said(initialized: Workspace,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: Counter[str] = Counter()
    real = Engine.run

    def counting(self: Engine, args: list[str], **kw: Any) -> Any:
        calls[args[0]] += 1
        return real(self, args, **kw)

    monkeypatch.setattr(Engine, "run", counting)
    rule = ("id: big\nlanguage: python\nseverity: error\nmessage: m\nrule:\n  any:\n"
            + "".join(f"    - pattern: f{i}()\n" for i in range(8000)))
    start = time.monotonic()
    res = testing.test_rule(initialized, Engine(), rule, code="f1()\nf7999()\n")
    took = time.monotonic() - start
    assert [m["line"] for m in res["matches"]] == [1, 2]  # the rule itself is still tested in full
    assert sum(calls.values()) <= 200 + 10, calls
    notes = [a for a in res["analysis"] if a["code"] == "not-analysed"]
    assert notes and "7800 of 8000 patterns were not analysed" in notes[0]["message"]
    assert "SGTOOLS_ANALYSIS_MAX_ENGINE_CALLS" in notes[0]["message"]
    print(f"\n8,000 alternatives: {sum(calls.values())} ast-grep calls, {took:.1f} s")
