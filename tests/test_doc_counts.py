"""The counts the README and docs/ quote match the repository: rules, languages, rules with a fix and how many
of those fixes are safe, rules naming other linters' equivalents, that each rule is tested, and the sizes of the
evaluation catalogues (requests, drafts, languages). A rule added or removed
without the prose following fails here (the counts went stale in docs/fixes.md and the README before)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from sgtools.core import yamlio
from sgtools.core.bundled import bundled_dir
from sgtools.workflows.suggest import known

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def rules() -> list[dict[str, Any]]:
    return [yamlio.load_one(p.read_bytes()) for p in sorted((bundled_dir() / "rules").rglob("*.yml"))]


def doc(name: str) -> str:
    return " ".join((REPO / name).read_text(encoding="utf-8").split())  # one line: figures wrap anywhere


def quoted(text: str, pattern: str) -> list[int]:
    found = [int(m.replace(",", "")) for m in re.findall(pattern, text)]
    assert found, f"the figure is gone from the text: {pattern}"  # a figure dropped must drop its check here too
    return found


def test_the_rule_and_language_counts_match(rules: list[dict[str, Any]]) -> None:
    readme = doc("README.md")
    languages = {r["language"] for r in rules}
    assert quoted(readme, r"a bundled index of (\d+) tested community rules") == [len(rules)]
    assert quoted(readme, r"tested community rules\*?\*? for (\d+) languages") == [len(languages)]
    assert quoted(readme, r"`community_index/`: (\d+) original rules") == [len(rules)]
    assert quoted(doc("docs/rule-analysis.md"), r"the bundled rules \((\d+) today\)") == [len(rules)]
    listed = re.search(r"original rules for (.*?), each with valid", readme)
    assert listed, "the README's list of the bundled languages"
    named = {w.strip() for w in re.split(r",| and ", listed.group(1).replace("yaml (GitHub Actions)", "yaml"))}
    assert named == languages


def test_the_fix_and_equivalent_counts_match(rules: list[dict[str, Any]]) -> None:
    readme = doc("README.md")
    with_fix = sum("fix" in r for r in rules)
    share = quoted(readme, r"(\d+)% \(\d+\) with a verified fix")
    assert quoted(readme, r"\d+% \((\d+)\) with a verified fix") == [with_fix]
    assert share == [round(100 * with_fix / len(rules))]
    equivalents = sum(bool((r.get("metadata") or {}).get("equivalents")) for r in rules)
    assert quoted(doc("docs/signal.md"), r"(\d+) of the \d+ bundled rules do") == [equivalents]
    assert quoted(doc("docs/signal.md"), r"\d+ of the (\d+) bundled rules do") == [len(rules)]


def test_every_bundled_rule_is_tested(rules: list[dict[str, Any]]) -> None:
    """"tested community rules": each has its rule-test file with at least one valid and one invalid case."""
    tests = {}
    for path in sorted((bundled_dir() / "rule-tests").glob("*.yml")):
        t = yamlio.load_one(path.read_bytes())
        tests[t["id"]] = t
    missing = [r["id"] for r in rules if not (tests.get(r["id"], {}).get("valid") and tests[r["id"]].get("invalid"))]
    assert missing == []


def test_the_safe_fix_count_matches(rules: list[dict[str, Any]]) -> None:
    """docs/fixes.md: how many bundled fixes are `safe`, of how many fixes (it said 112 when the rules had 115)."""
    fixes = [r for r in rules if "fix" in r]
    safe = sum((r.get("metadata") or {}).get("fixSafety") == "safe" for r in fixes)
    text = doc("docs/fixes.md")
    assert quoted(text, r"(\d+) of the \d+ are `safe`") == [safe]
    assert quoted(text, r"\d+ of the (\d+) are `safe`") == [len(fixes)]


def test_the_catalogue_sizes_match() -> None:
    """The evaluation catalogues' sizes as docs/suggest-rule.md and docs/rule-analysis.md quote them."""
    from tests import analysis_catalogue, intent_catalogue, suggest_catalogue

    suggest = doc("docs/suggest-rule.md")
    old, fresh = suggest_catalogue.CATALOGUE, suggest_catalogue.FRESH
    assert quoted(suggest, r"The catalogue: (\d+) requests in \d+ languages") == [len(old)]
    assert quoted(suggest, r"The catalogue: \d+ requests in (\d+) languages") == [len({r.language for r in old})]
    assert quoted(suggest, r"A second set of (\d+) fresh requests in \d+ languages") == [len(fresh)]
    fresh_languages = len({r.language for r in fresh})
    assert quoted(suggest, r"A second set of \d+ fresh requests in (\d+) languages") == [fresh_languages]
    intent = intent_catalogue.load()
    assert quoted(suggest, r"intent_catalogue\.yml`: (\d+) requests in \d+ languages") == [len(intent)]
    intent_languages = {r.language for r in intent}
    assert quoted(suggest, r"intent_catalogue\.yml`: \d+ requests in (\d+) languages") == [len(intent_languages)]
    listed = re.search(r"intent_catalogue\.yml`: \d+ requests in \d+ languages \(([^)]*)\)", suggest)
    assert listed and {w.strip() for w in listed.group(1).split(",")} == intent_languages
    analysis = doc("docs/rule-analysis.md")
    broken = analysis_catalogue.BROKEN
    assert quoted(analysis, r"(\d+) broken drafts over \d+ languages") == [len(broken)]
    assert quoted(analysis, r"\d+ broken drafts over (\d+) languages") == [len({d.language for d in broken})]
    assert quoted(analysis, r"broken drafts over \d+ languages \((\d+) Go") == [len(analysis_catalogue.GO)]
    assert quoted(analysis, r"(\d+) correct-but-suspicious drafts") == [len(analysis_catalogue.CORRECT)]


def tsv_rows(name: str) -> list[list[str]]:
    lines = (REPO / "community_index" / name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


def test_the_fix_evidence_and_verdict_counts_match() -> None:
    """docs/fixes.md's proof of the `safe` fixes (applications in community_index/fix_evidence.tsv) and what the
    judging found (per-rule verdicts in community_index/fix_verdicts.tsv)."""
    text = doc("docs/fixes.md")
    applied = {row[0]: int(row[2]) for row in tsv_rows("fix_evidence.tsv")}
    for rule, spelled in (("getattr-constant-attribute-python", r"`obj\.name` for `getattr\(obj, \"name\"\)`"),
                          ("setattr-constant-attribute-python", r"`setattr\(obj, \"name\", v\)`"),
                          ("set-of-list-literal-python", r"`set\(\[a, b\]\)`"),
                          ("redundant-open-mode-python", r"`open\(f, \"r\"\)`")):
        assert quoted(text, spelled + r" \((\d+)\)") == [applied[rule]], rule
    verdicts: dict[str, list[str]] = {}
    for key, verdict, *_ in tsv_rows("fix_verdicts.tsv"):
        verdicts.setdefault(key.split("|")[0], []).append(verdict)

    def count(rule: str, verdict: str) -> tuple[int, int]:
        return verdicts[rule].count(verdict), len(verdicts[rule])

    def pair(pattern: str) -> tuple[int, int]:
        found = re.findall(pattern, text)
        assert len(found) == 1, pattern
        return int(found[0][0]), int(found[0][1])

    assert pair(r"\((\d+) of (\d+), which no re-parse can see") == count("deprecated-ioutil-go", "wrong")
    assert pair(r"wrong on SQLAlchemy expressions \((\d+) of (\d+)\)") == count("none-comparison-equality-python",
                                                                               "wrong")
    assert pair(r"cleanup-then-re-raise blocks \((\d+) of (\d+)\)") == count("bare-except-python", "wrong")
    assert pair(r"was wrong every time \((\d+) of (\d+)\)") == count("innerhtml-xss-javascript", "wrong")
    assert quoted(text, r"was right in all (\d+) of its places") == [count("in-array-non-strict-php", "right")[1]]
    assert count("in-array-non-strict-php", "right")[0] == count("in-array-non-strict-php", "right")[1]


def test_the_known_rule_counts_match() -> None:
    total = sum(len(known.own(lang)) for lang in known.languages())
    assert set(quoted(doc("README.md"), r"`known_rules/<language>.yml`, ([\d,]+) rules")) == {total}
    assert set(quoted(doc("docs/suggest-rule.md"), r"holds ([\d,]+) such rules")) == {total}
    assert set(quoted(doc("docs/suggest-rule.md"), r"such rules over (\d+) languages")) == {len(known.languages())}
