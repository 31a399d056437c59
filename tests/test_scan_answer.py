"""scan_code's answer on a snippet with 7 findings of the bundled Python rules (issue 31): small structured
findings (the rule's note and url once per result, no byte offsets, verification summed up), and a text that
carries the remedy of a finding without a fix. Real ast-grep, the real bundled rules, in a temp project."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from bin.bench_bundled import SNIPPETS
from sgtools.core.bundled import bundled_dir
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.present.answer import first_sentence
from sgtools.project.workspace import Workspace
from sgtools.server.spec import App
from sgtools.server.tools import TOOLS

SNIPPET = SNIPPETS["python"]["findings"]  # the B1 bench's 7-finding snippet: one copy for both
MAX_FINDING_BYTES = 700  # issue 31: a typical finding with one fix; the old Diagnostic was ~1,200


def _bytes(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")))


@pytest.fixture(scope="module")
def answer(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    root = tmp_path_factory.mktemp("py")
    shutil.copytree(bundled_dir() / "rules" / "python", root / "rules")
    (root / "sgconfig.yml").write_text("ruleDirs:\n- rules\n", encoding="utf-8")
    app = App(Workspace(str(root)), Engine(), Settings())
    spec = {t.name: t for t in TOOLS}["scan_code"]
    data = dict(spec.call(app, {"code": SNIPPET, "language": "python"}))
    return data, spec.render(data)


def test_seven_findings_each_small(answer: tuple[dict[str, Any], str]) -> None:
    data, _ = answer
    issues = data["issues"]
    assert len(issues) == 7, [d["ruleId"] for d in issues]
    with_one_fix = [d for d in issues if len(d["fixits"]) == 1]
    assert len(with_one_fix) >= 4
    sizes = {d["ruleId"]: _bytes(d) for d in issues}
    assert max(sizes.values()) <= MAX_FINDING_BYTES, sizes
    rest = _bytes({k: v for k, v in data.items() if k not in ("issues", "rules")})
    # what the result costs per finding beyond the rules' own facts, which it says once
    assert (_bytes(data) - _bytes(data["rules"]) - rest) / len(issues) <= MAX_FINDING_BYTES


def test_rule_facts_once_and_verification_summed_up(answer: tuple[dict[str, Any], str]) -> None:
    data, _ = answer
    assert set(data["rules"]) == {d["ruleId"] for d in data["issues"]}
    for d in data["issues"]:
        assert not {"note", "url", "byteStart", "byteEnd"} & set(d), d
        for fx in d["fixits"]:
            assert set(fx) <= {"title", "safety", "confidence", "verified", "edits", "why", "conflictsWith"}
            assert fx["verified"] or fx["why"]
    dumped = json.dumps(data)
    for facts in data["rules"].values():
        assert facts.get("note") and dumped.count(json.dumps(facts["note"])) == 1


def test_text_carries_the_remedy_of_a_finding_without_a_fix(answer: tuple[dict[str, Any], str]) -> None:
    data, text = answer
    without = [d for d in data["issues"] if not d["fixits"]]
    assert without
    for d in without:
        remedy = first_sentence(data["rules"][d["ruleId"]]["note"])
        line = next(x for x in text.splitlines() if f"[{d['ruleId']}]" in x)
        assert remedy and remedy in line, (remedy, line)


def test_first_sentence() -> None:
    assert first_sentence("Use parameterized queries. Never format SQL.") == "Use parameterized queries."
    assert first_sentence("a\nb; c") == "a b."
    assert first_sentence(None) == ""
    assert len(first_sentence("x" * 500)) == 200
