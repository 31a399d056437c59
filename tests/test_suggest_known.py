"""Known rules (known.py, known_rules/<language>.yml): rules written for requests developers often make, offered
first by suggest_rule only when real ast-grep proves them on the caller's examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from bin import check_known
from sgtools.core import yamlio
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules import analysis
from sgtools.workflows.suggest import known
from sgtools.workflows.suggest.service import suggest_rule

INVALID = ["r = requests.get(url)", "requests.post(API, json=body)"]
VALID = ["r = requests.get(url, timeout=5)", "requests.post(API, json=body, timeout=3)"]
REQUEST = "requests calls need a timeout"
FORM = "a known rule (`requests-without-timeout`), proven on the examples"


@pytest.mark.parametrize("language", known.languages())
def test_every_known_rule_flags_its_cases_and_spares_its_near_misses(engine: Engine, language: str) -> None:
    assert known.own(language), language
    assert check_known.problems(engine, language) == []


@pytest.mark.parametrize("language", known.languages())
def test_the_rule_analyser_finds_no_error_in_a_known_rule(ws: Workspace, engine: Engine, language: str) -> None:
    rules = known.own(language)
    docs = [{"id": r.id, "language": language, "severity": "warning", "message": r.says, **r.body} for r in rules]
    found = analysis.analyse_rules(ws, engine, docs, examples=[{"valid": list(r.passes), "invalid": list(r.flags)}
                                                               for r in rules])
    refused = {r.id: analysis.refusal(f) for r, f in zip(rules, found, strict=True) if analysis.never_fires(f)}
    assert refused == {}


def test_the_library_covers_the_languages_requests_come_in() -> None:
    # A floor, not a target: the languages of the catalogues, each with rules for its everyday requests.
    assert {"python", "javascript", "typescript", "go", "rust", "java", "kotlin", "c", "cpp", "csharp", "ruby",
            "bash"} <= set(known.languages())
    assert sum(len(known.own(lang)) for lang in known.languages()) >= 250


def test_a_known_rule_proven_on_the_examples_is_offered_first(ws: Workspace, engine: Engine) -> None:
    (ws.root / "app.py").write_text("import requests\nrequests.put(u, data=d)\nrequests.get(u, timeout=1)\n",
                                    encoding="utf-8")
    result = suggest_rule(ws, engine, "python", INVALID, VALID, request=REQUEST, rule_id="timeout")
    assert result["success"] is True
    top = result["candidates"][0]
    assert top["form"] == FORM and top["why"].startswith("A rule written for requests like this one"), top
    doc = yamlio.load_one(top["yaml"])
    assert doc["id"] == "timeout" and doc["message"] == REQUEST and doc["severity"] == "warning"
    # It means the request, not the examples: a `put`, which no example shows, is flagged on the project.
    assert top["proof"]["places"] == ["app.py:2: requests.put(u, data=d)"]
    assert any(not c["form"].startswith("a known rule") for c in result["candidates"])  # the generaliser's too


def test_a_known_rule_that_flags_a_valid_example_is_not_offered(ws: Workspace, engine: Engine) -> None:
    # The developer wants only `get` flagged: the known rule flags the valid `post` and stays out.
    result = suggest_rule(ws, engine, "python", ["requests.get(url)", "x = requests.get(API, headers=h)"],
                          ["requests.post(url)", "requests.get(url, timeout=5)"], request=REQUEST)
    assert result["success"] is True
    assert not any(c["form"] == FORM for c in result["candidates"])


def test_the_request_scope_is_added_to_a_known_rule(ws: Workspace, engine: Engine) -> None:
    result = suggest_rule(ws, engine, "python", INVALID, VALID, request="in library code, requests need a timeout")
    top = result["candidates"][0]
    assert top["form"] == FORM
    assert "ignores" in yamlio.load_one(top["yaml"]) and "leaves out test code" in top["scope"]


def test_a_proven_draft_goes_before_a_known_rule(ws: Workspace, engine: Engine) -> None:
    draft = ("rule:\n  pattern: requests.$M($$$A)\n"
             "  not: {has: {stopBy: end, kind: keyword_argument, regex: ^timeout}}\n")
    result = suggest_rule(ws, engine, "python", INVALID, VALID, request=REQUEST, draft_rule=draft)
    assert [c["form"] for c in result["candidates"][:2]] == [
        "your draft (`draft_rule`), proven on the examples", FORM]


def test_the_rules_of_a_grammar_a_language_extends_are_tried_too() -> None:
    ts = {r.id for r in known.for_language("typescript")}
    assert {r.id for r in known.own("javascript")} <= ts and {r.id for r in known.own("typescript")} <= ts


def test_the_request_words_order_the_known_rules_that_separate() -> None:
    rule = known.own("python")[0]
    assert known.telling(rule, "requests need a timeout") >= 2
    assert known.telling(rule, None) == 0 and known.telling(rule, "no prints") == 0


def test_a_known_rule_the_request_does_not_name_follows_the_generalisers_top_rule(ws: Workspace,
                                                                                   engine: Engine) -> None:
    # The words share nothing with the known rule's: it was written for another request, so it comes second.
    result = suggest_rule(ws, engine, "python", INVALID, VALID, request="our API wrapper wants these written out")
    forms = [c["form"] for c in result["candidates"]]
    assert forms[0] != FORM and forms[1] == FORM, forms


def test_of_two_known_rules_that_fit_the_narrower_comes_first(ws: Workspace, engine: Engine) -> None:
    # Both fit blocks of unsafe code; `no-unsafe` also flags `unsafe fn` and `unsafe impl`, which nobody showed.
    invalid = ["fn a() { unsafe { f(); } }", "fn b(p: *const u8) -> u8 { unsafe { *p } }"]
    result = suggest_rule(ws, engine, "rust", invalid, ["fn a() { f(); }", "fn b(p: &u8) -> u8 { *p }"])
    known_forms = [c["form"] for c in result["candidates"] if c["form"].startswith("a known rule")]
    assert known_forms[0] == "a known rule (`no-unsafe-block`), proven on the examples", known_forms


def test_with_fix_examples_the_rule_carrying_the_verified_fix_stays_first(ws: Workspace, engine: Engine) -> None:
    # The caller asked for a fix: the generaliser's top rule carries the one their examples verify, a known rule none.
    result = suggest_rule(ws, engine, "javascript", ["const cfg = eval(input);", "eval(readFile(path) + suffix)"],
                          ["const cfg = JSON.parse(input);", "evaluate(x)"],
                          fix_examples=[{"before": "eval(data)", "after": "JSON.parse(data)"}])
    first, second = result["candidates"][:2]
    assert "fix" in first and not first["form"].startswith("a known rule"), first
    assert second["form"].startswith("a known rule"), second
    assert "No fix is inferred for a known rule" in " ".join(result["warnings"])


def test_words_yaml_reads_as_values_are_words_and_a_case_that_is_not_text_is_refused(tmp_path: Path) -> None:
    words = {r.id: r.words for r in known.own("scala")}
    assert "null" in words["no-null"]  # written `words: [null, ...]`: YAML's null, the writer's word
    doc = {"id": "x", "flags": ["let a = 1", {"let u = try? d.decode(U.self, from": "data)"}]}
    with pytest.raises(ValueError, match=r"known_rules/swift.yml, x: a `flags` case is not text .*quote it"):
        known._cases("swift", doc, "flags")
