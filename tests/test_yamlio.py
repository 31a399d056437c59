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


# The C path (libyaml scans and composes; ruamel's YAML 1.2 resolver and safe constructor build the values) must
# give what ruamel's pure Python parser gives, value for value and type for type, and leave anything it does not
# take on (a refusal, an explicit tag, a `%YAML` directive) to the pure parser, whose answer or error then stands.
SAME_ON_BOTH = [
    "a: yes\nb: no\nc: on\nd: off\ne: y\nf: true\ng: False\nh: NULL\ni: ~\nj:\n",  # 1.2: only true/false are bools
    "a: 017\nb: 0o17\nc: 0x1F\nd: 0b101\ne: 1_000\nf: 1:20\ng: -12\nh: +3\n",  # no sexagesimals, no bare octal
    "a: 1.5\nb: .5\nc: 1e3\nd: -.inf\ne: .NaN\nf: 1.\ng: 6.8523015e+5\n",
    "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: '2001-12-14'\n",
    "base: &b {x: 1, y: 2}\nchild:\n  <<: *b\n  y: 3\nlist: [*b, *b]\n",
    "a: 'single ''q'''\nb: \"tab\\tnl\\nu\\u00e9 \\x41\"\nc: |\n  keep\n   indent\n\nd: >-\n  folded\n  line\n",
    "- [a, {b: c}, [d]]\n- {? [complex] : key}\n- ? k\n  : v\n",
    "7: int key\n2.5: float key\ntrue: bool key\nnull: null key\n",
    "a: b\n---\n---\nc: [d]\n...\n--- plain top\n",
    "pattern: console.log($$$A)\nmessage: \"it's $A\"\nnote: |-\n  \u00e9\u4e2d\U0001F600\n",
    "key: value # a comment\n# another\nlist:\n- 1 # one\n",
]
PURE_DECIDES = [
    "a: 1\na: 2\n",  # a duplicate key: refused by both constructors
    "!!python/object/apply:os.system ['true']\n",
    "a: !!str 12\nb: !custom x\n",  # explicit tags
    "%YAML 1.1\n---\na: yes\nb: 017\n",  # a YAML 1.1 document keeps its 1.1 meaning
    "a: [unclosed\n", "a:\n\t- b\n", "a: b: c\n", "- a\nb: c\n", "source: =\n", "",
]


def _pure(text: str) -> object:
    try:
        return list(yamlio._safe().load_all(text))
    except Exception as exc:
        return type(exc).__name__, str(exc)


def _types(value: object) -> object:
    if isinstance(value, dict):
        return [(type(k).__name__, _types(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


@pytest.mark.parametrize("text", SAME_ON_BOTH)
def test_the_c_path_gives_what_the_pure_parser_gives(text: str) -> None:
    if yamlio._c_parser() is None:
        pytest.skip("PyYAML without libyaml: every load takes the pure path")
    fast = yamlio._load_all_c(text)
    assert fast is not None, "the C path gave up on plain YAML"
    pure = _pure(text)
    assert fast == pure and _types(fast) == _types(pure)
    assert yamlio.load_all(text) == pure


@pytest.mark.parametrize("text", PURE_DECIDES)
def test_what_the_c_path_leaves_is_decided_by_the_pure_parser(text: str) -> None:
    assert yamlio._load_all_c(text) is None or text == ""  # an empty text is no documents on both
    pure = _pure(text)
    if isinstance(pure, tuple):
        with pytest.raises(YamlError) as err:
            yamlio.load_all(text)
        assert err.value.problem.split()[0] in pure[1]  # the pure parser's message, not libyaml's
    else:
        assert yamlio.load_all(text) == pure and _types(yamlio.load_all(text)) == _types(pure)
