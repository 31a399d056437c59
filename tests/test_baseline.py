"""Baseline fingerprints: stable under unrelated line shifts, distinct for a second copy of the same finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sgtools.core.errors import BadInput
from sgtools.scan import baseline


def d(rule: str, file: str, line: int, start: int, text: str) -> dict[str, Any]:
    return {"ruleId": rule, "file": file, "line": line, "byteStart": start, "text": text, "severity": "error"}


def test_fingerprint_ignores_line_numbers_and_whitespace() -> None:
    before = baseline.fingerprints([d("no-eval", "a.py", 3, 20, "eval(x)")])
    after = baseline.fingerprints([d("no-eval", "a.py", 40, 900, "eval(x)")])
    assert before == after
    assert baseline.fingerprints([d("no-eval", "a.py", 3, 20, "foo(a,\n     b)")]) == \
        baseline.fingerprints([d("no-eval", "a.py", 9, 80, "foo(a, b)")])


def test_fingerprint_depends_on_rule_file_text_and_occurrence() -> None:
    base = baseline.fingerprints([d("no-eval", "a.py", 1, 0, "eval(x)")])[0]
    assert baseline.fingerprints([d("other", "a.py", 1, 0, "eval(x)")])[0] != base
    assert baseline.fingerprints([d("no-eval", "b.py", 1, 0, "eval(x)")])[0] != base
    assert baseline.fingerprints([d("no-eval", "a.py", 1, 0, "eval(y)")])[0] != base
    two = baseline.fingerprints([d("no-eval", "a.py", 9, 90, "eval(x)"), d("no-eval", "a.py", 1, 0, "eval(x)")])
    assert two[1] == base  # occurrences are counted in file order, not input order
    assert two[0] != base


def test_split_reports_only_new_findings(tmp_path: Path) -> None:
    old = baseline.with_fingerprints([d("no-eval", "a.py", 1, 0, "eval(x)")])
    path = tmp_path / "base.json"
    path.write_text(baseline.dumps(old), encoding="utf-8")
    known = baseline.load(path)
    now = baseline.with_fingerprints([d("no-eval", "a.py", 5, 50, "eval(x)"), d("no-eval", "a.py", 7, 70, "eval(x)"),
                                      d("no-eval", "a.py", 8, 80, "eval(z)")])
    new, hidden = known.split(now)
    assert [x["line"] for x in hidden] == [5]
    assert [x["line"] for x in new] == [7, 8]


def test_of_is_what_load_reads_back_from_dumps(tmp_path: Path) -> None:
    diags = baseline.with_fingerprints([d("r", "b.py", 2, 5, "x"), d("r", "a.py", 9, 1, "y"),
                                        d("r", "a.py", 9, 4, "y")])
    path = tmp_path / "base.json"
    path.write_text(baseline.dumps(diags), encoding="utf-8")
    assert baseline.of(diags, "base.json") == baseline.load(path, "base.json")
    assert len(baseline.of(diags, "base.json").known) == 3


def test_dumps_is_sorted_and_versioned() -> None:
    diags = baseline.with_fingerprints([d("r", "b.py", 2, 5, "x"), d("r", "a.py", 9, 1, "y")])
    doc = json.loads(baseline.dumps(diags))
    assert doc["version"] == 1
    assert [e["file"] for e in doc["findings"]] == ["a.py", "b.py"]
    assert baseline.dumps(diags) == baseline.dumps(list(reversed(diags)))


@pytest.mark.parametrize("content", ["not json", "[]", '{"version": 99, "findings": []}', '{"version": 1}'])
def test_load_rejects_what_is_not_a_baseline(tmp_path: Path, content: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BadInput):
        baseline.load(path)


def test_load_missing_file_says_how_to_create_it(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="--write-baseline"):
        baseline.load(tmp_path / "nope.json")
