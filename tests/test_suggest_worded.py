"""suggest_rule keeps the code inside the enclosing construct the request names by a plain word that construct
writes before the code (worded.py, issue 29): a class whose `extends` says it, a function or lambda whose modifier
says it. Real ast-grep, real files in a temp workspace; each top candidate judged by plain ast-grep on code the
examples do not show."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import worded
from tests.test_suggest_shapes import Case, check_case

# These tests are about the generaliser's own rules: no known rule is offered (conftest.ws, the marker).
pytestmark = pytest.mark.generaliser

CASES = {
    "a call inside a class whose extends clause says the request's word": Case(
        "`console.log` inside a class extending `Component` (or `React.Component`, `PureComponent`'s kin by the "
        "word): in any method of it; not in a plain function, nor in a class extending something else",
        "javascript",
        ["class Menu extends Component {\n  render() {\n    console.log(this.props);\n    return null;\n  }\n}",
         "class Toast extends React.Component {\n  componentDidMount() {\n    console.log('up');\n  }\n}"],
        ["class Menu extends Component {\n  render() {\n    return null;\n  }\n}",
         "function trace() {\n  console.log(this.props);\n}"],
        ["class Grid extends Component {\n  onClick(e) {\n    if (e) { console.log(e.target); }\n  }\n}",
         "class Row extends BaseComponent {\n  render() { console.log(1); return null; }\n}"],
        ["class Store extends Emitter {\n  add(x) { console.log(x); }\n}",
         "const log = (m) => console.log(m);",
         "class Grid extends Component {\n  render() { return this.cells; }\n}"],
        request="no console.log left in React components, use the devtools instead",
    ),
    "a call inside any function or lambda whose modifier says the request's word": Case(
        "`Thread.Sleep` inside an `async` method, lambda or local function: one modifier says it on each; not in "
        "a method without it",
        "csharp",
        ["class Poller {\n  async Task Run() {\n    Thread.Sleep(100);\n    await Tick();\n  }\n}",
         "class Poller {\n  public async Task<int> Wait() {\n    Thread.Sleep(50);\n    return await Next();\n  }\n}"],
        ["class Poller {\n  async Task Run() {\n    await Task.Delay(100);\n  }\n}",
         "class Poller {\n  void Block() {\n    Thread.Sleep(100);\n  }\n}"],
        ["class Job {\n  private async Task Go() { Thread.Sleep(10); }\n}",
         "class Job {\n  void Start() {\n    Func<Task> f = async () => { Thread.Sleep(5); await Step(); };\n  }\n}"],
        ["class Job {\n  static void Main() { Thread.Sleep(10); }\n}",
         "class Job {\n  async Task Go() { await Task.Delay(10); }\n}"],
        request="never block with Thread.Sleep in async code, await Task.Delay",
    ),
    "a modifier counts only on the nearest function around the code": Case(
        "`File.ReadAllText` in an `async` method or lambda is blocking; in a plain lambda handed to `Task.Run` "
        "inside an async method it runs on a worker thread, the lambda is not async code",
        "csharp",
        ["class Loader {\n  async Task<string> Load(string p) {\n    var s = File.ReadAllText(p);\n"
         "    await Log(s);\n    return s;\n  }\n}",
         "class Loader {\n  public async Task Read(string p) {\n    Use(File.ReadAllText(p));\n"
         "    await Done();\n  }\n}"],
        ["class Loader {\n  async Task<string> Load(string p) {\n    return await File.ReadAllTextAsync(p);\n  }\n}",
         "class Loader {\n  string Load(string p) {\n    return File.ReadAllText(p);\n  }\n}"],
        ["class Cfg {\n  static async Task Init(string f) {\n    if (f != null) { Parse(File.ReadAllText(f)); }\n"
         "  }\n}",
         "class Cfg {\n  void Wire() {\n    Handler h = async (string f) => { Parse(File.ReadAllText(f)); };\n"
         "  }\n}"],
        ["class Cfg {\n  async Task Init(string f) {\n    var t = await Task.Run((string x) => File.ReadAllText(f));"
         "\n  }\n}",
         "class Cfg {\n  async Task Init(string f) {\n    await Task.Run(() => { Parse(File.ReadAllText(f)); });"
         "\n  }\n}",
         "class Cfg {\n  void Init(string f) { Parse(File.ReadAllText(f)); }\n}"],
        request="no File.ReadAllText inside async methods or lambdas, await File.ReadAllTextAsync",
    ),
    "code that separates on its own, placed where the request says it sits": Case(
        "`print(...)` in two pytest fixtures, which no valid example writes at all: the request says 'inside a "
        "fixture', so it is flagged inside a function whose decorator says `fixture`, not every `print` (the "
        "examples alone would flag `print` anywhere)",
        "python",
        ["@pytest.fixture\ndef db():\n    print(\"setting up\")\n    return make_db()",
         "@fixture\ndef client(app):\n    print(app.config)\n    return app.test_client()"],
        ["@pytest.fixture\ndef db():\n    return make_db()",
         "@fixture\ndef client(app):\n    return app.test_client()"],
        ["@pytest.fixture(scope=\"session\")\ndef cfg():\n    print(\"cfg\")\n    yield load()",
         "@fixture\ndef user(db):\n    u = db.add(User())\n    print(u.id)\n    return u"],
        ["def main():\n    print(run())", "@app.route(\"/\")\ndef index():\n    print(request.args)\n    return \"ok\"",
         "@pytest.fixture\ndef db():\n    return make_db()"],
        request="no print() inside a pytest fixture, use the caplog fixture or logging",
    ),
    "code that separates on its own, placed in the declaration the request's subject names": Case(
        "`Date.now()` in methods of two classes named `...Controller`, which no valid example calls at all: the "
        "request's subject is 'controllers', so it is flagged inside a class whose name says `Controller`, not "
        "every `Date.now()` (the examples alone would flag it anywhere)",
        "javascript",
        ["class OrderController {\n  create(req) {\n    return this.orders.add({ ...req.body, at: Date.now() });"
         "\n  }\n}",
         "class SessionController {\n  touch(s) {\n    s.seen = Date.now();\n  }\n}"],
        ["class OrderController {\n  create(req) {\n    return this.orders.add({ ...req.body, at: this.clock.now() });"
         "\n  }\n}",
         "class SessionController {\n  touch(s) {\n    s.seen = this.clock.now();\n  }\n}"],
        ["class ReportController {\n  run() {\n    const started = Date.now();\n    return this.build(started);"
         "\n  }\n}",
         "export class AuthController {\n  login(u) {\n    if (Date.now() > u.lockedUntil) this.ok(u);\n  }\n}"],
        ["function elapsed(t0) {\n  return Date.now() - t0;\n}",
         "class Stopwatch {\n  start() {\n    this.t0 = Date.now();\n  }\n}"],
        request="controllers must not call Date.now(), take a clock so tests can fix the time",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_code_inside_the_construct_the_request_names_by_a_word(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


def test_a_word_is_read_as_a_word_or_a_part_of_a_name() -> None:
    import re

    said = re.compile(worded.says("flow"))
    assert all(said.search(t) for t in ("flow", "Flow", "channelFlow", "flow_of", "flowOn", "'flow'"))
    assert not any(said.search(t) for t in ("overflow", "flows", "Flowers"))
    assert worded.request_words("never Await.result inside an Akka actors' code") >= {"akka", "actor", "actors"}
    # Where the request says the code sits: the words after "in", not a path scope ("in tests") nor what follows.
    assert worded.place_words("no Math.random() in a React key, the key changes") == {"react", "key"}
    assert worded.place_words("in tests, use the fake clock") == set()
    assert worded.subject_words("view models don't reach for .shared singletons") == {"view", "model", "models"}
    assert worded.subject_words("don't call Date.now() in controllers") == set()


def test_code_interpolated_into_a_string_is_code_the_request_names(ws: Workspace, engine: Engine) -> None:
    """`${Date.now()}` in a template string writes `Date.now` as code: the request's code is read there too (its
    rule was dropped when one invalid example wrote it only so), not the words of the string's text."""
    from sgtools.workflows.suggest import asked, requested
    from sgtools.workflows.suggest.tree import read_examples

    invalid = read_examples(engine, ws.root, "javascript", ["const id = Date.now();",
                                                            "const key = `${user}-${Date.now()}`;"])
    valid = read_examples(engine, ws.root, "javascript", ["const id = crypto.randomUUID();",
                                                          "const key = `${user}-now`;"])
    assert {"Date", "now"} <= asked.code_tokens(invalid[1])
    assert "now" not in asked.code_tokens(valid[1]), "the text of the string is no code"
    forms = requested.request_forms("no Date.now() in ids, use crypto.randomUUID()", invalid, valid, "javascript", 0)
    assert forms and "Date" in str(forms[0].body), forms
