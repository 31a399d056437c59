"""suggest_rule writes a spelling the request says (spellings.py reads it, spelled.py places it; issue 29) as a
regex on the one node that carries it: a declared name, a number literal, a value by the name it is set to, a
string a call is passed, a comment by its marker. Real ast-grep, real files in a temp workspace; each top
candidate judged by plain ast-grep on code the examples do not show."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import spelled, spellings
from sgtools.workflows.suggest.tree import read_examples
from tests.test_suggest_shapes import Case, check_case

CASES = {
    "a prefix the request forbids, on the names of the declarations it names": Case(
        "`enum EColor` and `enum EStatus`: the enum declarations whose name starts with `E` and a capital, not the "
        "valid names copied into a `not`, nor an enum whose name merely starts with an E (`Events`)",
        "typescript",
        ["enum EColor {\n  Red,\n  Green,\n}", "export enum EStatus {\n  On,\n  Off,\n}"],
        ["enum Color {\n  Red,\n  Green,\n}", "export enum Status {\n  On,\n  Off,\n}"],
        ["export enum EMode { Fast }", "declare enum EKind {\n  A,\n}"],
        ["enum Events { Click }", "class EFoo {}", "enum Mode { Fast }"],
        request="don't prefix enum names with E",
    ),
    "a letter's case the request says, on the number literals": Case(
        "`10u` and `3u + 4u`: every integer literal ending in a lower-case `u`, wherever it stands",
        "c",
        ["unsigned n = 10u;", "unsigned m = 3u + 4u;"],
        ["unsigned n = 10U;", "unsigned m = 3U + 4U;"],
        ["if (x > 7u) { return; }", "f(2u);"],
        ["unsigned k = 7U;", "int u = 1;", "const char *s = \"7u\";"],
        request="unsigned literals take an uppercase U",
    ),
    "a number's range the request says, on the value of the name it names": Case(
        "`max_retries=5` and `max_retries=10`: a keyword argument named max_retries set to a number above 3, "
        "whatever call it is passed to; not `max_retries=3` nor a variable",
        "python",
        ["adapter = HTTPAdapter(max_retries=5)", "session.mount(prefix, HTTPAdapter(pool_maxsize=2, max_retries=10))"],
        ["adapter = HTTPAdapter(max_retries=3)", "session.mount(prefix, HTTPAdapter(pool_maxsize=2, max_retries=1))"],
        ["client = Client(max_retries=4)", "make(timeout=1, max_retries = 12)"],
        ["HTTPAdapter(max_retries=0)", "HTTPAdapter(max_retries=n)", "HTTPAdapter(pool_maxsize=9)"],
        request="never set max_retries above 3, it hammers the server",
    ),
    "a suffix every string a call is passed must end in": Case(
        "`create_topic(\"orders\")`: the first argument of the call, a string, not ending in `_events` (inside its "
        "quotes), not the valid calls copied into a `not`",
        "python",
        ["create_topic(\"orders\", partitions=3)", "t = create_topic(\"payments\")"],
        ["create_topic(\"orders_events\", partitions=3)", "t = create_topic(\"payments_events\")"],
        ["create_topic('refunds')", "topics = [create_topic(\"audit\", partitions=1)]"],
        ["create_topic('refunds_events')", "create_table(\"refunds\")", "create_topic(name)"],
        request="topic names must end in _events",
    ),
    "a case the request says a message starts with, on the calls that take it": Case(
        "`ValueError(\"Bad input\")` and `KeyError(\"Missing key\")`: the first argument of those calls starting "
        "with a capital, whichever of them",
        "python",
        ["raise ValueError(\"Bad input\")", "raise KeyError(\"Missing key %s\" % k)"],
        ["raise ValueError(\"bad input\")", "raise KeyError(\"missing key %s\" % k)"],
        ["raise ValueError('Negative size')", "err = KeyError(\"No such user\")"],
        ["raise ValueError(\"negative size\")", "print(\"Hello\")", "raise ValueError(msg)"],
        request="exception messages start with a lower-case letter",
    ),
    "a marker's form the request writes, on the comments holding the marker": Case(
        "`# FIXME: later` and `# FIXME(bob): ...`: every comment with FIXME (any case) not written `FIXME(JIRA-n)`, "
        "any number",
        "python",
        ["x = load()  # FIXME: retry later", "# FIXME(bob): handle None\ny = x or 0"],
        ["x = load()  # FIXME(JIRA-1234): retry later", "# Handles None.\ny = x or 0"],
        ["# fixme: hack\nz = 1", "# FIXME(JIRA-): no number\nz = 1"],
        ["# FIXME(JIRA-77): fine\nz = 1", "s = \"FIXME\"", "fixme_count = 0"],
        request="every FIXME needs a ticket: FIXME(JIRA-1234)",
    ),
    "prefixes the request lists, on the declared names": Case(
        "`interface TUser` and `interface IConfig`: the interfaces whose name starts with either prefix the request "
        "lists and a capital, not only the first one it writes",
        "typescript",
        ["interface TUser {\n  id: string;\n}", "export interface IConfig {\n  debug: boolean;\n}"],
        ["interface User {\n  id: string;\n}", "export interface Config {\n  debug: boolean;\n}"],
        ["export interface TState { v: number }", "interface IRepo { x: number }"],
        ["interface Theme { dark: boolean }", "interface Item { n: number }", "class TFoo {}"],
        request="don't prefix interface names with T or I",
    ),
    "a naming style the request names, on the declarations it is asked of": Case(
        "`def getUser` and `def saveAll`: every function whose name is not snake_case, wherever it is declared; "
        "not a variable or a class so named",
        "python",
        ["def getUser(id):\n    return db.find(id)", "def saveAll(items):\n    db.save(items)"],
        ["def get_user(id):\n    return db.find(id)", "def save_all(items):\n    db.save(items)"],
        ["def loadConfig(path):\n    return path", "class A:\n    def doIt(self):\n        pass"],
        ["def load_config(path):\n    return path", "loadConfig = 1", "class HttpClient:\n    pass"],
        request="function names must be snake_case",
    ),
    "a range the request says a number passed to a call must be in, from below": Case(
        "`setInterval(poll, 100)` and `setInterval(..., 50)`: the delay the calls pass, a number not above 999; "
        "not a delay held in a variable, nor another call's",
        "javascript",
        ["setInterval(poll, 100);", "setInterval(() => tick(), 50);"],
        ["setInterval(poll, 5000);", "setInterval(() => tick(), 1000);"],
        ["const id = setInterval(refresh, 250);", "setInterval(function () { ping(); }, 20);"],
        ["setInterval(refresh, 60000);", "setInterval(refresh, delay);", "setTimeout(refresh, 10);"],
        request="no polling intervals below 1000 ms",
    ),
    "a name the request gives a suffix, on the declarations that derive from one so named": Case(
        "error classes end in `Error`: those whose base ends in `Error` (`LookupError`, `errors.ValidationError`) "
        "without it; not a class by another base (`ErrorHandler(Handler)`, `Reporter(IErrorSink)`), nor one "
        "named right",
        "python",
        ["class NotFound(LookupError):\n    pass", "class Timeout(NetworkError):\n    code = 504"],
        ["class NotFoundError(LookupError):\n    pass", "class RequestTimeoutError(NetworkError):\n    code = 504"],
        ["class Denied(PermissionError):\n    pass", "class Bad(errors.ValidationError):\n    field = None"],
        ["class ErrorHandler(Handler):\n    pass", "class Reporter(IErrorSink):\n    pass",
         "class ParseError(ValueError):\n    pass"],
        request="error classes end in Error: anything deriving from an Error class gets the suffix",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_spelling_the_request_says(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


@pytest.mark.parametrize(("request_", "flagged", "probe", "wrong"), [
    ("names must end in _total", False, "http_requests", True),
    ("names must end in _total", False, "http_requests_total", False),
    ("don't prefix interface names with I", True, "IUser", True),
    ("don't prefix interface names with I", True, "Identity", False),
    ("no tabIndex above 0", True, "{2}", True),
    ("no tabIndex above 0", True, "{-1}", False),
    ("no retries above 12", True, "13", True),
    ("no retries above 12", True, "12", False),
    ("no retries above 12", True, "100", True),
    ("boolean names start with is, has or can", False, "hasItems", False),
    ("boolean names start with is, has or can", False, "loaded", True),
    ("constants must be SCREAMING_SNAKE_CASE", False, "MAX_SIZE", False),
    ("constants must be SCREAMING_SNAKE_CASE", False, "maxSize", True),
    ("no camelCase constants", True, "maxSize", True),
    ("types are UpperCamelCase", False, "HttpClient", False),
    ("types are UpperCamelCase", False, "http_client", True),
    ("no timeouts below 100", False, "50", True),
    ("no timeouts below 100", False, "100", False),
    ("retries must be at most 3", True, "4", True),
    ("retries must be at most 3", True, "3", False),
    ("ports must be at least 1024", False, "80", True),
])
def test_the_spelling_read_from_the_request(request_: str, flagged: bool, probe: str, wrong: bool) -> None:
    """The request's words give the regex and which side of it is wrong; the literal is not the rule."""
    said = spellings.spellings(request_)[0]
    regex = said.regex[spellings.NAME if probe[0].isalpha() else spellings.NUMBER]
    assert said.flagged is flagged
    assert (re.search(regex, probe) is not None) == (wrong == flagged)


def test_a_spelling_every_name_must_have_is_confirmed_by_a_valid_example_carrying_it(engine: Engine,
                                                                                    tmp_path: Path) -> None:
    """"Handlers must end in _handler" with no valid example writing such a name: the valid examples separate only
    by lacking the declarations, which says nothing of the spelling; with one that writes it, the rule is offered."""
    invalid = read_examples(engine, tmp_path, "python", ["def load(x):\n    return x", "def save(x):\n    return x"])
    bare = read_examples(engine, tmp_path, "python", ["x = load", "y = save"])
    shown = read_examples(engine, tmp_path, "python", ["def load_handler(x):\n    return x", "y = save"])
    request = "handlers must end in _handler"
    assert spelled.spelled_forms([], invalid, bare, request, "python", 0) == []
    assert spelled.spelled_forms([], invalid, shown, request, "python", 0)
