"""core/yamlio.py: rule YAML from agents and remote indexes is loaded safely (size, NUL, depth and alias-bomb
limits, errors with 1-based positions), parsed once per content, and rewritten without losing comments."""

from __future__ import annotations

import hashlib

import pytest

from sgtools.core import settings as settings_mod
from sgtools.core import yamlio
from sgtools.core.settings import Settings
from sgtools.core.yamlio import MAX_NODES, YamlError

# Six levels of ten aliases each: 10**6 nodes once expanded, from a few hundred bytes.
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcde", "bcdef", strict=True))


def test_load_all_and_load_one() -> None:
    assert yamlio.load_all("a: 1\n---\nb: [2, 3]\n") == [{"a": 1}, {"b": [2, 3]}]
    assert yamlio.load_one("id: x\nrule: {pattern: foo}\n") == {"id": "x", "rule": {"pattern": "foo"}}
    assert yamlio.load_one("") is None and yamlio.load_one("  \n") is None
    assert yamlio.load_one("---\nid: x\n---\n") == {"id": "x"}  # empty documents do not count


def test_load_one_refuses_several_documents() -> None:
    with pytest.raises(YamlError, match=r"expected one YAML document, found 2 \(separated by `---`\)"):
        yamlio.load_one("a: 1\n---\nb: 2\n")


def test_a_syntax_error_has_a_one_based_position() -> None:
    with pytest.raises(YamlError) as err:
        yamlio.load_all("id: x\nrule:\n  pattern: [unclosed\n")
    assert err.value.line is not None and err.value.line >= 3 and err.value.column is not None
    assert f"at line {err.value.line}, column {err.value.column}" in str(err.value)
    with pytest.raises(YamlError) as tab:
        yamlio.load_all("a:\n\t- b\n")
    assert tab.value.line == 2


def test_safe_loading_builds_no_python_objects() -> None:
    with pytest.raises(YamlError):
        yamlio.load_all("!!python/object/apply:os.system ['true']\n")


def test_an_alias_bomb_is_refused() -> None:
    with pytest.raises(YamlError, match=f"more than {MAX_NODES} nodes"):
        yamlio.load_all(BOMB)
    small = "a: &a [x, y]\nb: [*a, *a]\n"
    assert yamlio.load_all(small) == [{"a": ["x", "y"], "b": [["x", "y"], ["x", "y"]]}]


def test_depth_is_capped_by_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_mod, "_current", Settings(max_yaml_depth=3))
    assert yamlio.load_all("a: {b: {c: 1}}\n")
    with pytest.raises(YamlError, match="nested deeper than 3 levels"):
        yamlio.load_all("a: {b: {c: {d: 1}}}\n")
    with pytest.raises(YamlError, match="nested deeper"):
        yamlio.check_shape([[[[["x"]]]]])


def test_a_very_deep_document_is_an_error_not_a_crash() -> None:
    """600 levels exhaust the pure-Python parser's recursion before the depth cap can look: RecursionError is
    caught and named, not a crash."""
    with pytest.raises(YamlError, match="nested too deeply"):
        yamlio.load_all("[" * 600 + "]" * 600)


def test_size_and_binary_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_mod, "_current", Settings(max_rule_bytes=20))
    assert yamlio.load_all("a: " + "x" * 17) == [{"a": "x" * 17}]  # 20 bytes: at the limit is fine
    with pytest.raises(YamlError, match="the document is 21 bytes, over the 20-byte limit"):
        yamlio.load_all("a: " + "x" * 18)
    with pytest.raises(YamlError, match="over the 20-byte limit"):
        yamlio.load_rt("a: " + "é" * 10)  # the limit counts UTF-8 bytes, not characters
    with pytest.raises(YamlError, match="NUL bytes"):
        yamlio.load_all("a: b\x00")


def test_parsing_of_bytes_is_cached_by_content() -> None:
    data = b"id: cached-doc\nrule: {pattern: x}\n"
    first = yamlio.load_all_cached(data)
    assert first == [{"id": "cached-doc", "rule": {"pattern": "x"}}]
    assert yamlio._parsed.has("docs", hashlib.sha256(data).hexdigest())
    assert yamlio.load_all_cached(data) == first
    assert yamlio.load_one(data) == first[0]
    assert yamlio.load_all_cached(b"id: other\n") == [{"id": "other"}]  # other content, other entry


def test_content_that_json_cannot_hold_is_parsed_but_not_cached() -> None:
    data = b"1: int key\nwhen: 2024-01-01\n"
    docs = yamlio.load_all_cached(data)
    assert list(docs[0]) == [1, "when"] and str(docs[0]["when"]) == "2024-01-01"
    assert not yamlio._parsed.has("docs", hashlib.sha256(data).hexdigest())


def test_round_trip_keeps_comments_quotes_and_long_lines() -> None:
    text = ("# the rule\nid: no-eval  # why\nmessage: 'single quoted'\nrule:\n  pattern: " + "x" * 200 + "\n"
            "constraints:\n- a\n- b\n")  # our house style: sequences not indented
    data = yamlio.load_rt(text)
    assert yamlio.dump_rt(data) == text
    data["message"] = "changed"
    out = yamlio.dump_rt(data)
    assert "# the rule" in out and "# why" in out and "message: 'changed'" in out  # the value keeps its quoting


def test_dump_is_block_style_and_loads_back() -> None:
    data = {"id": "t", "valid": ["a = 1", "b: 2"], "invalid": ["multi\nline"]}
    out = yamlio.dump(data)
    assert out.startswith("id: t\nvalid:\n- a = 1\n") and "{" not in out
    assert yamlio.load_one(out) == data
