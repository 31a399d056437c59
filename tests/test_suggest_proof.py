"""The workspace proof's word prefilter (proof.py): it reads only the files holding the whole words a candidate's
matched code must contain, so a word it reads off a rule that the code need not hold would hide real places."""

from __future__ import annotations

import re

import pytest

from sgtools.workflows.suggest import known, proof


@pytest.mark.parametrize(("regex", "words"), [
    (r"^(builtins\.)?eval$", [{"eval"}]),
    (r"^(requests|session)\.(get|post)$", [{"requests", "session"}, {"get", "post"}]),
    (r"^fmt\.Print(ln|f)?$", [{"fmt"}]),  # `Print` ends inside a longer word when `ln` follows
    (r"\bunwrap\b", [{"unwrap"}]),
    (r"^(foo|fab)$", [{"foo", "fab"}]),  # Python's parser factors it into `^f(oo|ab)$`: read as written
    (r"^(?:x\.)?(get|post)$", [{"get", "post"}]),
    (r"eval", []),  # unanchored: `evaluate` holds it inside a longer word
    (r"^eval", []),
    (r"(?i)^todo$", []),  # any case: the file's bytes may spell it `TODO`
    (r"^(get|post)Item$", [{"getItem", "postItem"}]),
    (r"^(builtins\.)?(eval|exec)$", [{"eval", "exec"}]),  # Python's parser writes the group `e(val|xec)`
    (r"^(aa|bb)(cc|dd)(ee|ff)(gg|hh)(ii|jj)(kk|ll)(mm|nn)$", []),  # 128 spellings: too many to look for
    (r"[\s\S]", []),
    (r"^café$", []),
    (r"(", []),  # not a regex Python reads: no words, every file is read
    # Names and a call: once backtracked for minutes in the names-list shortcut; reads the method names instead.
    (r"^(url|URL|nodeUrl|urlLib|urlModule|require\(['\"](node:)?url['\"]\))\.(parse|resolve|format)$",
     [{"parse", "resolve", "format"}]),
])
def test_the_words_a_regex_needs(regex: str, words: list[set[str]]) -> None:
    assert [set(c) for c in proof.regex_clauses(regex)] == words


def _holds(text: str, clause: frozenset[str]) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(w)}(?![A-Za-z0-9_])", text) for w in clause)


@pytest.mark.parametrize("language", known.languages())
def test_every_known_rules_cases_hold_the_words_the_prefilter_wants(language: str) -> None:
    # 776 rules written by others: code each rule must flag is never left out of the proof by a word it lacks.
    wrong = [(r.id, sorted(c), t) for r in known.own(language) for c in proof.clauses(r.body["rule"])
             for t in r.flags if not _holds(t, c)]
    assert wrong == []


def test_a_text_without_a_needed_word_cannot_match() -> None:
    needs = proof.regex_clauses(r"^(builtins\.)?eval$")
    assert proof.may_match(needs, "x = eval(user_input)") and proof.may_match(needs, "builtins.eval(s)")
    assert not proof.may_match(needs, "x = evaluate(s)") and not proof.may_match(needs, "ast.literal_eval(s)")
    assert proof.regex_clauses(r"^0777$") == [{"0777"}]  # a word may start with a digit
    assert proof.may_match([frozenset({"0777"})], "os.chmod(p, 0777)")
    assert proof.may_match([], "anything")
