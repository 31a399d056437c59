"""suggest_rule writes the construct the request's words are written in, told from fine code by a request word one
side writes (contrast.py, issue 29): keywords and names alike, the request's lists as one family, a qualifier code
may leave out. Real ast-grep, real files in a temp workspace; each top candidate judged by plain ast-grep on code the
examples do not show."""

from __future__ import annotations

from typing import Any

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import contrast, requested
from sgtools.workflows.suggest.tree import read_examples
from tests.test_suggest_shapes import Case, check_case


def _rule(doc: dict[str, Any]) -> dict[str, Any]:
    rule: dict[str, Any] = doc["rule"]
    return rule


CASES = {
    "a declaration by its keywords and a name, without the modifier the request says it needs": Case(
        "C# exception classes without `sealed`: also a generic one, one with attributes and other modifiers, one "
        "among other code; not a sealed one, nor a class that is no exception, nor `sealed` written in its body",
        "csharp",
        ["class NotFoundException : Exception\n{\n}",
         "public class QuotaException : Exception\n{\n    public QuotaException(string m) : base(m) { }\n}"],
        ["sealed class NotFoundException : Exception\n{\n}",
         "public class Quota\n{\n    public int Limit { get; set; }\n}"],
        ["[Serializable]\ninternal class ParseException : Exception\n{\n    public int Line;\n}",
         "namespace App\n{\n    public class RetryException<T> : Exception { }\n}",
         "public class Handler\n{\n}\npublic class GoneException : Exception\n{\n    sealed class Inner { }\n}"],
        ["public sealed class AuthException : Exception\n{\n}", "public class Report\n{\n}",
         "internal sealed class TimeoutException : Exception { }"],
        check=lambda doc: "not" in _rule(doc),
        request="exception classes must be sealed",
    ),
    "a call the request lists, inside the construct it names, without the call it says to use": Case(
        "`.delay()` or `.apply_async()` inside `transaction.atomic()`, also written `atomic()` from its import, "
        "nested deeper; not one queued through `on_commit`, nor one outside the block, nor in another `with`",
        "python",
        ["with transaction.atomic():\n    order.save()\n    send_receipt.delay(order.id)",
         "with transaction.atomic():\n    refund.apply_async(args=[p.id])"],
        ["with transaction.atomic():\n    order.save()\n"
         "    transaction.on_commit(lambda: send_receipt.delay(order.id))",
         "send_receipt.delay(order.id)"],
        ["with atomic(using=\"default\"):\n    for item in cart:\n        if item.ready:\n"
         "            ship.delay(item.pk)",
         "def close(ledger):\n    with transaction.atomic():\n        ledger.close()\n"
         "        rebuild.apply_async(kwargs={\"id\": ledger.id}, countdown=5)"],
        ["with transaction.atomic():\n    ledger.close()\ntransaction.on_commit(lambda: rebuild.delay(ledger.id))",
         "with open(path) as f:\n    parse.delay(f.read())",
         "with transaction.atomic():\n    transaction.on_commit(partial(rebuild.apply_async, args=[1]))"],
        request=("don't call .delay() or .apply_async() inside transaction.atomic(), queue it with "
                 "transaction.on_commit"),
    ),
    "commands by the options the request lists, when the invalid ones share no word": Case(
        "`pip install --user` and `npm install -g`: one of the request's options, which no valid command writes, "
        "also the one it lists that no example shows (`--break-system-packages`); not an install without them",
        "bash",
        ["pip install --user requests", "npm install -g typescript"],
        ["pip install requests", "npm install typescript"],
        ["pip3 install --break-system-packages -r requirements.txt", "sudo npm install -g pnpm@8",
         "python -m pip install --user --upgrade pip"],
        ["pip install -r requirements.txt", "npm install --save-dev jest", "npm ci"],
        request="no pip install --user / --break-system-packages, and no npm install -g, use a virtualenv or npx",
    ),
    "the construct by two request words over a node kind that reads none of them": Case(
        "`curl ... | sh`: a pipeline writing both words of the request, however the command is spelled; not every "
        "pipeline (`curl | jq`, `cat | grep`), nor `sh` run on a downloaded file",
        "bash",
        ["curl -sL https://x.io/setup | sh", "curl https://y.dev/i.sh | sh -s -- --yes"],
        ["curl -sLo setup.sh https://x.io/setup && sh setup.sh", "curl -o i.sh https://y.dev/i.sh"],
        ["curl -fsSL \"$URL\" | sh -", "if ! command -v rustup; then curl https://sh.rustup.rs -sSf | sh; fi"],
        ["curl -s \"$API/status\" | jq -r .state", "cat deploy.sh | grep -v '^#' > clean.sh",
         "curl -o get.sh https://z.io/get.sh && sh get.sh"],
        request="don't pipe curl into sh, download the script first",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_construct_by_the_words_one_side_writes(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


def test_the_requests_lists_are_families_and_its_qualifiers_optional() -> None:
    words = contrast.Words("don't call `.delay()` or `.apply_async()` inside transaction.atomic(); use SIGNAL()/SLOT()")
    assert words.of("apply_async") == words.of("delay") == "delay"
    assert words.of("SLOT") == words.of("SIGNAL") and words.of("atomic") == "atomic"
    assert "transaction" in words.qualifiers and "atomic" not in words.qualifiers
    assert words.of("overrides") is None and contrast.Words("overrides must call super").of("override") == "overrides"
    assert contrast.Words("Ruby's save(validate: false)").of("save!") == "save"
    # Commas alone join clauses, not a list: "functions" and "inject" are no family.
    clauses = contrast.Words("no global variables inside functions, inject dependencies")
    assert clauses.of("function") != clauses.of("inject")
    assert contrast.Words("a, b or c").of("c") == contrast.Words("a, b or c").of("a")


def test_a_literal_that_is_code_is_a_construct(ws: Workspace, engine: Engine) -> None:
    """Go's `cobra.Command{...}`: the smallest construct writing the request's words, with or without the `&`."""
    invalid = read_examples(engine, ws.root, "go", ["var c = &cobra.Command{Use: \"a\", Run: run}",
                                                    "var d = &cobra.Command{Run: serve}"])
    valid = read_examples(engine, ws.root, "go", ["var c = &cobra.Command{Use: \"a\", RunE: run}"])
    kinds = [_rule(c.body).get("kind") for c in contrast.contrast_forms("cobra commands use RunE, not Run", invalid,
                                                                       valid, 0)]
    assert "composite_literal" in kinds, kinds


def test_a_whole_function_is_never_told_by_the_words_of_its_body(ws: Workspace, engine: Engine) -> None:
    """The issue's whole-function pattern: a function by a call in its body is no rule on functions."""
    invalid = read_examples(engine, ws.root, "python", ["def a():\n    print(1)", "def b(x):\n    print(x)"])
    valid = read_examples(engine, ws.root, "python", ["def a():\n    log(1)", "def b(x):\n    return x"])
    kinds = [_rule(c.body).get("kind") for c in contrast.contrast_forms("no print in functions", invalid, valid, 0)]
    assert "function_definition" not in kinds
    named = read_examples(engine, ws.root, "python", ["async def a():\n    print(1)", "async def b(x):\n    g(x)"])
    kinds = [_rule(c.body).get("kind")
             for c in contrast.contrast_forms("no async def functions", named, valid, 0)]
    assert "function_definition" in kinds, "words of its own parts (`async`, `def`) do tell it"


def test_a_rule_reads_the_request_by_its_values_not_its_keys() -> None:
    """What lets the construct by the request's words go over a top rule shaped by the examples: that rule checks
    no word of the request (`kind: pipeline`), nor a literal it writes; a key (`kind`, `end`) is no word of it."""
    request = 'an empty String is String::new(), not String::from("")'
    assert requested.reads_request({"rule": {"kind": "call_expression", "has": {"regex": '^""$'}}}, request)
    assert requested.reads_request({"rule": {"pattern": "String::from($A)"}}, request)
    assert not requested.reads_request({"rule": {"kind": "pipeline", "has": {"kind": "command", "stopBy": "end"}}},
                                       "the kind of pipe that has no end, nor a stopBy")
    assert not requested.reads_request({"rule": {"has": {"regex": '^""$'}}}, "don't pipe curl into sh")
