"""engine/match.py's TypedDicts are ast-grep's real JSON: every key the real binary prints is declared (with the
type it has), and every key declared required is printed. mypy checks the code against the TypedDicts; this
checks the TypedDicts against ast-grep, so a field ast-grep adds, drops or retypes fails here, not in a scan."""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any, NotRequired, Union, get_args, get_origin

from sgtools.engine.match import AstGrepMatch, PatternMatch
from sgtools.engine.process import NO_CONFIG, Engine

RULE = """id: shell-call
language: python
severity: warning
message: call of $FN with $$$ARGS
note: a note with $FN
rule:
  pattern: subprocess.$FN($$$ARGS)
  inside:
    kind: function_definition
    stopBy: end
transform:
  UPPER:
    convert:
      source: $FN
      toCase: upperCase
labels:
  FN:
    style: secondary
    message: the function
fix: subprocess.$UPPER($$$ARGS)
metadata:
  cwe: CWE-78
---
id: kind-only
language: python
severity: hint
message: ''
rule:
  kind: pass_statement
"""
CODE = "import subprocess\n\ndef f(cmd):\n    subprocess.call(cmd, shell=True)\n    pass\n"


def problems(value: Any, hint: Any, where: str) -> list[str]:
    """Where `value` (decoded JSON) does not fit the type `hint`."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is NotRequired:
        return problems(value, args[0], where)
    if origin in (Union, types.UnionType):
        fits = [a for a in args if not problems(value, a, where)]
        return [] if fits else [f"{where}: {value!r} is none of {hint}"]
    if typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        hints = typing.get_type_hints(hint, include_extras=True)
        out = [f"{where}.{k}: not declared" for k in value if k not in hints]
        required = [k for k, h in hints.items() if get_origin(h) is not NotRequired]  # not __required_keys__:
        out += [f"{where}.{k}: missing" for k in required if k not in value]  # wrong under string annotations
        for k in value.keys() & hints.keys():
            out += problems(value[k], hints[k], f"{where}.{k}")
        return out
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        return [p for k, v in value.items() for p in problems(v, args[1], f"{where}[{k}]")]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        return [p for i, v in enumerate(value) for p in problems(v, args[0], f"{where}[{i}]")]
    if hint is object:
        return []
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    return [] if type(value) is hint else [f"{where}: {value!r} is not {hint.__name__}"]


def test_scan_matches_fit_the_typeddict(tmp_path: Path, engine: Engine) -> None:
    (tmp_path / "rules.yml").write_text(RULE, encoding="utf-8")
    (tmp_path / "a.py").write_text(CODE, encoding="utf-8")
    found = engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=tmp_path / "rules.yml", paths=["a.py"],
                        extra=["--include-metadata"])
    assert sorted(m["ruleId"] for m in found) == ["kind-only", "shell-call"]
    call = next(m for m in found if m["ruleId"] == "shell-call")
    # the optional keys this case is built to show are really printed, so their types are checked too
    assert {"replacement", "replacementOffsets", "metaVariables", "metadata"} <= call.keys()
    assert call.get("metaVariables", {}).get("transformed") == {"UPPER": "CALL"}
    assert any(label.get("message") == "the function" for label in call["labels"])
    assert "metaVariables" not in next(m for m in found if m["ruleId"] == "kind-only")  # captured nothing
    assert [p for i, m in enumerate(found) for p in problems(m, AstGrepMatch, f"match[{i}]")] == []


def test_pattern_matches_fit_the_typeddict(tmp_path: Path, engine: Engine) -> None:
    (tmp_path / "a.py").write_text(CODE, encoding="utf-8")
    found = engine.run_pattern("subprocess.$FN($$$ARGS)", "python", cwd=tmp_path, paths=["a.py"],
                               rewrite="subprocess.x($$$ARGS)")
    assert len(found) == 1 and "replacement" in found[0]
    assert problems(found[0], PatternMatch, "match") == []
    assert "ruleId" not in found[0]  # what AstGrepMatch adds is a rule's, which `run` has not


def test_the_checker_catches_a_misfit() -> None:
    """The comparison itself: an undeclared key, a missing one and a wrong type are each reported."""
    bad: dict[str, Any] = {"text": 1, "range": {"byteOffset": {"start": 0, "end": 1}, "start": {"line": 0},
                                               "end": {"line": 0, "column": 1}},
                           "file": "a", "language": "Python", "extra": True}
    assert sorted(problems(bad, PatternMatch, "m")) == [
        "m.extra: not declared", "m.range.start.column: missing", "m.text: 1 is not str"]
