"""The grammar's other spellings of a literal (literal_kinds.py, issue 29): a literal pinned by its shared start and a
number the request spells are said in every kind and quote their language writes the same value in. Real ast-grep."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import literal_kinds
from tests import intent_catalogue as cat
from tests.test_suggest_shapes import Case, check_case

CASES = {
    "a string literal pinned by its start is any quote and any string kind of the language": Case(
        "`\"ftp://...\"` in both invalid examples: the shared start `\"ftp://` with any opening quote, and the "
        "template string as well as the quoted one, so `'ftp://mirror'` and `` `ftp://${host}` `` are flagged too.",
        "typescript",
        ["download(\"ftp://files.example.org/a.tar\");", "const url = \"ftp://backup.example.net/db\";"],
        ["download(\"https://files.example.org/a.tar\");", "const url = \"https://backup.example.net/db\";"],
        ["fetchFile('ftp://mirror.example.com/pub');", "const u = `ftp://${host}/x`;"],
        ["fetchFile('https://mirror.example.com/pub');", "const u = `https://${host}/x`;", "const p = 'ftp';"],
    ),
    "a bash word pinned by its start is the quoted strings of the same text too": Case(
        "`/opt/legacy/...` written as a bare word in both invalid examples: bash writes the same word quoted "
        "(\"...\", '...'), so the rule is `any` of word, string and raw string, with an optional opening quote.",
        "bash",
        ["cp build.tar /opt/legacy/releases", "source /opt/legacy/env.sh"],
        ["cp build.tar \"$RELEASE_DIR\"", "source \"$ENV_FILE\""],
        ["cp app.tar '/opt/legacy/old'", "cat \"/opt/legacy/notes.txt\""],
        ["cp app.tar /opt/current/app", "echo legacy"],
    ),
    "a number the request spells is every kind of integer literal its grammar has": Case(
        "Java writes an integer in decimal, hex, octal and binary, each a kind of its own: a lowercase `l` suffix "
        "is flagged on all of them, not only on the decimal kind both examples happen to write.",
        "java",
        ["long bytes = 4096l;", "call(7l, size);"],
        ["long bytes = 4096L;", "call(7L, size);"],
        ["long mask = 0x7FFFl;", "long bits = 0b1010l;"],
        ["long mask = 0x7FFFL;", "String s = \"7l\";", "int n = 12;"],
        request="write the long suffix as an uppercase L, a lowercase l reads like a 1",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_literal_is_said_in_every_spelling(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


@pytest.mark.parametrize("language", sorted(literal_kinds.FAMILIES))
def test_every_kind_of_a_family_is_one_the_grammar_has(engine: Engine, language: str) -> None:
    """A kind the language's parser does not know makes ast-grep refuse the whole rule."""
    bodies = [{"rule": {"kind": k}} for f in literal_kinds.FAMILIES[language] for k in f]
    outcomes = cat.run_rules(engine, language, cat.file_name_for(language, None), bodies, ["x"])
    assert not [b for b, o in zip(bodies, outcomes, strict=True) if o.refused]


def test_a_quote_the_pin_opens_or_closes_with_is_any_quote() -> None:
    assert literal_kinds.any_quote('^"aws\\-sdk', bare=False) == "^[\"'`]aws\\-sdk"
    assert literal_kinds.any_quote("\\.log'$", bare=False) == "\\.log[\"'`]$"
    assert literal_kinds.any_quote("^/tmp/", bare=True) == "^[\"'`]?/tmp/"
    assert literal_kinds.any_quote("l$", bare=False) == "l$"
