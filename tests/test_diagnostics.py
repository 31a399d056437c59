"""Diagnostics: 1-based code-point positions, byte offsets, labels, url, order, counts and severity filters."""

from __future__ import annotations

from typing import Any

import pytest

from sgtools.core.errors import BadInput
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan import diagnostics, snippet

CALL_RULE = """id: call
language: python
severity: warning
message: call of $F
url: https://example.com/call
rule: {pattern: $F($$$A)}
"""
LABELLED = """id: labelled
language: python
severity: error
message: with labels
rule:
  pattern: $F($A)
labels:
  F:
    style: primary
    message: the function $F
  A:
    style: secondary
    message: the argument
"""
HAS_RULE = """id: has-eval
language: python
severity: info
rule:
  kind: function_definition
  has: {pattern: eval($X), stopBy: end}
"""


@pytest.fixture
def proj(initialized: Workspace) -> Workspace:
    for name, text in (("call", CALL_RULE), ("labelled", LABELLED), ("has-eval", HAS_RULE)):
        (initialized.root / "rules" / f"{name}.yml").write_text(text)
    return initialized


def expected_position(text: str, needle: str, occurrence: int = 0) -> dict[str, int]:
    """Where `needle` is, computed independently with Python's code-point strings."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(needle, start + 1)
    end = start + len(needle)

    def pos(i: int) -> tuple[int, int]:
        before = text[:i]
        line = before.count("\n") + 1
        return line, i - (before.rfind("\n") + 1) + 1

    (line, col), (end_line, end_col) = pos(start), pos(end)
    return {"line": line, "column": col, "endLine": end_line, "endColumn": end_col,
            "byteStart": len(text[:start].encode()), "byteEnd": len(text[:end].encode())}


def position(d: dict[str, Any]) -> dict[str, int]:
    return {k: d[k] for k in ("line", "column", "endLine", "endColumn", "byteStart", "byteEnd")}


@pytest.mark.parametrize("text", [
    "x = 'héllo wörld'; f(x)\n",
    "s = '😀😀'; g(s, '🎉')\n",
    "名前 = '日本語テキスト'; h(名前)\n",
    "a = 1\r\nb = 'ça'\r\nk(a,\r\n  b)\r\n",
    "# ünïcödé comment\n\n\tt = '😀'\n\tm('中文', t)\n",
])
def test_positions_are_code_points_and_bytes(proj: Workspace, engine: Engine, text: str) -> None:
    res = snippet.scan_code(proj, engine, text, language="python", path="pkg/mod.py")
    calls = [d for d in res["issues"] if d["ruleId"] == "call"]
    assert calls
    data = text.encode("utf-8")
    for d in calls:
        assert data[d["byteStart"]:d["byteEnd"]].decode("utf-8") == d["text"]
        nth = text[: len(data[: d["byteStart"]].decode("utf-8"))].count(d["text"])
        assert position(d) == expected_position(text, d["text"], nth)
        assert d["file"] == "pkg/mod.py"
        assert d["url"] == "https://example.com/call"


def test_crlf_positions_do_not_count_carriage_returns(proj: Workspace, engine: Engine) -> None:
    text = "a = 1\r\nf(a)\r\n"
    [d] = [d for d in snippet.scan_code(proj, engine, text, language="python")["issues"] if d["ruleId"] == "call"]
    assert position(d) == {"line": 2, "column": 1, "endLine": 2, "endColumn": 5, "byteStart": 7, "byteEnd": 11}


def test_labels_keep_messages_and_secondary_spans(proj: Workspace, engine: Engine) -> None:
    text = "def f():\n    return eval(s)\n"
    res = snippet.scan_code(proj, engine, text, language="python")
    labelled = next(d for d in res["issues"] if d["ruleId"] == "labelled")
    assert [(lb["style"], lb["message"], lb["text"]) for lb in labelled["labels"]] == [
        ("primary", "the function $F", "eval"),  # ast-grep does not interpolate label messages
        ("secondary", "the argument", "s"),
    ]
    arg = text.index("eval(s)") + len("eval(")
    assert position(labelled["labels"][1]) == {"line": 2, "column": arg - text.index("\n"), "endLine": 2,
                                               "endColumn": arg - text.index("\n") + 1, "byteStart": arg,
                                               "byteEnd": arg + 1}
    has = next(d for d in res["issues"] if d["ruleId"] == "has-eval")
    assert [(lb["style"], lb["text"]) for lb in has["labels"]] == [("secondary", "eval(s)")]
    call = next(d for d in res["issues"] if d["ruleId"] == "call")
    assert call["labels"] == []  # only the default primary label, which repeats the match


def test_order_is_file_offset_rule() -> None:
    def raw(file: str, start: int, rule: str) -> dict[str, Any]:
        r = {"byteOffset": {"start": start, "end": start + 1}, "start": {"line": 0, "column": start},
             "end": {"line": 0, "column": start + 1}}
        return {"file": file, "ruleId": rule, "severity": "info", "message": "", "note": None, "text": "x",
                "range": r, "labels": [{"text": "x", "range": r, "style": "primary"}], "language": "Python"}

    matches = [raw("b.py", 0, "r1"), raw("./a.py", 5, "r2"), raw("a.py", 5, "r1"), raw("a.py", 0, "r3")]
    out = diagnostics.to_diagnostics(matches, text_by_file={}, rules_by_id={})
    assert [(d["file"], d["byteStart"], d["ruleId"]) for d in out] == [
        ("a.py", 0, "r3"), ("a.py", 5, "r1"), ("a.py", 5, "r2"), ("b.py", 0, "r1")]
    assert all(d["labels"] == [] and d["url"] is None for d in out)
    from_snippet = diagnostics.to_diagnostics([{**matches[0], "file": "STDIN"}], text_by_file={}, rules_by_id={})
    assert from_snippet[0]["file"] is None


def test_counts_and_severity_filter() -> None:
    diags: list[dict[str, Any]] = [{"severity": s} for s in ("error", "hint", "warning", "hint", "info")]
    assert diagnostics.counts(diags) == {"error": 1, "warning": 1, "info": 1, "hint": 2}
    assert [d["severity"] for d in diagnostics.filter_severity(diags, "warning")] == ["error", "warning"]
    assert len(diagnostics.filter_severity(diags, None)) == 5
    assert len(diagnostics.filter_severity(diags, "HINT")) == 5
    assert list(diagnostics.SEVERITY_ORDER) == ["error", "warning", "info", "hint"]
    with pytest.raises(BadInput):
        diagnostics.filter_severity(diags, "critical")
