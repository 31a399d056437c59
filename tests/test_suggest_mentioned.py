"""The request's words written as code (mentioned.py, issue 29): which words name code, which are said as the place
of the point or as one of a family, and which form one list."""

from __future__ import annotations

import re

import pytest

from sgtools.workflows.suggest import listed, mentioned


@pytest.mark.parametrize(("request_text", "placed"), [
    ("table.getn is gone, use #t", False),
    ("no error_log() calls in library code", False),
    ("new URL(String) is deprecated", False),
    ("no assigning to innerHTML, set textContent", True),  # where the point is: the assignment
    ("no async callbacks in forEach", True),
    ("use isEmpty() instead of comparing size() with 0", True),
    ("never .equals(null), compare with ==", True),  # the argument is the point
    ("use spread instead of Object.assign({}, a, b)", True),  # the call as written, with its literal argument
    ("use require(...) instead of if (...) throw IllegalArgumentException(...)", True),  # code around it
    ("use `x ?? d`, not `isset($x) ? $x : d`", True),  # part of a code span
])
def test_a_name_said_as_the_place_of_the_point_is_no_rule_of_its_own(request_text: str, placed: bool) -> None:
    found = {m.name: m.placed for m in mentioned.mentions(request_text)}
    name = next(n for n in ("getn", "error_log", "URL", "innerHTML", "forEach", "size", "equals", "assign",
                            "IllegalArgumentException", "isset") if n in found)
    assert found[name] is placed, (request_text, found)


@pytest.mark.parametrize(("request_text", "family"), [
    ("no dynamic finders like find_by_email, use find_by", True),
    ("before_filter and friends are gone", True),
    ("no mysql_query() and the like, use PDO", True),
    ("no error_log() calls in library code", False),
    ("table.getn and table.setn are gone", False),
])
def test_a_name_said_as_one_of_a_family(request_text: str, family: bool) -> None:
    mentions = mentioned.mentions(request_text)
    assert any(m.family for m in mentions) is family, mentions
    assert not any(m.placed for m in mentions if m.family and "like" in request_text), mentions


@pytest.mark.parametrize(("request_text", "names"), [
    ("no skipped tests (it.skip, test.skip, xit, xdescribe) left behind", ["it.skip", "test.skip", "xit", "xdescribe"]),
    ("no binding.pry / byebug left in code", ["binding.pry", "byebug"]),  # a plain word listed beside code
    ("before_filter and friends are gone", ["before_filter"]),  # the family's words are none of its names
    ("no debugger statements or alert calls", []),  # prose with no code beside it
    ("no new Long(...) or new Short(...), use valueOf", ["Long", "Short", "valueOf"]),  # a clause after the list
    ("no mysql_* functions", ["mysql_*"]),  # a stem with a star
])
def test_a_plain_word_listed_beside_code_is_a_name(request_text: str, names: list[str]) -> None:
    assert [m.qualifier + m.name for m in mentioned.mentions(request_text)] == names


def test_one_reading_of_a_list_serves_the_mentions_and_the_plain_words() -> None:
    """mentioned.runs groups spans whose gaps are separators; a caller's `gap` reads the marks around plain words
    first (lacking.py: `<video> or <audio>`), which as written are no separator."""
    request = "a <video> or <audio> with autoPlay"
    spans = [(m.start(), m.end()) for m in re.finditer(r"video|audio|autoPlay", request)]
    assert mentioned.runs(request, spans) == [[0], [1], [2]]
    assert mentioned.runs(request, spans, lambda gap: gap.strip("<> ")) == [[0, 1], [2]]


@pytest.mark.parametrize(("request_text", "lists"), [
    ("every command passed to exec, shell_exec, system or passthru must be escaped",
     [["exec", "shell_exec", "system", "passthru"]]),
    ("don't use atoi, atol, atof, use strtol", [["atoi", "atol", "atof"]]),
    ("wait, spawn and delay block the loop", [["wait", "spawn", "delay"]]),
])
def test_the_last_name_of_a_list_with_commas_is_one_of_it(request_text: str, lists: list[list[str]]) -> None:
    """listed.request_lists: the word after the `or` that closes `a, b, c or d` is the list's last name, whatever
    words follow it; a comma before a phrase (`, use strtol`) opens prose."""
    assert listed.request_lists(request_text) == lists
