"""Rules the warm engine used to leave to a spawn for their labels (issue 31 part 1), now answered warm with
exactly the spawn path's answer: rules with their own `labels` (styles, messages, multi-metavariable spans, a
label whose metavariable a branch leaves unbound, a fix)."""

from __future__ import annotations

import json
from typing import Any

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan import snippet

OWN_LABELS = """id: shell-true
language: python
severity: error
message: subprocess call with shell=True on $FN
rule:
  pattern: subprocess.$FN($$$ARGS)
  has: {kind: keyword_argument, regex: '^shell=True$', stopBy: end}
labels:
  FN: {style: secondary, message: the function}
  ARGS: {style: primary}
fix: subprocess.$FN($$$ARGS, check=True)
---
id: either-call
language: python
severity: warning
message: a call to look at
rule:
  any:
    - pattern: eval($E)
    - pattern: exec($C, $G)
labels:
  E: {style: primary, message: evaluated here}
  C: {style: secondary, message: "code: $C"}
  G: {style: secondary}
---
id: primary-part
language: python
severity: info
message: assert on a tuple
rule: {pattern: "assert ($A, $B)"}
labels:
  A: {style: primary, message: always true}
"""
CODE = ("import subprocess\nsubprocess.call(cmd, shell=True)\nsubprocess.run(['日本😀', x],\n    shell=True)\n"
        "eval(s)\nexec(src, {})\nassert (x, 'why')\n")


def _same(ws: Workspace, warm: Engine, code: str) -> dict[str, Any]:
    got = snippet.scan_code(ws, warm, code, language="python")
    want = snippet.scan_code(ws, Engine(settings=Settings.from_env({})), code, language="python")
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    return dict(got)


def test_rules_with_their_own_labels_are_answered_warm(initialized: Workspace, warm: Engine) -> None:
    assert warm.warm is not None
    (initialized.root / "rules" / "labels.yml").write_text(OWN_LABELS, encoding="utf-8")
    res = _same(initialized, warm, CODE)
    labels = sorted((d["ruleId"], lb["style"], lb["message"] or "", lb["text"])
                    for d in res["issues"] for lb in d["labels"])
    assert labels == [
        ("either-call", "primary", "evaluated here", "s"),
        ("either-call", "secondary", "", "{}"),
        ("either-call", "secondary", "code: $C", "src"),
        ("primary-part", "primary", "always true", "x"),
        ("shell-true", "primary", "", "['日本😀', x],\n    shell=True"),
        ("shell-true", "primary", "", "cmd, shell=True"),
        ("shell-true", "secondary", "the function", "call"),
        ("shell-true", "secondary", "the function", "run"),
    ], labels
    assert sum(len(d["fixits"]) for d in res["issues"]) >= 2
    assert (warm.warm.stats.last, warm.warm.stats.spawn_calls) == ("warm", 0), warm.warm.stats


NTH_CHILD = """id: second-call-with-string
language: python
severity: warning
message: second call with a string argument
rule:
  kind: call
  nthChild:
    position: 2
    ofRule:
      kind: call
      has: {kind: argument_list, has: {kind: string}}
"""


def test_relational_rules_in_nth_child_of_rule_are_answered_warm(initialized: Workspace, warm: Engine) -> None:
    """`ofRule` is tried on every sibling, yet only the match on the node itself records labels (ast-grep
    0.51): its twin's labels are the scan's."""
    assert warm.warm is not None
    (initialized.root / "rules" / "nth.yml").write_text(NTH_CHILD, encoding="utf-8")
    res = _same(initialized, warm, 'f(a, [g("x"), h("y"), k("z")])\nm(n(1), p("q"), r("s"))\n')
    labels = sorted((d["text"], lb["text"]) for d in res["issues"] for lb in d["labels"])
    assert labels == [('h("y")', '"y"'), ('h("y")', '("y")'), ('r("s")', '"s"'), ('r("s")', '("s")')], labels
    assert (warm.warm.stats.last, warm.warm.stats.spawn_calls) == ("warm", 0), warm.warm.stats


UTILS = {
    "is-print.yml": "id: is-print\nlanguage: python\nrule: {pattern: print($$$A)}\n",
    "in-def.yml": "id: in-def\nlanguage: python\nrule: {inside: {kind: function_definition, stopBy: end}}\n",
    "is-loop.yml": "id: is-loop\nlanguage: python\nrule: {any: [kind: for_statement, kind: while_statement]}\n",
}
GLOBAL_UTIL_RULES = """id: uses-print
language: python
severity: hint
message: print
rule: {matches: is-print}
---
id: print-in-def
language: python
severity: info
message: print of $A in a function
rule:
  pattern: print($A)
  matches: in-def
---
id: open-in-loop
language: python
severity: warning
message: open of $F in a loop
rule:
  pattern: open($F)
  inside: {matches: is-loop, stopBy: end}
"""
LOOPS = "print(1)\ndef f(names):\n    print(names)\n    for n in names:\n        open(n)\nwhile x:\n    open(y)\n"


def test_rules_using_global_utils_are_answered_warm(initialized: Workspace, warm: Engine) -> None:
    """A global util is matched in an env of its own, so what it records is dropped; the relational rule around
    a util that returns the node it is tried on labels that node, which the label twin binds."""
    assert warm.warm is not None
    for name, text in UTILS.items():
        (initialized.root / "utils" / name).write_text(text, encoding="utf-8")
    (initialized.root / "rules" / "global.yml").write_text(GLOBAL_UTIL_RULES, encoding="utf-8")
    res = _same(initialized, warm, LOOPS)
    found = sorted((d["ruleId"], d["text"], tuple(lb["text"][:9] for lb in d["labels"])) for d in res["issues"])
    assert found == [("open-in-loop", "open(n)", ("for n in ",)), ("open-in-loop", "open(y)", ("while x:\n",)),
                     ("print-in-def", "print(names)", ()), ("uses-print", "print(1)", ()),
                     ("uses-print", "print(names)", ())], found
    assert (warm.warm.stats.last, warm.warm.stats.spawn_calls) == ("warm", 0), warm.warm.stats
