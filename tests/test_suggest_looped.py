"""A loop the request names is any loop (looped.py): the examples show the code in (or out of) one kind of loop, the
request says "loop", and an author writes every loop the grammar has. Real ast-grep, real files in a temp
workspace."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import looped
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import read_examples
from tests.test_suggest_shapes import Case, check_case

CASES = {
    "the code the request names, shown in one kind of loop, in any loop": Case(
        "`string.format(...)` in a numeric `for` loop in both invalid examples (every example writes one): the "
        "request says 'in loops', so its code goes in any loop, a `while`, a `repeat` and a generic `for` too, not "
        "only the kind of loop every example happens to write in the field they share; not one outside a loop",
        "lua",
        ["for i = 1, #words do\n  out = string.format(\"%s %s\", out, words[i])\nend",
         "for i = 1, n do\n  line = string.format(\"%s%d,\", line, i)\nend"],
        ["for i = 1, #words do\n  parts[#parts + 1] = words[i]\nend", "for i = 1, n do\n  cells[#cells + 1] = i\nend"],
        ["while more() do\n  s = string.format(\"%s;%s\", s, next_item())\nend",
         "repeat\n  buf = string.format(\"%s%s\", buf, chunk)\nuntil not chunk",
         "for _, w in ipairs(words) do\n  out = string.format(\"%s %s\", out, w)\nend"],
        ["local msg = string.format(\"%d items\", n)",
         "for _, w in ipairs(words) do\n  parts[#parts + 1] = w\nend",
         "local function label(x)\n  return string.format(\"<%s>\", x)\nend"],
        request="in loops, collect the pieces in a table and table.concat them once, don't grow a string with "
                "string.format every time",
    ),
    "code the valid examples show in a while loop, wrong outside any loop": Case(
        "`wait(...)` that every valid example calls in a `while` loop and no invalid one in a loop: the request "
        "says 'outside a loop', so a `for` or a `do` loop around it is fine too, not only the `while` the valid "
        "examples happen to write",
        "java",
        ["void take() throws InterruptedException {\n  synchronized (lock) {\n    if (queue.isEmpty()) lock.wait();\n"
         "  }\n}",
         "void pause() throws InterruptedException {\n  synchronized (mon) {\n    mon.wait(500);\n  }\n}"],
        ["void take() throws InterruptedException {\n  synchronized (lock) {\n    while (queue.isEmpty()) lock.wait();"
         "\n  }\n}",
         "void pause() throws InterruptedException {\n  synchronized (mon) {\n    while (!done) mon.wait(500);\n"
         "  }\n}"],
        ["void f() throws Exception {\n  synchronized (o) {\n    if (!ok) o.wait();\n  }\n}",
         "void g() throws Exception {\n  state.wait(10);\n}"],
        ["void f() throws Exception {\n  for (;;) {\n    if (ready) break;\n    lock.wait();\n  }\n}",
         "void g() throws Exception {\n  do {\n    lock.wait(10);\n  } while (!ready);\n}",
         "void h() {\n  ready = true;\n}"],
        request="only call wait() inside a loop that checks the condition again; outside a loop a spurious wakeup "
                "goes through",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_loop_the_request_names_is_any_loop(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


def test_a_kind_of_loop_the_request_names_stays_that_kind(ws: Workspace, engine: Engine) -> None:
    """"A for loop's condition" names its loop: the examples' `for` stays a `for`; a language with one loop (Go's
    `for`) has no other; a request without "loop" places nothing."""
    example = read_examples(engine, ws.root, "php", ["<?php\nfor ($i = 0; $i < count($a); $i++) {}"])[0]
    rule = {"all": [{"pattern": "count($A)"}, {"inside": {"kind": "for_statement", "stopBy": "end"}}]}
    cand = Candidate({"rule": rule}, Generalised.written(example.root, "count"), REQUESTED, 0)
    assert [c.body["rule"] for c in looped.loop_forms([cand], "no count() in a for loop's condition", "php")] == [rule]
    assert [c.body["rule"] for c in looped.loop_forms([cand], "no count() in loops", "go")] == [rule]
    assert [c.body["rule"] for c in looped.loop_forms([cand], "no count() in conditions", "php")] == [rule]
    widened = looped.loop_forms([cand], "no count() in a loop", "php")
    assert len(widened) == 2 and widened[1] is cand and widened[0].said_place, widened
    assert widened[0].body["rule"]["all"][1]["inside"] == {
        "any": [{"kind": k} for k in ("for_statement", "foreach_statement", "while_statement", "do_statement")],
        "stopBy": "end"}
