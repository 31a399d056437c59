"""suggest_rule and enclosing contexts (issue 29): the context an ast-grep author would name, with `stopBy: end`,
judged on code the examples do not show. Real ast-grep, real files in a temp workspace."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sgtools.core import yamlio
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.rule_testing import test_rule as run_test_rule
from sgtools.workflows.suggest.service import suggest_rule

# These tests are about the generaliser's own rules: no known rule is offered (conftest.ws, the marker).
pytestmark = pytest.mark.generaliser


def _top(ws: Workspace, engine: Engine, language: str, invalid: list[str], valid: list[str]) -> str:
    result = suggest_rule(ws, engine, language, invalid, valid)
    assert result["success"], result.get("explanation")
    return str(result["candidates"][0]["yaml"])


def _holds(ws: Workspace, engine: Engine, yaml: str, bad: list[str], good: list[str]) -> None:
    out = run_test_rule(ws, engine, yaml, invalid_examples=bad, valid_examples=good)
    assert out["success"], (yaml, out["examples"]["failed"])


def test_a_statement_inside_a_clause_is_said_by_its_kind(ws: Workspace, engine: Engine) -> None:
    # `return $A` keeps only its keyword: the kind says the same and also covers a bare `return;`. The clause it
    # sits in (`finally_clause`) is the context, not the `try_statement` around it.
    yaml = _top(ws, engine, "java", [
        "class A {\n  int f() {\n    try {\n      return g();\n    } finally {\n      return 0;\n    }\n  }\n}",
        "class B {\n  String h() {\n    try {\n      run();\n    } finally {\n      cleanup();\n      return name;\n"
        "    }\n  }\n}"], [
        "class A {\n  int f() {\n    try {\n      return g();\n    } finally {\n      close();\n    }\n  }\n}",
        "class B {\n  String h() {\n    try {\n      run();\n    } finally {\n      cleanup();\n    }\n"
        "    return name;\n  }\n}"])
    rule = yamlio.load_one(yaml)["rule"]
    assert rule["all"][0] == {"kind": "return_statement"}, yaml
    assert rule["all"][1]["inside"]["kind"] == "finally_clause", yaml
    _holds(ws, engine, yaml, [
        "class C {\n  void v() {\n    try {\n      a();\n    } finally {\n      return;\n    }\n  }\n}",
        "class D {\n  int w() {\n    try {\n      a();\n    } catch (E e) {\n      b();\n    } finally {\n"
        "      if (x) {\n        return 1;\n      }\n    }\n  }\n}"], [
        "class C {\n  int v() {\n    try {\n      return a();\n    } catch (E e) {\n      return -1;\n    }\n  }\n}"])


def test_code_fine_only_in_a_function_of_one_name(ws: Workspace, engine: Engine) -> None:
    # Every valid call sits in `main`, no invalid one does: `not: inside` a function with that name, wherever
    # else the call is (a helper, a method, a lambda at top level).
    yaml = _top(ws, engine, "python", [
        "def run(args):\n    if not args:\n        sys.exit(2)", "def stop(code):\n    cleanup()\n    sys.exit(code)"],
        ["def main():\n    sys.exit(run(sys.argv))", "def main():\n    if not ok():\n        sys.exit(1)"])
    rule = yamlio.load_one(yaml)["rule"]
    assert "not" in rule["all"][-1] and "^main$" in yaml, yaml
    _holds(ws, engine, yaml, ["class App:\n    def quit(self):\n        sys.exit(0)", "die = lambda: sys.exit(3)"],
           ["def main():\n    for a in args:\n        if bad(a):\n            sys.exit(4)"])


def test_one_valid_example_is_no_evidence_of_a_fine_context(ws: Workspace, engine: Engine) -> None:
    # With one valid example in a function named `stop`, "except in functions named stop" would be a guess.
    yaml = _top(ws, engine, "python", ["def run():\n    os._exit(1)", "def go(a):\n    log(a)\n    os._exit(a)"],
                ["def stop():\n    os._exit(0)", "def run():\n    return 1"])
    assert "^stop$" not in yaml, yaml



@dataclass(frozen=True)
class Case:
    """A request whose top candidate must name a context: the texts its YAML must (and must not) hold, and code
    the examples do not show that it must flag (`bad`) and let through (`good`)."""

    why: str
    language: str
    invalid: list[str]
    valid: list[str]
    holds: tuple[str, ...]
    bad: list[str]
    good: list[str]
    lacks: tuple[str, ...] = ()


CASES = {
    "two kinds of loop mean any loop": Case(
        "Rust's loops are expressions (`for_expression`, `while_expression`): still contexts of their own, and two "
        "kinds of loop shown mean every loop of the language, `loop` too.", "rust",
        ["for f in files.iter() {\n    let re = Regex::new(PAT).unwrap();\n    check(f, &re);\n}",
         "while let Some(line) = lines.next() {\n    let re = Regex::new(r\"\\d+\").unwrap();\n"
         "    scan(line, &re);\n}"],
        ["let re = Regex::new(PAT).unwrap();\nfor f in files.iter() {\n    check(f, &re);\n}",
         "while let Some(line) = lines.next() {\n    scan(line, &DIGITS);\n}"],
        ("loop_expression", "stopBy: end"),
        ["loop {\n    let r = Regex::new(p).unwrap();\n    go(&r);\n}",
         "while n > 0 {\n    if ok {\n        let r = Regex::new(x).unwrap();\n    }\n}"],
        ["fn build() -> Regex {\n    Regex::new(PAT).unwrap()\n}"]),
    "a context marked by a kind in its header": Case(
        "The destructors are named differently (`A::~A`, `~B`): no text marks them, the `destructor_name` does. A "
        "destructor is fine in itself (the valid one), exiting in one is not.", "cpp",
        ["A::~A() {\n  if (bad) {\n    exit(1);\n  }\n}", "struct B {\n  ~B() {\n    flush();\n    exit(2);\n  }\n};"],
        ["A::~A() {\n  if (bad) {\n    log_error();\n  }\n}",
         "struct B {\n  void close() {\n    flush();\n    exit(2);\n  }\n};"],
        ("destructor_name", "stopBy: end"),
        ["Pool::~Pool() {\n  for (auto &c : cs) {\n    exit(3);\n  }\n}",
         "class L {\n public:\n  ~L() {\n    exit(code);\n  }\n};"],
        ["Pool::Pool() {\n  exit(3);\n}", "void L::release() {\n  exit(code);\n}"]),
    "test functions by the start of their names": Case(
        "`test_login` and `test_logout` share `test_log`, but the word part they share is `test_`: the convention. "
        "The call shown verbatim in a valid function (`print(client.get('/'))`) is still a call, not its callee.",
        "python",
        ["def test_login(client):\n    print(client.get('/'))",
         "def test_logout(c):\n    r = c.post('/out')\n    print(r)"],
        ["def show(client):\n    print(client.get('/'))",
         "def test_logout(c):\n    r = c.post('/out')\n    assert r.ok"],
        ("regex: ^test_\n", "print($$$ARGS)"),
        ["class TestApi:\n    def test_get(self):\n        print(self.api.get())"],
        ["def render(page):\n    print(page)", "def tester():\n    print(1)"]),
    "a call context by its callees' names": Case(
        "Inside `it(...)` and `test(...)`: the callees name the context; an argument list or \"any arrow function\" "
        "would flag a `console.log` in any callback.", "javascript",
        ["it('loads', () => {\n  console.log(page);\n});",
         "test('saves', async () => {\n  const r = await save();\n  console.log(r);\n});"],
        ["function render(page) {\n  console.log(page);\n}",
         "test('saves', async () => {\n  const r = await save();\n  expect(r).toBe(1);\n});"],
        ("^(it|test)$",),
        ["it('x', function () {\n  if (a) {\n    console.log(a);\n  }\n});"],
        ["items.forEach((x) => {\n  console.log(x);\n});"], lacks=("arguments",)),
    "a Go call shown in valid code too is read as a call": Case(
        "`time.Sleep(...)` alone reads as a type conversion in Go: the code also shown in a valid example gets the "
        "context/selector form too, so the rule is the call in a test function, not the package name `time`.", "go",
        ["func TestLogin(t *testing.T) {\n\ttime.Sleep(time.Second)\n}",
         "func TestSave(t *testing.T) {\n\tsave()\n\ttime.Sleep(10 * time.Millisecond)\n}"],
        ["func retry() {\n\ttime.Sleep(time.Second)\n}",
         "func TestSave(t *testing.T) {\n\tsave()\n\tclock.Advance(10)\n}"],
        ("time.Sleep(", "selector: call_expression"),
        ["func TestX(t *testing.T) {\n\tfor i := 0; i < 3; i++ {\n\t\ttime.Sleep(d)\n\t}\n}"],
        ["func poll() {\n\ttime.Sleep(d)\n}"]),
    "a context marked by a name deep in its header": Case(
        "`TestCase` is the superclass in both, once qualified (`unittest.TestCase`): the name in the superclass list "
        "marks the context, wherever it sits there.", "python",
        ["class LoginCase(TestCase):\n    def test_ok(self):\n        time.sleep(1)",
         "class ApiCase(unittest.TestCase):\n    def setUp(self):\n        time.sleep(0.1)"],
        ["class Poller(Base):\n    def run(self):\n        time.sleep(1)",
         "class ApiCase(unittest.TestCase):\n    def setUp(self):\n        self.api = Api()"],
        ("field: superclasses", "^TestCase$"),
        ["class Slow(django.test.TestCase):\n    def test_a(self):\n        time.sleep(5)"],
        ["class Worker(Thread):\n    def run(self):\n        time.sleep(5)"]),
    "classes by the end of their names": Case(
        "Nothing in the classes' headers marks them but their names' last word part (`Test`).", "java",
        ["class LoginTest {\n  void a() {\n    Thread.sleep(5);\n  }\n}",
         "class ApiTest {\n  @Before\n  public void setUp() {\n    Thread.sleep(100);\n  }\n}"],
        ["class Poller {\n  void run() {\n    Thread.sleep(5);\n  }\n}",
         "class ApiTest {\n  @Before\n  public void setUp() {\n    api = new Api();\n  }\n}"],
        ("regex: Test$",),
        ["class UserServiceTest {\n  void b() {\n    if (x) {\n      Thread.sleep(1);\n    }\n  }\n}"],
        ["class Retry {\n  void again() {\n    Thread.sleep(1);\n  }\n}",
         "class Contest {\n  void c() {\n    Thread.sleep(1);\n  }\n}"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_context_named_as_an_author_would(ws: Workspace, engine: Engine, name: str) -> None:
    case = CASES[name]
    yaml = _top(ws, engine, case.language, case.invalid, case.valid)
    assert all(h in yaml for h in case.holds) and not any(x in yaml for x in case.lacks), (case.why, yaml)
    _holds(ws, engine, yaml, case.bad, case.good)
