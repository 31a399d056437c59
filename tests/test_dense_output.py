"""The fast paths of a dense `sgtools scan` (optional orjson, per-finding work skipped where a format never shows
it) print exactly what the plain paths print: golden JSON and text reports of a small tree with rule fixes,
labels, suppression comments, an equivalent linter's suppression, test code, non-ASCII text and CRLF lines."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.core import jsonfast

GOLDEN = Path(__file__).resolve().parent / "data" / "dense_golden"

RULES = {
    "none-compare.yml": "id: none-compare\nlanguage: python\nseverity: warning\nmessage: compare with is\n"
                        "rule: {pattern: $A == None}\nfix: $A is None\n",
    "labelled.yml": "id: labelled\nlanguage: python\nseverity: error\nmessage: call of $F\nnote: a note\n"
                    "url: https://example.com/labelled\nrule: {pattern: $F($A)}\n"
                    "labels:\n  F: {style: primary, message: the function $F}\n  A: {style: secondary, message: arg}\n",
    "no-print.yml": "id: no-print\nlanguage: python\nseverity: info\nmessage: print call\n"
                    "metadata: {equivalents: [T201]}\nrule: {pattern: print($$$A)}\nfix: log($$$A)\n",
    "string.yml": "id: string\nlanguage: python\nseverity: hint\nmessage: a string\nrule: {kind: string}\n",
}
FILES = {
    "src/app.py": "def f(x):\n    if x == None:\n        print('héllo 🎉', x)  # noqa: T201\n"
                  "    print(\"日本\")\n    return len(x)\n",
    "src/crlf.py": "a = 1\r\nif a == None:\r\n    print('x')\r\n",
    "src/cont.py": "y = 1 + \\\n    len('z')\n",
    "tests/test_app.py": "def test_f():\n    assert f(None) == None\n    print('t')\n",
}


@pytest.fixture(autouse=True)
def _orjson_from_the_first_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """These small inputs would not pay for orjson's import (jsonfast.FAST_AFTER): the fast path is taken at once."""
    monkeypatch.setattr(jsonfast, "FAST_AFTER", 0)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / "rules").mkdir(parents=True)
    (root / "sgconfig.yml").write_text("ruleDirs:\n- rules\n")
    for name, text in RULES.items():
        (root / "rules" / name).write_text(text)
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode("utf-8"))
    monkeypatch.chdir(root)
    return root


def _scan(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["scan", "--no-progress", *args]) in (0, 1)
    return out.getvalue()


@contextlib.contextmanager
def _plain_json(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as m:
        m.setattr(jsonfast, "_orjson", None)
        yield


@pytest.mark.parametrize("args", [("--format", "json"), ("--format", "text"), ("--format", "github"),
                                  ("--format", "json", "--verify-fixits"), ("--format", "sarif")])
def test_reports_match_the_golden_files_with_and_without_orjson(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                                                args: tuple[str, ...]) -> None:
    name = "_".join(a.strip("-") for a in args) + ".txt"
    fast = _scan(*args)
    with _plain_json(monkeypatch):
        plain = _scan(*args)
    assert fast == plain
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    if args[1] == "sarif":  # the tool's version and the temp root move; the results must not
        fast = json.dumps(json.loads(fast)["runs"][0]["results"], indent=1, ensure_ascii=False) + "\n"
    assert fast == expected


def test_the_golden_tree_exercises_what_the_fast_paths_touch(tree: Path) -> None:
    data = json.loads(_scan("--format", "json"))
    issues = data["issues"]
    kinds = {f["kind"] for d in issues for f in d["fixits"]}
    assert kinds == {"fix"} and any(d["labels"] for d in issues)  # a suppression is `suppress`, never a fix-it
    assert any("suppress" in d for d in issues)
    assert any(d["inTest"] for d in issues) and data["suppressed"] == {"no-print": 1}
    assert any(d["file"] == "src/crlf.py" and "suppress" in d for d in issues)
    assert any("suppress" not in d for d in issues)  # the continued line


@pytest.mark.skipif(not jsonfast.available(), reason="orjson (the `fast` extra) is not installed")
def test_engine_output_and_the_json_report_go_through_orjson(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orjson

    calls = {"loads": 0, "dumps": 0}

    class Counting:
        JSONDecodeError = orjson.JSONDecodeError

        @staticmethod
        def loads(data: bytes) -> object:
            calls["loads"] += 1
            return orjson.loads(data)

        @staticmethod
        def dumps(data: object) -> bytes:
            calls["dumps"] += 1
            return orjson.dumps(data)

    monkeypatch.setattr(jsonfast, "_orjson", Counting)
    _scan("--format", "json")
    assert calls["loads"] >= 10 and calls["dumps"] == 1


@pytest.mark.parametrize("value", [
    "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000),  # every escape and every raw char
    [round(i / 100, 2) for i in range(101)],  # every confidence
    {"a": [None, True, False, 0, -1, 2**63 - 1, 2**64 - 1, "", {}, []]},
    "lone \ud800 surrogate", 2**70, {1: "non-string key"},  # orjson refuses these: the standard library writes them
])
def test_dumps_compact_is_byte_identical_to_json_dumps(value: object) -> None:
    assert jsonfast.dumps_compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("line", [b'{"a": 1, "b": [1.5, "\\u00e9", null]}', b'{"a": NaN}', b'\xef\xbb\xbf{"a": 1}',
                                  b'"\\ud800"'])
def test_loads_gives_the_standard_librarys_objects(line: bytes) -> None:
    assert repr(jsonfast.loads(line)) == repr(json.loads(line))


@pytest.mark.parametrize(("args", "built"), [(("--format", "text"), False), (("--format", "github"), False),
                                             (("--format", "json"), True),
                                             (("--format", "sarif"), False),
                                             (("--format", "text", "--verify-fixits"), False)])
def test_suppressions_are_worked_out_only_for_output_that_shows_them(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      args: tuple[str, ...], built: bool) -> None:
    from sgtools.scan import diagnostics

    calls: list[object] = []
    real = diagnostics.suppression
    monkeypatch.setattr(diagnostics, "suppression", lambda *a: calls.append(a) or real(*a))
    _scan(*args)
    assert bool(calls) is built


def test_orjson_takes_over_once_a_process_has_read_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below FAST_AFTER bytes everything goes through `json` (a small scan never imports orjson); past it, orjson
    when it is installed."""
    seen: list[bytes] = []

    class Recording:
        JSONDecodeError = ValueError

        @staticmethod
        def loads(data: bytes) -> object:
            seen.append(data)
            return json.loads(data)

    monkeypatch.setattr(jsonfast, "FAST_AFTER", 17)  # the first two lines
    monkeypatch.setattr(jsonfast, "_read", 0)
    monkeypatch.setattr(jsonfast, "_orjson", Recording)
    lines = [b'{"a": 1}', b'{"b": 22}', b'{"c": 333}', b'{"d": 4}']
    assert [jsonfast.loads(line) for line in lines] == [{"a": 1}, {"b": 22}, {"c": 333}, {"d": 4}]
    assert seen == lines[2:]


def test_a_lines_suppression_context_is_worked_out_once_for_all_its_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    from sgtools.fixits import build
    from sgtools.scan.diagnostics import to_diagnostics

    text = "x = a.b(c.d, 'e')  # three calls, attributes and strings on one line\n"
    raw = [{"file": "m.py", "ruleId": f"r{i}", "language": "Python", "text": "a",
            "range": {"byteOffset": {"start": i, "end": i + 1}, "start": {"line": 0, "column": i},
                      "end": {"line": 0, "column": i + 1}}} for i in range(6)]
    calls: list[int] = []
    real = build._line
    monkeypatch.setattr(build, "_line", lambda index, line_no, *a: calls.append(line_no) or real(index, line_no, *a))
    diags = to_diagnostics(raw, text_by_file={"m.py": text}, rules_by_id={})
    assert calls == [1] and [d["suppress"] for d in diags[:2]] == [
        {"line": 1, "comment": "# ast-grep-ignore: r0"}, {"line": 1, "comment": "# ast-grep-ignore: r1"}]


def test_a_json_report_reaches_a_utf8_stdout_as_bytes(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a UTF-8 stdout the compact report goes from the encoder to the byte stream without a round trip through
    a str (tens of MB on a dense tree); the bytes are the golden report's, from a real process too."""
    import subprocess
    import sys

    golden = (GOLDEN / "format_json.txt").read_bytes()
    strs: list[object] = []
    real = jsonfast.dumps_compact
    monkeypatch.setattr(jsonfast, "dumps_compact", lambda data: strs.append(data) or real(data))
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(["scan", "--no-progress", "--format", "json"]) in (0, 1)
    stream.flush()
    assert raw.getvalue() == golden and strs == []
    child = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--format", "json"], cwd=tree,
                           capture_output=True, check=False, timeout=120)
    assert child.stdout == golden, child.stderr[-2000:]


@pytest.mark.parametrize("errors", ["strict", "surrogateescape"])
def test_dumps_compact_utf8_encodes_as_the_stream_would(errors: str) -> None:
    for value in [{"a": "é🎉\n\u2028", "b": [0.3, None]}, "escaped \udc80 byte"]:
        try:
            expected: bytes | type[Exception] = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(
                "utf-8", errors)
        except UnicodeEncodeError:
            expected = UnicodeEncodeError
        if expected is UnicodeEncodeError:
            with pytest.raises(UnicodeEncodeError):
                jsonfast.dumps_compact_utf8(value, errors)
        else:
            assert jsonfast.dumps_compact_utf8(value, errors) == expected
