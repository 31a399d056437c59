"""scan_code on the warm engine under real faults: the engine SIGKILLed between and during calls, stopped
(SIGSTOP) past the deadline, and rules edited while it runs. Every call answers exactly what the spawn path
answers; none is ever stale."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan import rulefiles, snippet
from tests.test_warm_engine import gone

RULE = """id: no-eval
language: python
severity: error
message: {message}
rule: {{pattern: eval($X)}}
fix: ast.literal_eval($X)
"""
UTIL_RULE = "id: uses-util\nlanguage: python\nseverity: hint\nmessage: exits\nrule: {matches: is-exit}\n"
CODE = "x = eval(a)\nif x:\n    print(eval('日本😀'))\r\nexit(1)\n"


@pytest.fixture
def proj(initialized: Workspace) -> Workspace:
    (initialized.root / "rules" / "no-eval.yml").write_text(RULE.format(message="eval of $X"))
    return initialized


def same(ws: Workspace, warm: Engine, code: str = CODE) -> dict:
    got = snippet.scan_code(ws, warm, code, language="python")
    want = snippet.scan_code(ws, Engine(settings=Settings.from_env({})), code, language="python")
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    return got


def test_killed_between_calls(proj: Workspace, warm: Engine) -> None:
    assert warm.warm is not None
    same(proj, warm)
    pids = warm.warm.pids()  # the lanes: the scan's and the fix-it verification's processes
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    res = same(proj, warm)
    assert [d["ruleId"] for d in res["issues"]] == ["no-eval", "no-eval"]
    assert warm.warm.stats.last == "warm" and warm.warm.stats.starts == 2 * len(pids)
    assert all(gone(pid) for pid in pids) and not set(pids) & set(warm.warm.pids())


@pytest.mark.slow
def test_killed_during_a_call(proj: Workspace, warm: Engine) -> None:
    assert warm.warm is not None
    same(proj, warm)
    pids = warm.warm.pids()
    big = CODE * 3000
    killers = [threading.Timer(0.02, os.kill, (pid, signal.SIGKILL)) for pid in pids]
    for killer in killers:
        killer.start()
    res = same(proj, warm, big)  # answered: by the warm engine if it finished first, else by the spawn path
    for killer in killers:
        killer.join()
    assert len(res["issues"]) == 6000 or res["truncated"]
    assert all(gone(pid) for pid in pids)
    same(proj, warm)
    assert warm.warm.stats.last == "warm" and not set(pids) & set(warm.warm.pids())


@pytest.mark.slow
def test_hung_engine(proj: Workspace, warm: Engine) -> None:
    """Only the stopped process's call runs under a 1 s deadline: the engine starts and restarts under the fixture's
    60 s hang guard, since a loaded machine can take longer than 1 s to start `ast-grep lsp` (the call would then go
    to the spawn path, and the restart would not be served warm). The stopped call and the restart use the same warm
    key however long the machine takes between them (test_the_same_rules_keep_their_process_once_the_edit_window_
    passes)."""
    assert warm.warm is not None
    guard = warm.warm.settings
    same(proj, warm)
    pids = warm.warm.pids()
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)  # alive and silent: the deadline (1 s here) must catch it
    warm.warm.settings = guard.replace(warm_engine_timeout=1.0)
    t = time.monotonic()
    same(proj, warm)
    assert time.monotonic() - t < 60  # a hang guard: the stopped processes would never answer
    assert warm.warm.stats.last == "spawn" and "stopped" in str(warm.warm.stats.last_reason)
    assert all(gone(pid) for pid in pids)
    warm.warm.settings = guard
    same(proj, warm)
    assert warm.warm.stats.last == "warm"


def test_the_same_rules_keep_their_process_once_the_edit_window_passes(
        proj: Workspace, warm: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file written in the last 2 s is stamped by its content as well (scan/rulefiles.py `_RACY_NS`); the warm
    key must not change when that window passes with no edit, or the same rules start a second process and the
    first lingers (on a loaded machine test_hung_engine's restart was served by such a new process while the
    stopped ones lived on). The window's passing is `_RACY_NS` set to 0: no file is then recent."""
    assert warm.warm is not None
    same(proj, warm)
    pids, starts = sorted(warm.warm.pids()), warm.warm.stats.starts
    monkeypatch.setattr(rulefiles, "_RACY_NS", 0)
    same(proj, warm)
    assert sorted(warm.warm.pids()) == pids and warm.warm.stats.starts == starts
    assert warm.warm.stats.last == "warm"


def test_rule_and_util_edits_are_never_stale(proj: Workspace, warm: Engine) -> None:
    assert warm.warm is not None
    rule = proj.root / "rules" / "no-eval.yml"
    for i in range(40):  # in-place writes of the same size, as fast as the loop goes
        rule.write_text(RULE.format(message=f"v{i % 10} $X"))
        res = snippet.scan_code(proj, warm, CODE, language="python")
        assert {d["message"] for d in res["issues"]} == {f"v{i % 10} a", f"v{i % 10} '日本😀'"}, i
    (proj.root / "rules" / "uses-util.yml").write_text(UTIL_RULE)
    util = proj.root / "utils" / "is-exit.yml"
    for i in range(10):  # a global util flips between matching exit() and quit()
        util.write_text(f"id: is-exit\nlanguage: python\nrule: {{pattern: {'exit' if i % 2 else 'quit'}($$$)}}\n")
        res = snippet.scan_code(proj, warm, CODE, language="python")
        assert ("uses-util" in {d["ruleId"] for d in res["issues"]}) == bool(i % 2), i
    assert warm.warm.stats.warm_calls >= 40


RELATIONAL = """id: print-in-def
language: python
severity: warning
message: print of $A inside a function
rule:
  pattern: print($A)
  inside: {kind: function_definition, stopBy: end}
---
id: dict-default
language: python
severity: info
message: mutable default
rule:
  kind: default_parameter
  has: {field: value, kind: dictionary}
  not: {has: {kind: none}}
"""
LABELLED = """id: labelled
language: python
severity: hint
message: eval with a label
rule: {pattern: eval($X)}
labels:
  X: {style: secondary, message: the argument}
"""
REL_CODE = "def f(a={}, b=[]):\n    print(a)\n    def g():\n        print('😀')\n"


def test_relational_labels_come_from_the_warm_engine(proj: Workspace, warm: Engine) -> None:
    """`inside`/`has` label their target nodes in `ast-grep scan`; the warm engine gets the same labels by
    binding those targets (scan/warmscan.py), so these snippets need no spawn at all."""
    assert warm.warm is not None
    (proj.root / "rules" / "relational.yml").write_text(RELATIONAL)
    res = same(proj, warm, REL_CODE)
    labels = [(d["ruleId"], [lb["text"][:11] for lb in d["labels"]]) for d in res["issues"]]
    assert labels == [("dict-default", ["{}"]), ("print-in-def", ["def f(a={},"]),
                      ("print-in-def", ["def g():\n  "])], labels
    assert warm.warm.stats.last == "warm", warm.warm.stats
    (proj.root / "rules" / "labelled.yml").write_text(LABELLED)
    res = same(proj, warm, "eval(x)\n")  # its own labels: marked for the server (tests/test_warm_labels.py)
    [lab] = [d for d in res["issues"] if d["ruleId"] == "labelled"]
    assert lab["labels"][0]["message"] == "the argument"
    assert warm.warm.stats.last == "warm", warm.warm.stats


# Relational rules under `any`, nested ones (an outer target that is one relational rule labels the node the
# inner one found), in local utils and constraints, with a stopBy rule, and an unnamed target (`%`): before the
# label twins covered them, each of these findings was sent to a spawn.
NESTED = """id: shell-format
language: python
severity: warning
message: formatted command
utils:
  formats:
    kind: binary_operator
    has: {field: operator, regex: '^%$'}
rule:
  kind: call
  any:
    - has: {field: function, regex: '^os\\.system$'}
    - has: {field: function, regex: '^subprocess\\.call$'}
  has:
    field: arguments
    has: {nthChild: 1, matches: formats}
---
id: loop-open
language: python
severity: info
message: open of $F in a loop
rule:
  pattern: open($F)
  inside:
    stopBy: {kind: function_definition}
    any: [kind: for_statement, kind: while_statement]
constraints:
  F:
    has: {stopBy: end, kind: identifier}
"""
NESTED_CODE = ("import os\nos.system('ls %s' % d)\nsubprocess.call('x %d' % n)\n"
               "def f(names):\n    for n in names:\n        open(n + 'x')\n")


def test_nested_any_util_and_constraint_labels_come_from_the_warm_engine(proj: Workspace, warm: Engine) -> None:
    assert warm.warm is not None
    (proj.root / "rules" / "nested.yml").write_text(NESTED)
    res = same(proj, warm, NESTED_CODE)
    labels = sorted((d["ruleId"], lb["text"]) for d in res["issues"] for lb in d["labels"])
    assert ("shell-format", "%") in labels and ("shell-format", "os.system") in labels, labels
    assert ("shell-format", "subprocess.call") in labels and ("loop-open", "n") in labels, labels
    assert warm.warm.stats.last == "warm", warm.warm.stats


def test_test_rule_is_served_warm_with_the_same_answer(proj: Workspace, warm: Engine) -> None:
    from sgtools.workflows.rule_testing import test_rule as run_test_rule

    assert warm.warm is not None
    args = {"rule_yaml": RELATIONAL.split("---")[0], "code": REL_CODE, "language": "python",
            "valid_examples": ["print(1)", "def f():\n    log(1)\n"],
            "invalid_examples": ["def f():\n    print(1)\n", "print(2)"]}  # the last one is wrong
    got = run_test_rule(proj, warm, **args)
    want = run_test_rule(proj, Engine(settings=Settings.from_env({})), **args)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert len(got["matches"]) == 2 and got["matches"][0]["labels"]
    assert got["examples"]["passed"] == 3 and [f["index"] for f in got["examples"]["failed"]] == [1]
    assert warm.warm.stats.last == "warm"
