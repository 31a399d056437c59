"""engine/captures.py on ast-grep's real output: a match with `$NAME` and `$$$NAME` captures, and one that
captured nothing (ast-grep then leaves `metaVariables` out)."""

from __future__ import annotations

from pathlib import Path

from sgtools.engine.captures import captures
from sgtools.engine.process import Engine


def test_captures_of_a_real_match(tmp_path: Path, engine: Engine) -> None:
    code = b"log.info(msg, a, b)\n"
    found = engine.run_pattern("log.$LEVEL($FIRST, $$$REST)", "python", cwd=tmp_path, stdin=code)
    single, multi = captures(found[0])
    assert {k: v["text"] for k, v in single.items()} == {"LEVEL": "info", "FIRST": "msg"}
    assert [n["text"] for n in multi["REST"]] == ["a", ",", "b"]  # punctuation included, as ast-grep gives it


def test_captures_of_a_match_that_captured_nothing(tmp_path: Path, engine: Engine) -> None:
    found = engine.run_pattern("pass", "python", cwd=tmp_path, stdin=b"pass\n")
    assert "metaVariables" not in found[0] or not found[0]["metaVariables"]["single"]
    assert captures(found[0]) == ({}, {})
    assert captures({"metaVariables": {"single": None, "multi": {"X": None}}}) == ({}, {})  # null parts: the warm shape
