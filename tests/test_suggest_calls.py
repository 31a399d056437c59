"""suggest_rule shapes an ast-grep author uses on calls (issue 29), one case per shape, judged like
tests/test_suggest_shapes.py: the top candidate is run by plain ast-grep on code it never saw. Real ast-grep,
real files in a temp workspace."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests.test_suggest_shapes import Case, check_case

# These tests are about the generaliser's own rules: no known rule is offered (conftest.ws, the marker).
pytestmark = pytest.mark.generaliser

CASES = {
    "a call the request lists with others, shown by two of them, is every name of its list": Case(
        "\"info, warn and error\" with `info(...)` and `warn(...)` shown: the request's whole list, the last name "
        "joined by a bare `and` after the comma (listed.request_lists), also `error(...)`, which no example writes.",
        "python",
        ['info("started")', 'warn("slow reply")'],
        ['log.info("started")', 'log.warn("slow reply")'],
        ['error("failed")', 'info(f"{n} rows")', 'warn(msg, stacklevel=2)'],
        ['log.error("failed")', 'log.info(f"{n} rows")', 'logger.warn(msg)'],
        request="call log.info, log.warn and log.error, not the bare info, warn and error",
    ),
    "a call the request says needs an argument with a value: another value of it lacks it": Case(
        "`yaml.load` without `Loader=yaml.SafeLoader`: also one passing another loader (`Loader=yaml.FullLoader`), "
        "the value the request writes is the need, not the keyword alone; not one passing it, however spaced",
        "python",
        ["data = yaml.load(fh)", "cfg = yaml.load(open(path).read())"],
        ["data = yaml.load(fh, Loader=yaml.SafeLoader)", "cfg = yaml.load(open(path).read(), Loader=yaml.SafeLoader)"],
        ["doc = yaml.load(stream, Loader=yaml.FullLoader)", "settings = yaml.load(text, Loader = yaml.UnsafeLoader)",
         "return yaml.load(raw)"],
        ["doc = yaml.load(stream, Loader = yaml.SafeLoader)", "doc = json.load(stream)",
         "items = yaml.load(buf, Loader=yaml .SafeLoader)"],
        request="yaml.load needs Loader=yaml.SafeLoader, any other loader can build arbitrary objects",
    ),
    "a call the request names by its bare name, on the receiver it names": Case(
        "`create` on `twilio` (the request's word) without `statusCallback`: also on `twilioClient`, `this.twilio`; "
        "not `db.messages.create`, which the request does not name, nor a call passing the callback",
        "javascript",
        ["await twilio.messages.create({ to, from, body });",
         "client.twilio.messages.create({ body: text, to: phone });"],
        ["await twilio.messages.create({ to, from, body, statusCallback: url });", "await db.messages.insert({ to });"],
        ["return twilioClient.messages.create({ to: user.phone, from: SENDER, body: code });",
         "await this.twilio.calls.create({ url: twimlUrl, to, from });"],
        ["await db.messages.create({ to: user.id, body: text });",
         "await twilio.messages.create({ to, from, body, statusCallback: `${base}/sms/status` });"],
        request="every Twilio create call must pass a statusCallback, or we never learn the message failed",
    ),
    "a call whose kind names a function misses a flag": Case(
        "PHP's call is a `function_call_expression`: a call, not a whole function, so the flag every valid call "
        "passes is said on the call (`not: has` `ENT_QUOTES`), not on the assignment or statement around it.",
        "php",
        [
            "<?php\n$out = htmlspecialchars($name);",
            "<?php\n$t = htmlspecialchars($title, ENT_HTML5);",
        ],
        [
            "<?php\n$out = htmlspecialchars($name, ENT_QUOTES, 'UTF-8');",
            "<?php\n$t = htmlspecialchars($title, ENT_QUOTES | ENT_HTML5);",
        ],
        [
            "<?php\necho htmlspecialchars($a);",
            "<?php\nreturn htmlspecialchars($b, ENT_NOQUOTES);",
            "<?php\nrender(htmlspecialchars($c, ENT_HTML401));",
        ],
        [
            "<?php\necho htmlspecialchars($a, ENT_QUOTES);",
            "<?php\n$t = strip_tags($title);",
        ],
        lambda doc: "ENT_QUOTES" in str(doc["rule"]),
    ),
    "a call told apart by the kind of its first argument": Case(
        "Every valid `subprocess.run` passes a list first and no invalid one does (a concatenation, a name): the "
        "first argument's kind is the fact (`nthChild: 1`, `not: kind: list`), not the valid calls' text copied "
        "into a `not`.",
        "python",
        [
            "subprocess.run(\"ls \" + folder)",
            "subprocess.run(command, check=True)",
        ],
        [
            "subprocess.run([\"ls\", folder])",
            "subprocess.run([command, arg], check=True)",
        ],
        [
            "subprocess.run(f\"rm -rf {path}\")",
            "subprocess.run(line, cwd=root)",
            "out = subprocess.run(cmd_text, capture_output=True)",
        ],
        [
            "subprocess.run([\"rm\", \"-rf\", path])",
            "subprocess.run([\"make\"], cwd=root)",
        ],
        lambda doc: "nthChild" in str(doc["rule"]),
    ),
    "a call passed as the argument is said by its name": Case(
        "`log.Print(fmt.Sprintf(...))`: a valid call passes a string, the invalid ones a call; the inner call's "
        "name is the point (the pattern keeps it), not \"anything but a string\", which flags `log.Print(msg)`.",
        "go",
        [
            "func f(n int) {\n\tlog.Print(fmt.Sprintf(\"n=%d\", n))\n}",
            "func g() {\n\tok := check()\n\tlog.Print(fmt.Sprintf(\"%s: %v\", name, ok))\n}",
        ],
        [
            "func f(n int) {\n\tlog.Printf(\"n=%d\", n)\n}",
            "func g() {\n\tok := check()\n\tlog.Print(\"done\")\n}",
        ],
        [
            "func h(v int) {\n\tlog.Print(fmt.Sprintf(\"%v\", v))\n}",
        ],
        [
            "func h(msg string) {\n\tlog.Print(msg)\n}",
            "func k() {\n\tlog.Print(strings.Repeat(\"a\", 3))\n}",
        ],
    ),
    "a construct told apart by a value word among its children": Case(
        "`lock (this)`: the dump shows `this` as a token (its kind is its text), which a rule names by its pattern "
        "(`has: {pattern: this}`); the statement's bodies differ, and `lock (this) $A` is no C# statement.",
        "csharp",
        [
            "class Cache {\n  void Put(string k, object v) {\n    lock (this) {\n      map[k] = v;\n    }\n  }\n}",
            "class Pool {\n  Item Take() {\n    lock (this) { return items.Pop(); }\n  }\n}",
        ],
        [
            "class Cache {\n  void Put(string k, object v) {\n    lock (sync) {\n      map[k] = v;\n    }\n  }\n}",
            "class Pool {\n  Item Take() {\n    return queue.Take();\n  }\n}",
        ],
        [
            "class Q {\n  void Clear() {\n    lock (this)\n      items.Clear();\n  }\n}",
            "class R {\n  void M() {\n    if (ok) { lock (this) { Run(); } }\n  }\n}",
        ],
        [
            "class Q {\n  void Clear() {\n    lock (_gate) { items.Clear(); }\n  }\n}",
            "class R {\n  void M() {\n    Register(this);\n  }\n}",
        ],
    ),
    "a kind held outside any call": Case(
        "Request data returned raw: every match holds the request's attribute, and in the valid ones only inside a "
        "call (an escape): `has: {kind: attribute, stopBy: {kind: call}}`, not the valid code copied into a `not`.",
        "python",
        [
            "def page():\n    return \"<h1>\" + request.args[\"title\"]",
            "def bio():\n    return request.form[\"bio\"]",
        ],
        [
            "def page():\n    return \"<h1>\" + escape(request.args[\"title\"])",
            "def bio():\n    return markup(request.form[\"bio\"])",
        ],
        [
            "def f():\n    return request.args[\"q\"]",
            "def g():\n    return \"<b>%s</b>\" % request.cookies[\"c\"]",
        ],
        [
            "def f():\n    return escape(request.args[\"q\"])",
            "def g():\n    return sanitize(request.cookies.get(\"c\"))",
            "def h():\n    q = request.args[\"q\"]\n    return escape(q)",
        ],
        lambda doc: "stopBy" in str(doc["rule"]),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_call_shape_an_author_would_write(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])
