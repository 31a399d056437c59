"""suggest_rule writes the rule from the comment text the request writes (directives.py, issue 29): comments holding
it, with the variants the request lists beside it and the comment's opener left out; or, where the request says a
comment is needed above some code, that code not right after such a comment. Real ast-grep, real files in a temp
workspace; each top candidate judged by plain ast-grep on code the examples do not show."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import directives
from tests.test_suggest_shapes import Case, check_case

# These tests are about the generaliser's own rules: no known rule is offered (conftest.ws, the marker).
pytestmark = pytest.mark.generaliser

CASES = {
    "a directive the request lists with another, whatever comment opens it": Case(
        "`# pragma: no cover` twice: the request lists `# pragma: no branch` beside it; either, spaced otherwise, "
        "after other text in the comment, not the same words in a string or prose",
        "python",
        ["def debug_dump(state):  # pragma: no cover\n    print(state)", "if DEBUG:  # pragma: no cover\n    trace()"],
        ["def debug_dump(state):\n    print(state)", "if DEBUG:  # rarely true\n    trace()"],
        ["while retry():  # pragma: no branch\n    wait()", "def g():  #pragma:no cover\n    pass",
         "y = f(2)  # noqa: E501  # pragma: no cover"],
        ['s = "# pragma: no cover"', "# no cover letter is needed\nsend()", "# pragma: once we drop 3.8\nx = 1"],
        request="no `# pragma: no cover` or `# pragma: no branch` comments, test the code instead",
    ),
    "code the request says needs a comment right above it": Case(
        "`eval(code)` twice, the valid ones after a `// SECURITY:` comment: eval not right after such a comment, "
        "itself or the statement around it, whatever other comment is there",
        "javascript",
        ["eval(code);", "const f = eval(src);"],
        ["// SECURITY: code is built from constants\neval(code);",
         "// SECURITY: src is our own bundle\nconst f = eval(src);"],
        ["function run(s) {\n  // run the snippet\n  return eval(s);\n}",
         "// SECURITY: x is checked\nlet a = eval(x);\nlet b = eval(y);"],
        ["function run(s) {\n  // SECURITY: s is a constant\n  return eval(s);\n}",
         "// SECURITY: trusted input\n// see the review\nwindow.result = eval(expr);"],
        request="every eval needs a // SECURITY: comment right above it saying why the input is safe",
    ),
    "code the request says needs a comment, written after it on its line as the valid examples do": Case(
        "`eval(...)` twice, the valid ones with a trailing `# nosec` comment: eval whose statement has no such "
        "comment on its line, whatever other comment it has",
        "python",
        ["value = eval(expr)", "eval(source)"],
        ["value = eval(expr)  # nosec: expr is a constant", "eval(source)  # nosec B307"],
        ["def f(s):\n    return eval(s)", "x = eval(a)  # fast path\ny = 2"],
        ["def f(s):\n    return eval(s)  # nosec: s is validated", "x = eval(a)  # nosec", "y = len(a)"],
        request="every eval needs a # nosec comment saying why the input is safe",
    ),
    "an attribute the request writes, among any other items of its list, outer or inner": Case(
        "`#[allow(dead_code)]` twice: the attribute holding `allow(dead_code)`, also written `#![...]`, beside "
        "other lints in its list or inside `cfg_attr`; not another lint allowed, nor `dead_code` denied",
        "rust",
        ["#[allow(dead_code)]\nfn old_path() {}", "#[allow(dead_code)]\nstruct Unused;"],
        ["#[allow(clippy::too_many_lines)]\nfn old_path() {}", "#[derive(Debug)]\nstruct Unused;"],
        ["#![allow(dead_code)]", "#[allow(unused_imports, dead_code)]\nmod legacy {}",
         "#[cfg_attr(test, allow(dead_code))]\nfn helper() {}"],
        ["#[allow(unused)]\nfn f() {}", "#[deny(dead_code)]\nmod strict {}", "// no allow(dead_code) here\nfn g() {}"],
        request="no #[allow(dead_code)] attributes, delete the code nobody uses",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_comment_text_the_request_writes(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


@pytest.mark.parametrize(("request_text", "comments", "regex"), [
    ("no swiftlint:disable all, disable only the rule you need", [["// swiftlint:disable:next all"]],
     r"\bswiftlint\s*:\s*disable\S*\s+all\b"),  # a qualifier the examples write after a word
    ("no /* istanbul ignore */ or /* c8 ignore */ exclusions", [["/* istanbul ignore next */"]],
     r"\b(istanbul|c8)\s+ignore\b"),
    ("no TODO comments", [["# TODO: later"]], r"(?i)\bTODO\b"),  # a marker in capitals, in any case
    ("no /* FALLTHROUGH */ comments", [["/* FALLTHROUGH */"]], r"(?i)\bFALLTHROUGH\b"),  # not the closer
    ("no comments about the old parser", [["# the old parser"]], None),  # prose, not text written as code
])
def test_the_text_as_the_request_writes_it(request_text: str, comments: list[list[str]], regex: str | None) -> None:
    assert directives.written_text(request_text, comments, []) == regex
