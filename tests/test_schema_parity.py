"""Our rule validation accepts exactly what ast-grep 0.51 accepts: every key of the upstream rule schema is used
in a probe (the test fails if the upstream schema has a key no probe uses), and for each probe, and for an unknown
key in each kind of object, our schema's verdict is compared with the real binary's.

Where ast-grep ignores an unknown key (relations, nthChild, transformations, fix configs, labels, globs) we accept
it with a warning, except a near miss of a known key (`stopby`), which is a typo that silently changes the rule and
stays refused (tests/test_rule_catalogue.py `typo-in-relation`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sgtools.core import yamlio
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.rules.schema import schema_problems
from tests.conftest import SHARED

UPSTREAM = SHARED / "schemas" / "rule.json"
pytestmark = pytest.mark.skipif(not UPSTREAM.is_file(), reason="the shared upstream schemas are not present")

HEAD = "id: probe\nlanguage: python\nmessage: m\n"
# (keys the probe uses, rule YAML after HEAD)
PROBES: list[tuple[set[str], str]] = [
    ({"rule", "pattern", "severity", "note", "url"},
     "severity: warning\nnote: n\nurl: https://example.org\nrule: {pattern: print($A)}\n"),
    ({"kind", "regex"}, "rule: {kind: call, regex: '^print'}\n"),
    ({"context", "selector", "strictness"},
     "rule:\n  pattern: {context: 'x = print($A)', selector: call, strictness: smart}\n"),
    ({"nthChild", "position", "ofRule", "reverse"},
     "rule:\n  kind: identifier\n  nthChild: {position: 1, ofRule: {kind: identifier}, reverse: true}\n"),
    ({"range", "start", "end", "line", "column"},
     "rule: {kind: identifier, range: {start: {line: 0, column: 0}, end: {line: 0, column: 5}}}\n"),
    ({"inside", "stopBy", "field"},
     "rule:\n  kind: identifier\n  inside: {kind: call, stopBy: end, field: function}\n"),
    ({"has"}, "rule:\n  kind: call\n  has: {kind: argument_list, stopBy: neighbor}\n"),
    ({"precedes", "follows"},
     "rule:\n  kind: expression_statement\n  precedes: {kind: expression_statement}\n"
     "  follows: {kind: expression_statement}\n"),
    ({"all", "any", "not"}, "rule:\n"
     "  all: [{kind: call}, {any: [{pattern: f()}, {pattern: g()}]}, {not: {pattern: h()}}]\n"),
    ({"matches", "utils"}, "utils:\n  is-call: {kind: call}\nrule: {matches: is-call}\n"),
    ({"constraints"}, "rule: {pattern: print($A)}\nconstraints:\n  A: {kind: identifier}\n"),
    ({"transform", "substring", "source", "startChar", "endChar", "fix"},
     "rule: {pattern: print($A)}\ntransform:\n  B: {substring: {source: $A, startChar: 1, endChar: -1}}\n"
     "fix: print($B)\n"),
    ({"replace", "by"},
     "rule: {pattern: print($A)}\ntransform:\n  B: {replace: {source: $A, replace: 'a', by: 'b'}}\nfix: print($B)\n"),
    ({"convert", "toCase", "separatedBy"},
     "rule: {pattern: print($A)}\ntransform:\n"
     "  B: {convert: {source: $A, toCase: upperCase, separatedBy: [underscore]}}\n"
     "fix: print($B)\n"),
    ({"rewrite", "rewriters", "joinBy", "id"},
     "rewriters:\n- id: up\n  rule: {kind: identifier}\n  fix: X\n"
     "rule: {pattern: print($A)}\ntransform:\n  B: {rewrite: {source: $A, rewriters: [up], joinBy: ','}}\n"
     "fix: print($B)\n"),
    ({"template", "expandEnd", "expandStart", "title"},
     "rule: {pattern: print($A)}\nfix:\n  template: ''\n  expandEnd: {regex: ','}\n  expandStart: {regex: ','}\n"
     "  title: remove it\n"),
    ({"labels", "style", "message"},
     "rule: {pattern: print($A)}\nlabels:\n  A: {style: secondary, message: the argument}\n"),
    ({"files", "ignores", "glob", "caseInsensitive"},
     "rule: {pattern: print($A)}\nfiles: ['src/**', {glob: '*.PY', caseInsensitive: true}]\nignores: ['tests/**']\n"),
    ({"metadata"}, "rule: {pattern: print($A)}\nmetadata: {anything: [1, 2], goes: {here: true}}\n"),
    ({"language"}, "rule: {pattern: print($A)}\n"),
]
# An unknown key in each kind of object: the verdicts must agree too.
UNKNOWN: list[str] = [
    "rule: {pattern: print($A)}\nbogus: 1\n",
    "rule: {pattern: print($A), bogus: 1}\n",
    "rule:\n  kind: identifier\n  inside: {kind: call, bogus: 1}\n",
    "rule:\n  pattern: {context: 'print($A)', selector: call, bogus: 1}\n",
    "rule:\n  kind: identifier\n  nthChild: {position: 1, bogus: 1}\n",
    "rule: {kind: identifier, range: {start: {line: 0, column: 0, bogus: 1}, end: {line: 0, column: 5}}}\n",
    "rule: {pattern: print($A)}\ntransform:\n  B: {substring: {source: $A, bogus: 1}}\nfix: print($B)\n",
    "rule: {pattern: print($A)}\nfix: {template: '', bogus: 1}\n",
    "rule: {pattern: print($A)}\nlabels:\n  A: {style: secondary, bogus: 1}\n",
    "rewriters:\n- id: up\n  rule: {kind: identifier}\n  fix: X\n  language: python\n  bogus: 1\n"
    "rule: {pattern: print($A)}\n",
    "rule: {pattern: print($A)}\nfiles: [{glob: 'x', bogus: 1}]\n",
]


def upstream_keys() -> set[str]:
    schema = json.loads(UPSTREAM.read_text())
    keys = set(schema["properties"])
    for definition in schema["$defs"].values():
        for alt in [definition, *definition.get("oneOf", []), *definition.get("anyOf", [])]:
            keys |= set(alt.get("properties", {}))
    return keys


def verdicts(engine: Engine, tmp_path: Path, body: str) -> tuple[bool, bool, Any]:
    text = HEAD + body
    ours = not schema_problems(yamlio.load_one(text))
    rule = tmp_path / "probe.yml"
    rule.write_text(text)
    theirs = engine.check_rule(rule, config=NO_CONFIG, cwd=tmp_path).returncode == 0
    return ours, theirs, schema_problems(yamlio.load_one(text))


def test_every_upstream_key_is_probed() -> None:
    covered = set().union(*(keys for keys, _ in PROBES))
    assert upstream_keys() - covered == set()


@pytest.mark.parametrize("body", [b for _, b in PROBES] + UNKNOWN)
def test_we_accept_exactly_what_ast_grep_accepts(body: str, engine: Engine, tmp_path: Path) -> None:
    ours, theirs, problems = verdicts(engine, tmp_path, body)
    assert ours == theirs, f"ours={'accept' if ours else problems} ast-grep={'accept' if theirs else 'refuse'}"


def test_an_ignored_key_is_a_warning_and_a_near_miss_is_still_refused() -> None:
    warnings: list[str] = []
    data = yamlio.load_one(HEAD + "rule:\n  kind: identifier\n  inside: {kind: call, bogus: 1}\n")
    assert schema_problems(data, warnings=warnings) == []
    assert warnings == ["rule.inside.bogus: unknown key; allowed: all, any, field, follows, has, inside, kind, "
                        "matches, not, nthChild, pattern, precedes, range, regex, stopBy; ast-grep ignores it"]
    typo = yamlio.load_one(HEAD + "rule:\n  kind: identifier\n  inside: {kind: call, stopby: end}\n")
    assert schema_problems(typo) == ["rule.inside.stopby: unknown key; did you mean stopBy?"]
