"""suggest_rule shapes an ast-grep author uses (issue 29), one case per shape: each top candidate is judged by
plain ast-grep on code it never saw. Real ast-grep, real files in a temp workspace."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from sgtools.core import yamlio
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest.service import suggest_rule
from tests import intent_catalogue as cat

# These tests are about the generaliser's own rules: no known rule is offered (conftest.ws, the marker).
pytestmark = pytest.mark.generaliser


@dataclass(frozen=True)
class Case:
    """A request (2 + 2 examples), code the examples do not show that its top candidate must flag (`bad`) and let
    through (`good`), and what the candidate itself must say (`check`), if anything."""

    why: str
    language: str
    invalid: list[str]
    valid: list[str]
    bad: list[str]
    good: list[str]
    check: Callable[[dict[str, Any]], bool] | None = None
    request: str | None = None  # the developer's words, where the case is about them


CASES = {
    "a class a pattern makes is also that class written with its package": Case(
        "`new StringTokenizer(...)`: also `new java.util.StringTokenizer(...)`, which a pattern holding the bare name "
        "does not match; not another class whose name ends the same",
        "java",
        ['StringTokenizer st = new StringTokenizer(line, ",");',
         "Iterator<Object> it = Collections.list(new StringTokenizer(s)).iterator();"],
        ['String[] parts = line.split(",");', 'Iterator<String> it = Arrays.asList(s.split("\\\\s+")).iterator();'],
        ['var t = new java.util.StringTokenizer(header, ";");', "return new StringTokenizer(text).countTokens();"],
        ["var t = new MyStringTokenizer(header);", 'String[] p = header.split(";");'],
        request="split strings with String.split, not the legacy tokenizer class",
    ),
    "a C++ member call through an object is the same call through a pointer": Case(
        "`t.detach()`: also `pool_->detach()`, the same member reached through a pointer, which a pattern holding "
        "`.` does not match; not a free function or another member of that name's stem",
        "cpp",
        ["void spawn() {\n  std::thread t(run);\n  t.detach();\n}", "void Server::start() {\n  worker_.detach();\n}"],
        ["void spawn() {\n  std::thread t(run);\n  t.join();\n}", "void Server::start() {\n  worker_.join();\n}"],
        ["void Pool::stop() {\n  current_->detach();\n}", "void go(Job& j) {\n  j.thread.detach();\n}"],
        ["void Pool::stop() {\n  current_->join();\n}", "void go() {\n  detach(handle);\n}"],
        request="don't detach threads, join them",
    ),
    "a Python function called through its module is that function under a longer package path": Case(
        "`etree.parse(path)` and `etree.fromstring(data)`: the calls by their names with any dotted qualifier "
        "before the module (`lxml.etree.parse`, how other files import it), not only as the examples write it.",
        "python",
        ["tree = etree.parse(path)", "root = etree.fromstring(data)"],
        ["tree = defusedxml.lxml.parse(path)", "root = defusedxml.lxml.fromstring(data)"],
        ["doc = lxml.etree.parse(io.BytesIO(body))", "def load(s):\n    return etree.fromstring(s).getroot()"],
        ["doc = parser.parse(f)", "root = defusedxml.lxml.fromstring(s)", "data = json.loads(body)"],
    ),
    "a bare name by kind and regex is a part of an any of each example's rule": Case(
        "`binding.irb` in one invalid example and a bare `breakpoint` call inside a method in the other: `any` of "
        "`binding.irb` and the name `breakpoint` (`identifier` `^breakpoint$`, no plain pattern of it verified), "
        "wherever either stands; there was no rule.",
        "ruby",
        ["binding.irb", "def create\n  breakpoint\n  save!\nend"],
        ["logger.info(params)", "def create\n  save!\nend"],
        ["binding.irb if debug?", "items.each do |i|\n  breakpoint if i.nil?\nend"],
        ["binding.local_variable_get(:x)", "def breakpoints\n  @bps\nend", "breakpoint_count = 1"],
    ),
    "a call by its name in an any of each example's rule, whatever its receiver holds": Case(
        "`\"Admin::#{params.kind}\".constantize` and `eval(input.code)`: `any` of the calls by name, `constantize` "
        "on any receiver (a string receiver is a value, not which API; and the `params.kind` it holds, which a "
        "valid example also has, is no part of a call said by its name) and a bare `eval`; there was no rule.",
        "ruby",
        ["def klass\n  \"Admin::#{params.kind}\".constantize\nend", "store(eval(input.code))"],
        ["def klass\n  HANDLERS.fetch(params.kind)\nend", "store(JSON.parse(input.code))"],
        ["job = \"#{name.camelize}Job\".constantize", "model = kind.constantize", "eval code"],
        ["Foo.eval(s)", "name.camelize", "evaluated = 1"],
    ),
    "a statement its keyword opens is said by its kind in an any of each example's rule": Case(
        "`die(...)` in one invalid example and `exit(1);` in the other share no construct: `any` of `die($A)` and "
        "`kind: exit_statement`, the statement the `exit` keyword opens, so `exit;` and `exit();` too; the "
        "literal `exit(1)` was no general part, and there was no rule.",
        "php",
        ["<?php\nif (!$ok) {\n    die('bad input');\n}", "<?php\nrun();\nexit(2);"],
        ["<?php\nif (!$ok) {\n    throw new InvalidArgumentException('bad input');\n}", "<?php\nrun();\nreturn 2;"],
        ["<?php\nfunction quit() {\n    exit;\n}", "<?php\nexit();", "<?php\n$f or die($msg);"],
        ["<?php\n$this->exit(0);", "<?php\n$exitCode = 2;", "<?php\nreturn 0;"],
    ),
    "a format verb passed at whatever position, in calls one letter apart": Case(
        "`printf` and `fprintf` passing `%n` in their format, the first argument of one and the second of the "
        "other, beside the same calls with `%p`: the calls of the family one letter in front tells apart "
        "(`^\\w?printf$`, so `sprintf` too) with a string holding `%n` at any position; not `snprintf`, nor a "
        "format without `%n`.",
        "c",
        ["void f(const char *s) {\n    int n;\n    printf(\"%s%n\", s, &n);\n}",
         "void g(FILE *out) {\n    int k;\n    fprintf(out, \"%n\", &k);\n}"],
        ["void f(const char *s) {\n    int n;\n    printf(\"%s%p\", s, &n);\n}",
         "void g(FILE *out) {\n    int k;\n    fprintf(out, \"%p\", &k);\n}"],
        ["void h(char *buf, int x, int *n) {\n    sprintf(buf, \"%d%n\", x, n);\n}",
         "int main(void) {\n    int n;\n    printf(\"a%nb\", &n);\n    return n;\n}"],
        ["void h(char *buf, int x) {\n    snprintf(buf, 8, \"%d\", x);\n}",
         "int main(void) {\n    printf(\"%d\\n\", 1);\n    return 0;\n}",
         "void p(FILE *f) {\n    fputs(\"%n\", f);\n}"],
    ),
    "types of one kind, a different one in each example, by their names and the request's list": Case(
        "`Integer` in one invalid example and `Long` in the other, beside `int` and `long`: the types by name "
        "(`type_identifier` `^(Integer|Long|Double)$`, the request's whole list), wherever they are written, a "
        "parameter too; not `Integer.parseInt`, nor a primitive.",
        "java",
        ["class A {\n  Integer total = 0;\n}", "class B {\n  Long size() {\n    return 1L;\n  }\n}"],
        ["class A {\n  int total = 0;\n}", "class B {\n  long size() {\n    return 1L;\n  }\n}"],
        ["class C {\n  void f(Double d) {}\n}", "class D {\n  void g() {\n    Integer x = y;\n  }\n}"],
        ["class C {\n  void f(double d) {}\n}", "class D {\n  int n = Integer.parseInt(s);\n}",
         "class E {\n  String s = \"\";\n}"],
        request="use int, long and double, not Integer, Long or Double",
    ),
    "a kind both sides write, told apart by the token it opens with": Case(
        "PHP's `array(...)` and `[...]` are both an `array_creation_expression`: the one opening with `array` "
        "(`regex: ^array\\b`) is flagged wherever it stands, a nested one or one in a `return`, which no "
        "pattern of the assignments or calls shown says; a short array and a function named `array_keys` stay fine.",
        "php",
        ["<?php\n$ids = array(1, 2, 3);", "<?php\nconfigure(array('debug' => true));"],
        ["<?php\n$ids = [1, 2, 3];", "<?php\nconfigure(['debug' => true]);"],
        ["<?php\nfunction none() {\n    return array();\n}", "<?php\n$m = [array('a'), 2];"],
        ["<?php\nfunction none() {\n    return [];\n}", "<?php\n$k = array_keys($m);", "<?php\n$array = 1;"],
        lambda doc: doc["rule"].get("kind") == "array_creation_expression",
    ),
    "the new of one class name is said by its name, whatever its arguments": Case(
        "`new Object()` and `new Object(defaults)`: the `new` of that name by kind and name (`new_expression`, "
        "`constructor` `^Object$`) also flags `new Object` written without parentheses, which the pattern "
        "`new Object($$$ARGS)`, ranked first, let through.",
        "javascript",
        ["const o = new Object();", "function copy(defaults) {\n  return new Object(defaults);\n}"],
        ["const o = {};", "function copy(defaults) {\n  return { ...defaults };\n}"],
        ["const bag = new Object;", "items.push(new Object(null));"],
        ["const o = Object.create(null);", "const m = new Map();"],
    ),
    "a type declared and constructed is the type wherever it stands": Case(
        "`SimpleDateFormat` as the declared type and in the `new` of both invalid examples: the type by name "
        "(`type_identifier` `^SimpleDateFormat$`) also flags a field and a parameter of that type; `new "
        "SimpleDateFormat($$$ARGS)` ranked first and let them through.",
        "java",
        ["SimpleDateFormat fmt = new SimpleDateFormat(\"yyyy-MM-dd\");",
         "class Log {\n  String stamp(Date d) {\n    SimpleDateFormat f = new SimpleDateFormat(\"HH:mm\");\n"
         "    return f.format(d);\n  }\n}"],
        ["DateTimeFormatter fmt = DateTimeFormatter.ofPattern(\"yyyy-MM-dd\");",
         "class Log {\n  String stamp(LocalTime t) {\n"
         "    DateTimeFormatter f = DateTimeFormatter.ofPattern(\"HH:mm\");\n    return f.format(t);\n  }\n}"],
        ["class A {\n  private static final SimpleDateFormat ISO = build();\n}",
         "class B {\n  String f(SimpleDateFormat fmt, Date d) {\n    return fmt.format(d);\n  }\n}"],
        ["class C {\n  private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_DATE;\n}",
         "String s = \"SimpleDateFormat\";"],
    ),
    "names the valid examples write as another kind": Case(
        "`@Deprecated` and `@Beta` bare, beside the same names with arguments: the kind is the point, with the "
        "names (`marker_annotation` named `^(\\w+(\\.|::))*(Beta|Deprecated)$`, qualified too), not `@Override` "
        "outside an annotated modifier list, which ranked first and flagged every bare `@Override`.",
        "java",
        ["class A {\n  @Deprecated\n  @Override\n  void f() {}\n}",
         "class B {\n  @Beta\n  @Override\n  public void g() {}\n}"],
        ["class A {\n  @Deprecated(since = \"2.1\")\n  @Override\n  void f() {}\n}",
         "class B {\n  @Beta(\"until 3.0\")\n  @Override\n  public void g() {}\n}"],
        ["class C {\n  @java.lang.Deprecated\n  void h() {}\n}", "@Beta\nclass D {}"],
        ["class E {\n  @Override\n  void h() {}\n}", "class F {\n  @Beta(\"later\")\n  void k() {}\n}"],
    ),
    "a keyword alone in a context is where the code sits, not what it is": Case(
        "Swift's `as!` in two `let` bindings: the cast (`as_expression` has `as_operator` `^as!$`), not the `let` "
        "keyword inside a `property_declaration` holding an `as!`, which ranked first (as a context told by a "
        "child) and let every other force cast through.",
        "swift",
        ["let a = obj as! Foo", "let b = items[0] as! Bar"],
        ["let a = obj as? Foo", "let b = items[0] as? Bar"],
        ["func g() -> Foo {\n    return x as! Foo\n}", "f(y as! Baz)"],
        ["let z = w as? Foo", "let q = 1"],
    ),
    "a receiver the valid examples swap for one other is the point": Case(
        "`ioutil.ReadDir` and `ioutil.WriteFile` beside the same members on `os`: every access on `ioutil` "
        "(`selector_expression` has `^ioutil$`), not the two names shown (`^(ioutil\\.ReadDir|...)$` let "
        "`ioutil.TempFile` and `ioutil.Discard` through). Where each valid example has its own receiver "
        "(`client.Get` beside `http.Get`), the names stay the point.",
        "go",
        ["b, err := ioutil.ReadDir(d)", "if err := ioutil.WriteFile(p, b, 0o600); err != nil {\n\treturn err\n}"],
        ["b, err := os.ReadDir(d)", "if err := os.WriteFile(p, b, 0o600); err != nil {\n\treturn err\n}"],
        ["f, _ := ioutil.TempFile(\"\", \"x\")", "w := ioutil.Discard"],
        ["f, _ := os.CreateTemp(\"\", \"x\")", "w := io.Discard"],
    ),
    "what a generic type holds is a value": Case(
        "`Vector<String>` in both invalid examples: at the loosest level the type arguments are `$$$` "
        "(`Vector<$$$ARGS>`), as call arguments are; kept literal, `Vector<Integer>` was let through.",
        "java",
        ["class A {\n  private final Vector<String> names = load();\n}", "class B {\n  Vector<String> rows;\n}"],
        ["class A {\n  private final List<String> names = load();\n}", "class B {\n  List<String> rows;\n}"],
        ["class C {\n  Vector<Integer> ids;\n}", "class D {\n  void f(Vector<Row> r) {}\n}"],
        ["class E {\n  List<Integer> ids;\n}", "class F {\n  Map<String, Vec> m;\n}"],
    ),
    "a modifier of its own is said wherever it stands": Case(
        "TypeScript's `protected` on two fields: `kind: accessibility_modifier`, `regex: ^protected$` also flags "
        "it on a method and a constructor parameter. Said on the field (`public_field_definition` has it), it let "
        "both through.",
        "typescript",
        ["class A {\n  protected x = 1;\n}", "class B {\n  protected name: string = \"\";\n}"],
        ["class A {\n  x = 1;\n}", "class B {\n  readonly name: string = \"\";\n}"],
        ["class C {\n  protected run(): void {}\n}", "class D {\n  constructor(protected svc: Svc) {}\n}"],
        ["class E {\n  public run(): void {}\n}", "const protectedMode = true;"],
    ),
    "comments by their opener": Case(
        "Block comments where the valid examples write the same words as `//` comments: `kind: comment`, "
        "`regex: ^/\\\\*` (the opener every invalid comment has and no valid one). There was no rule: no word "
        "told them apart.",
        "javascript",
        ["/* start */\nrun();", "x = 1; /* one */"],
        ["// start\nrun();", "x = 1; // one"],
        ["/** doc */\nfunction f() {}", "f(/* inline */ 2);"],
        ["// a /* b */\ng();", "const s = \"/* not */\";"],
    ),
    "a marker with nothing after it": Case(
        "`# TODO` written bare, beside `# TODO: handle None` and `# TODO remove after 2.0`: a comment holding the "
        "marker and nothing after it. There was no rule: the valid comments qualify it with `:` in one and a "
        "space in the other.",
        "python",
        ["x = 1  # TODO", "# TODO\ny = 2"],
        ["x = 1  # TODO: handle None", "# TODO remove after 2.0\ny = 2"],
        ["#TODO\nz = 3", "def f():\n    pass  # TODO"],
        ["# TODO(bob): x\nw = 1", "# see TODO.md\nv = 1"],
    ),
    "a doc tag with nothing after it, wherever it stands in the comment": Case(
        "Javadoc's `@return` written bare (alone on its line, before `*/` or before the next tag), beside `@return` "
        "saying what it returns: a comment holding the tag with nothing after it. Without comments._bare_tag the top "
        "candidate was `any` of each invalid comment's own text, which copies its prose (`Counts rows`).",
        "java",
        ["/**\n * Counts rows.\n * @return\n */\nint count();", "/** @return */\nString name();"],
        ["/**\n * Counts rows.\n * @return the number of rows\n */\nint count();",
         "/** @return the display name */\nString name();"],
        ["/**\n * Loads a user.\n * @param id the id\n * @return\n * @throws IOException when offline\n */\n"
         "User load(long id) throws IOException;", "/** @return*/\nint size();"],
        ["/** @return {@code true} when empty */\nboolean isEmpty();", "/** Returns the size. */\nint size();",
         "/**\n * @return the user, never null\n * @throws IOException when offline\n */\nUser load();"],
    ),
    "a directive by the words it opens with": Case(
        "`# pylint: skip-file`: a comment opening with that phrase, not one holding the word `skip-file` anywhere "
        "(prose about it, a longer name).",
        "python",
        ["# pylint: skip-file\nimport os", "\"\"\"Doc.\"\"\"\n# pylint: skip-file\nx = 1"],
        ["import os", "# pylint: disable=C0103\nx = 1"],
        ["#pylint:skip-file\nimport sys"],
        ["# we never write pylint: skip-file here\nimport re", "# pylint: disable=skip-file-check\ny = 1"],
    ),
    "a construct as a direct part of a node, not anywhere in it": Case(
        "A lambda as an assignment's value (not one passed as a keyword argument): `inside: {kind: assignment, "
        "field: right}` without `stopBy`. With `stopBy: end` it also flagged a lambda in a dict or a call that is "
        "assigned.",
        "python",
        ["handler = lambda e: log(e)", "cmp = lambda a, b: a - b"],
        ["def handler(e):\n    log(e)", "items.sort(key=lambda a: a.k)"],
        ["class A:\n    f = lambda s: 1", "def g():\n    h = lambda: 2\n    return h"],
        ["cfg = {\"f\": lambda: 1}", "r = list(map(lambda v: v + 1, xs))"],
    ),
    "one context name is that name whole": Case(
        "`System.gc()` in methods all named `reset`: the context is a method named `^reset$`, not one whose name "
        "starts with `reset` (`resetAll` was flagged).",
        "java",
        ["class A {\n  void reset() {\n    System.gc();\n  }\n}",
         "class B {\n  public void reset() {\n    count = 0;\n    System.gc();\n  }\n}"],
        ["class A {\n  void init() {\n    System.gc();\n  }\n}",
         "class B {\n  public void reset() {\n    count = 0;\n  }\n}"],
        ["class C {\n  private void reset() {\n    System.gc();\n  }\n}"],
        ["class D {\n  void resetAll() {\n    System.gc();\n  }\n}",
         "class E {\n  void go() {\n    System.gc();\n  }\n}"],
    ),
    "a body whose statements all differ is any number of statements": Case(
        "Go `init` functions whose one statement differs: the body is `$$$BODY`, not one `$A`, which matched only "
        "bodies of exactly one statement (an empty `init` and a longer one were let through).",
        "go",
        ["func init() {\n\tsetup()\n}", "func init() {\n\tm[\"a\"] = 1\n}"],
        ["func setup() {\n\tinit2()\n}", "func main() {\n\tm[\"a\"] = 1\n}"],
        ["func init() {}", "func init() {\n\ta()\n\tb()\n}"],
        ["func initialize() {}", "func (s *S) run() {\n\ta()\n}"],
    ),
    "two calls named, not the functions around them": Case(
        "`alert(...)` in one function, `window.confirm(...)` in another, and the valid examples the same functions "
        "without them: `any` of the two calls, not the whole-function pattern `function $A($$$PARAMS) {...}` "
        "(which ranked first and flags any function of that shape).",
        "javascript",
        ["function f() {\n  alert(\"x\");\n  g();\n}", "function h(m) {\n  window.confirm(m);\n  return m;\n}"],
        ["function f() {\n  g();\n}", "function h(m) {\n  return m;\n}"],
        ["alert(1);", "if (x) window.confirm(\"y\");"],
        ["function k() {\n  a();\n  b();\n}", "notify.alert(x);"],
        lambda doc: "any" in doc["rule"],
    ),
    "code the valid examples await is fine inside an await": Case(
        "`res.json()` awaited in the valid examples, bare in the invalid ones (in plain functions): `not: inside` "
        "an `await` says it wherever the call is. (`inside` a function not marked `async` ranked first, which let "
        "through the same call outside any function.)",
        "typescript",
        ["function f(r: Response) {\n  const d = r.json();\n}", "function g(res: Response) {\n  return res.json();\n}"],
        ["async function f(r: Response) {\n  const d = await r.json();\n}",
         "async function g(res: Response) {\n  return await res.json();\n}"],
        ["const x = resp.json();", "class A {\n  m(r: Response) {\n    return r.json();\n  }\n}"],
        ["const x = await resp.json();", "const s = JSON.stringify(x);"],
    ),
    "a string argument told apart by a token it holds": Case(
        "`%s` placeholders in SQL passed to `execute`, beside the same calls with `?`: the string at position 1 "
        "holds `%s` in every invalid call and in no valid one (`has: {nthChild: 1, regex: %s}`). (The best was a "
        "literal `not` of the valid calls.)",
        "python",
        ["cur.execute(\"SELECT a FROM t WHERE id = %s\", (i,))",
         "cur.execute(\"DELETE FROM u WHERE n = %s AND k = 1\", (n,))"],
        ["cur.execute(\"SELECT a FROM t WHERE id = ?\", (i,))",
         "cur.execute(\"DELETE FROM u WHERE n = ? AND k = 1\", (n,))"],
        ["cur.execute(\"UPDATE t SET a = %s\", (v,))"],
        ["cur.execute(\"UPDATE t SET a = ?\", (v,))", "cur.execute(\"SELECT 1\")"],
    ),
    "two things named, each said on its own": Case(
        "`document.write(...)` and `new Function(...)` share no construct: the rule is `any` of each example's own "
        "call, each in its most general form. (The best was `const $A = $B` with a literal `not` of the valid "
        "examples, which flagged any other declaration and none of these calls alone.)",
        "javascript",
        ["const n = document.write(html);", "const f = new Function(src);"],
        ["const n = el.append(html);", "const f = compile(src);"],
        ["document.write(\"<p>\" + x);", "return new Function(\"a\", \"return a\")(1);"],
        ["const y = build(1);", "el.write(x);", "const g = new FunctionCall();"],
        lambda doc: "any" in doc["rule"],
    ),
    "an annotation among other modifiers marks a context": Case(
        "`Thread.sleep` inside `@Test` methods: Java's `modifiers` node holds `@Test public` too, so the annotation "
        "is matched among other modifiers (`(^|\\s)@(\\w+\\.)*Test\\b`), not as the whole list. (`^@Test$` "
        "let `@Test public void` through.)",
        "java",
        ["class ATest { @Test void t() throws Exception { Thread.sleep(100); check(); } }",
         "class BTest { @Test void u() { Thread.sleep(5000); } }"],
        ["class ATest { @Test void t() { await().until(done); } }", "class B { void run() { Thread.sleep(100); } }"],
        ["class CTest { @Test public void v() throws Exception { Thread.sleep(10); } }",
         "class DTest { @org.junit.Test void w() { Thread.sleep(1); } }"],
        ["class C { public void poll() { Thread.sleep(50); } }",
         "class DTest { @Test void w() { clock.advance(1); } }"],
    ),
    "a kind said with the operator written": Case(
        "Kotlin's `postfix_expression` is both `x!!` and `i++`: a kind alone whose every node ends (or starts) with "
        "the same operator token is said with it (`regex: !!$`). (The bare kind flagged every `i++`.)",
        "kotlin",
        ["val n = user!!.name", "val f = list.first()!!"],
        ["val n = user?.name", "val f = list.firstOrNull() ?: 0"],
        ["fun g() = x!!", "call(a!!, b)"],
        ["fun h() { i++ }", "val z = !flag", "fun k() { n-- }"],
    ),
    "a kind said with the construct every node of it holds in one field": Case(
        "`not x is None` twice, beside `x is not None`: a `not_operator` whose argument is a `comparison_operator` "
        "(`has: {field: argument, kind: comparison_operator}`), not every `not` (the bare kind flagged `not ready` "
        "and `not (a or b)`).",
        "python",
        ["if not user is None:\n    go(user)", "ok = not cfg.value is None"],
        ["if user is not None:\n    go(user)", "ok = cfg.value is not None"],
        ["while not node is None:\n    node = node.next", "def f(a):\n    return not a.b() is None"],
        ["if not ready:\n    wait()", "x = not (a or b)", "y = a is not None"],
        lambda doc: "comparison_operator" in str(doc["rule"]),
    ),
    "an operator passed as an argument is part of the call that takes it": Case(
        "`std::async(&Worker::run, this)` twice, beside a thread pool: the call by its name, not the `&` every "
        "invalid example happens to pass (`pointer_expression` with `&`, which ranked first as a telling child and "
        "flagged every address taken), as a kind always passed as an argument already ranks.",
        "cpp",
        ["auto f = std::async(&Worker::run, this, std::placeholders::_1);",
         "void Pool::g(Job* job) {\n  futures_.push_back(std::async(&Job::go, job));\n}"],
        ["auto f = pool.submit([this](auto n) { run(n); });",
         "void Pool::g(Job* job) {\n  futures_.push_back(pool.submit([job] { job->go(); }));\n}"],
        ["auto h = std::async(&Cache::load, cache);", "auto k(A* a) { return std::async(&A::b, a); }"],
        ["int *p = &x;", "void u() { use(&value); }"],
    ),
    "a class's method is also called with its namespace": Case(
        "`Thread.Sleep(...)` in C#: the call by its name, which admits a namespace in front "
        "(`^(\\w+\\.)*(?:Thread\\.Sleep)$`), so `System.Threading.Thread.Sleep(5)` is flagged too; the pattern "
        "`Thread.Sleep($$$ARGS)` let it through. A method of a value (`sleeper.Sleep`) is not that call.",
        "csharp",
        ["class A {\n  void F() { Thread.Sleep(100); }\n}",
         "class B {\n  async Task G(int ms) {\n    Thread.Sleep(ms);\n    await H();\n  }\n}"],
        ["class A {\n  void F() { Thread.SpinWait(100); }\n}",
         "class B {\n  async Task G(int ms) {\n    await Task.Delay(ms);\n    await H();\n  }\n}"],
        ["class C {\n  void K() { System.Threading.Thread.Sleep(5); }\n}",
         "class D {\n  void L() { Thread.Sleep(TimeSpan.FromSeconds(1)); }\n}"],
        ["class E {\n  void M() { Thread.SpinWait(1); }\n}", "class F {\n  void N() { sleeper.Sleep(1); }\n}"],
    ),
    "a class named as a receiver is also written with its package": Case(
        "`Thread.sleep(...)` in Java: the receiver `Thread` admits a package in front (`^(\\w+\\.)*Thread$`), so "
        "`java.lang.Thread.sleep(5)` is flagged too.",
        "java",
        ["class A {\n  void f() throws Exception { Thread.sleep(100); }\n}",
         "class B {\n  void g(long ms) throws Exception {\n    Thread.sleep(ms);\n    h();\n  }\n}"],
        ["class A {\n  void f() { Thread.yield(); }\n}",
         "class B {\n  void g(long ms) {\n    clock.advance(ms);\n    h();\n  }\n}"],
        ["class C {\n  void k() throws Exception { java.lang.Thread.sleep(5); }\n}",
         "class D {\n  void l() throws Exception { Thread.sleep(1000L); }\n}"],
        ["class E {\n  void m() { Thread.yield(); }\n}", "class F {\n  void n() { sleeper.sleep(1); }\n}"],
    ),
    "a telling child said with the construct of its own that holds it": Case(
        "`catch (x: any)` twice beside `unknown` and an untyped catch: a `catch_clause` with `: any`, not a "
        "`type_annotation` with `any` anywhere (a building block: it ranked first as the smaller node and flagged "
        "every `: any` parameter).",
        "typescript",
        ["try { a(); } catch (x: any) { b(x); }",
         "try {\n  await c();\n} catch (problem: any) {\n  report(problem.code);\n}"],
        ["try { a(); } catch (x: unknown) { b(x); }",
         "try {\n  await c();\n} catch (problem) {\n  report(problem);\n}"],
        ["try { q(); } catch (z: any) {}",
         "function f() {\n  try { return g(); } catch (err: any) { return null; }\n}"],
        ["const h = (v: any) => v;", "function k(p: any) { return p; }"],
    ),
    "log levels on one logger are the logger's calls": Case(
        "`console.warn` and `console.error` where a logger is wanted: every level on `console` "
        "(`^console\\.(trace|debug|info|...|log)$`), as print and write families are, not the two names shown.",
        "javascript",
        ["function save(doc) {\n  console.warn(\"saving\", doc.id);\n}",
         "try { run(); } catch (e) { console.error(e); }"],
        ["function save(doc) {\n  logger.warn(\"saving\", doc.id);\n}",
         "try { run(); } catch (e) { logger.error(e); }"],
        ["console.info(\"ready\");", "if (x) console.debug(x);", "console.log(value);"],
        ["logger.info(\"ready\");", "console.table(rows);", "log.debug(x);"],
    ),
    "a marker word in capitals is matched in any case": Case(
        "`# FIXME` twice: comments holding the marker in any case (`(?i)\\bFIXME\\b`), as people also write "
        "`fixme` and `Fixme`; the case-sensitive word let those through.",
        "python",
        ["x = compute()  # FIXME: wrong for negatives", "# FIXME handle timeouts\nretry()"],
        ["x = compute()  # works for negatives too", "# handle timeouts\nretry()"],
        ["# fixme later\ny = 2", "z = 1  # Fixme: rounding"],
        ["# fix me never\nw = 3", "s = \"FIXME\""],
    ),
    "a kind said with the keywords it opens with": Case(
        "`#nullable disable` twice: a `preproc_nullable` opening with `#nullable disable` (`#nullable\\s+disable\\b`), "
        "not every `#nullable` directive (`enable`, `restore`); words the kind's name says (`extern crate`) are "
        "not repeated.",
        "csharp",
        ["#nullable disable\nclass A {}", "class B {\n#nullable disable\n  string s;\n#nullable restore\n}"],
        ["class A {}", "class B {\n  string? s;\n}"],
        ["#nullable  disable\nclass C {}", "namespace N {\n#nullable disable\n  class D {}\n}"],
        ["#nullable enable\nclass E {}", "#nullable restore\nclass F {}"],
    ),
    "a child that is one qualified name is said whole where it stands": Case(
        "`sync.Mutex` as a struct field's type twice: a `field_declaration` whose child is `sync.Mutex`, before "
        "one holding `sync` and `Mutex` anywhere (which flagged a field of function type taking a mutex).",
        "go",
        ["type S struct {\n\tmu sync.Mutex\n\tn  int\n}", "type T struct {\n\tsync.Mutex\n\tm map[string]int\n}"],
        ["type S struct {\n\tmu sync.RWMutex\n\tn  int\n}", "func lock(t *T, mu sync.Mutex) {\n\tt.n++\n}"],
        ["type C struct {\n\tguard sync.Mutex // protects c\n}", "var g = struct {\n\ta, b sync.Mutex\n}{}"],
        ["type U struct {\n\tfn func(m sync.Mutex) error\n}", "type W struct {\n\tmu sync.RWMutex\n}"],
    ),
    "a value name every invalid example uses is a fact before a whole function": Case(
        "`arguments` in two functions that otherwise differ: the name (`kind: identifier`, `regex: ^arguments$`), "
        "ranked after every other fact but before `function $A() {$$$ITEMS}`, which ranked first and flagged "
        "every function without parameters.",
        "javascript",
        ["function total() {\n  let t = 0;\n  for (const v of arguments) t += v;\n  return t;\n}",
         "function warn() {\n  console.warn.apply(console, arguments);\n}"],
        ["function total(...vs) {\n  let t = 0;\n  for (const v of vs) t += v;\n  return t;\n}",
         "function warn(...xs) {\n  console.warn(...xs);\n}"],
        ["const first = arguments[0];", "const f = function () { return arguments.length; };"],
        ["function now() {\n  return Date.now();\n}", "const argumentsSeen = 0;"],
    ),
    "names sharing a stem at a word part are the family": Case(
        "`find_all_by_name` and `find_all_by_tag`: every call whose name starts `find_all_by_` (`^find_all_by_`), "
        "ranked as a family, before the argument both pass (`params[...]` not inside a `pair`, which ranked first).",
        "ruby",
        ["users = User.find_all_by_name(params[:q])", "@posts = Post.find_all_by_tag(params[:t])"],
        ["users = User.where(name: params[:q])", "@posts = Post.where(tag: params[:t])"],
        ["Team.find_all_by_owner(me)", "def x\n  find_all_by_state(\"open\")\nend"],
        ["Team.where(owner: me)", "find_all(x)"],
    ),
    "a keyword shared by code of different shapes stays": Case(
        "`async (c) => ...` and `async function () {...}` differ in kind but both start with `async`: keywords "
        "stay literal, so the hole keeps it (`regex: ^async`) rather than flagging every `.on(...)`. (The bare "
        "`$A.on($$$ARGS)` ranked first: the valid examples have no `.on` call to tell it apart.)",
        "javascript",
        ["emitter.on(\"data\", async (chunk) => {\n  await store(chunk);\n});",
         "stream.on(\"end\", async function () {\n  await close();\n});"],
        ["for await (const chunk of stream) {\n  await store(chunk);\n}", "await once(stream, \"end\");"],
        ["bus.on(\"msg\", async m => handle(m));", "s.on(\"x\", async function (e) { await g(e); });"],
        ["bus.on(\"msg\", (m) => handle(m));", "s.on(\"x\", function (e) { g(e); });"],
    ),
    "a keyword argument said with the call that takes it": Case(
        "`update(touch: false)` and `update!(touch: false)`: Ruby's bang variant is the same method (`^update!?$`), "
        "and the pair is said with that call (`has` the pair), not alone, which flags `touch: false` passed to any "
        "call. (The pair alone ranked first.)",
        "ruby",
        ["post.update(title: t, touch: false)", "post.update!(touch: false)"],
        ["post.update(title: t)", "post.update!(body: b)"],
        ["@c.update(touch: false)", "x.update!(a: 1, touch: false)"],
        ["x.save(touch: false)", "x.update(a: 1)"],
        lambda doc: "update!?" in str(doc["rule"]),
    ),
    "a cpp template call is a pattern not a qualifier nearby": Case(
        "`reinterpret_cast<T*>(p)` is a call whose callee is a template: a pattern keeps its name. (Template kinds "
        "were read as opaque literals, so no pattern kept the name and a `const` nearby ranked first.)",
        "cpp",
        [
            "void f(const Buf *b) {\n  auto p = reinterpret_cast<char*>(b);\n}",
            "void g(const Node &n) {\n  reinterpret_cast<Obj&>(n).touch();\n}",
        ],
        [
            "void f(Buf *b) {\n  auto p = static_cast<char*>(b);\n}",
            "void g(Node &n) {\n  n.touch();\n}",
        ],
        [
            "void h(A *a) {\n  use(reinterpret_cast<B*>(a));\n}",
            "int k(const int x) {\n  return *reinterpret_cast<const int*>(&x);\n}",
        ],
        [
            "void h(const A *a) {\n  use(static_cast<const B*>(a));\n}",
        ],
        lambda doc: "reinterpret_cast<" in str(doc["rule"]),
    ),
    "only the constraints the valid examples need": Case(
        "`setInterval($A, $B)`: the valid examples pass a function as A, so A is constrained, as the opening quote of "
        "a string (a template string is one too); B, the delay, is not, and may be absent.",
        "javascript",
        [
            "setInterval(\"poll()\", 500);",
            "setInterval('step(' + i + ')', d);",
        ],
        [
            "setInterval(poll, 500);",
            "setInterval(() => step(i), d);",
        ],
        [
            "setInterval(`tick(${n})`, 10);",
            "setInterval(\"refresh()\");",
            "const h = setInterval('a()', t);",
            "setInterval(\"x\" + y, 1, 2);",
        ],
        [
            "setInterval(fn);",
            "setInterval(cb, '100');",
            "setInterval(function () { a(); }, 0);",
        ],
        lambda doc: "B" not in str(doc.get("constraints")),
    ),
    "a key kind not the value kind": Case(
        "`$A => $B` keeps no name, so it is never tried bare: of its kind constraints, the key's says what the pair "
        "is (a symbol key); the value's (an integer) is what the examples happened to pass.",
        "ruby",
        [
            "cfg = { :x => 10 }",
            "load(:path => 7, :mode => 2)",
        ],
        [
            "cfg = { x: 10 }",
            "load(path: 7, mode: 2)",
        ],
        [
            "h = { :k => v }",
            "render :json => data",
            "f(1, :m => \"r\")",
        ],
        [
            "h = { \"k\" => v }",
            "render json: data",
            "m = { 1 => 2 }",
        ],
    ),
    "a part every valid example has": Case(
        "Every `switch` needs a `default`: the switch pattern also flags the valid examples, which all hold a default "
        "case and no invalid one does: `not: has` it (`stopBy: end`), not the examples' incidental values.",
        "javascript",
        [
            "switch (op) {\n  case '+': r = a + b; break;\n  case '-': r = a - b; break;\n}",
            "switch (c) {\n  case 'y': return 1;\n}",
        ],
        [
            "switch (op) {\n  case '+': r = a + b; break;\n  default: r = 0;\n}",
            "switch (c) {\n  case 'y': return 1;\n  default: return 0;\n}",
        ],
        [
            "switch (k) {\n  case 0:\n  case 1: return k;\n}",
            "switch (s.kind) {\n  case A: f(); break;\n}",
            "while (s) {\n  switch (s & 3) {\n    case 1: s >>= 1; break;\n  }\n}",
        ],
        [
            "switch (k) {\n  default: return k;\n}",
            "switch (x) {\n  case 2: use(x);\n  default: break;\n}",
        ],
        lambda doc: "not" in str(doc["rule"]),
    ),
    "a marker comment written bare": Case(
        "`# noqa` must name its code: the valid comments qualify the marker (`noqa: F401`), the invalid ones write it "
        "bare, so the rule is the marker at the comment's start not followed by the qualifier's `:`.",
        "python",
        [
            "import os  # noqa",
            "x = f()  # noqa",
        ],
        [
            "import os  # noqa: F401",
            "x = f()  # noqa:E731",
        ],
        [
            "y = 1  #noqa",
            "z = g()  # noqa  # reason",
            "def f():  # noqa\n    pass",
        ],
        [
            "y = 1  # noqa: E501",
            "# no qa here",
            "z = 2  # see the noqa docs",
        ],
    ),
    "a modifier word among others": Case(
        "No `volatile` fields: the word every invalid declaration's modifiers hold and no valid one's, on the "
        "declaration, whatever other modifiers (or annotations) stand beside it.",
        "java",
        [
            "class A {\n  private volatile int n;\n}",
            "class B {\n  volatile boolean done = false;\n}",
        ],
        [
            "class A {\n  private int n;\n}",
            "class B {\n  private final AtomicBoolean done = make();\n}",
        ],
        [
            "class C {\n  static volatile C inst;\n}",
            "class D {\n  @Shared protected volatile long t = 0;\n}",
        ],
        [
            "class C {\n  static C inst;\n}",
            "class E {\n  int volatileCount = 0;\n}",
        ],
    ),
    "names one letter apart are a family": Case(
        "`execl` / `execv`: names that differ only by their last letter are one family with short endings (`execvp`, "
        "`execle`), not the two names shown, and not every name that starts the same (`executor`).",
        "c",
        [
            "void a(void) {\n  execl(path, arg, NULL);\n}",
            "void b(void) {\n  execv(path, argv);\n}",
        ],
        [
            "void a(void) {\n  posix_spawn(&pid, path, NULL, NULL, argv, env);\n}",
            "void b(void) {\n  run(path, argv);\n}",
        ],
        [
            "int m(void) {\n  return execvp(f, a);\n}",
            "void n(void) {\n  execle(p, q, NULL, e);\n}",
        ],
        [
            "void m(void) {\n  executor(x);\n}",
            "void n(void) {\n  exec(x);\n}",
        ],
    ),
    "a kind inside strings is said with the call it goes to": Case(
        "SQL built by f-string interpolation: `interpolation` lives only inside string literals, so the kind alone "
        "(which flags every f-string) ranks after the call the string is passed to, holding it.",
        "python",
        [
            "cur.execute(f\"SELECT * FROM t WHERE id = {uid}\")",
            "rows = db.execute(f\"DELETE FROM t WHERE n = '{name}'\").fetchall()",
        ],
        [
            "cur.execute(\"SELECT * FROM t WHERE id = 1\")",
            "rows = db.execute(DELETE_BY_NAME).fetchall()",
        ],
        [
            "conn.execute(f\"UPDATE t SET a = {a}\")",
        ],
        [
            "print(f\"id = {uid}\")",
            "log.info(f\"deleted {name}\")",
            "cur.execute(\"SELECT 1\")",
        ],
    ),
    "a construct wrapping code that is fine unwrapped": Case(
        "No namespaces: each invalid example is a namespace around code a valid example has unwrapped. The kind is "
        "the point (`internal_module`, not a file's root though its name ends in `module`), after any other fact.",
        "typescript",
        [
            "namespace Util {\n  export const a = 1;\n}",
            "export namespace Io {\n  export function read() {}\n}",
        ],
        [
            "export const a = 1;",
            "export function read() {}",
        ],
        [
            "namespace X.Y {\n  let z = 2;\n}",
            "namespace Outer {\n  namespace Inner {}\n}",
        ],
        [
            "declare module \"m\" {\n  let q: number;\n}",
            "import * as Util from \"./util\";",
        ],
    ),
    "an annotation in a modifier list, not the list": Case(
        "`@Inject private` is a modifier list, matched as a whole: the `private` beside the annotation is incidental, "
        "so the field holding the annotation is said instead, whatever else its modifiers hold.",
        "java",
        [
            "class A {\n  @Inject\n  private UserRepo repo;\n}",
            "class B {\n  @Inject private Clock clock;\n}",
        ],
        [
            "class A {\n  private final UserRepo repo;\n\n  @Inject\n"
            "  A(UserRepo repo) {\n    this.repo = repo;\n  }\n}",
            "class B {\n  private final Clock clock;\n}",
        ],
        [
            "class C {\n  @Inject\n  @Named(\"x\")\n  Db db;\n}",
            "class D {\n  @Inject protected Bus bus;\n}",
        ],
        [
            "class E {\n  @Inject\n  void set(Db db) {}\n}",
        ],
    ),
    "an operator the valid examples avoid": Case(
        "JavaScript's loose `==` / `!=` where the valid examples write `===` / `!==`: each invalid example shows one "
        "of them; the construct by its operator field, whatever its operands.",
        "javascript",
        [
            "if (a == b) {\n  go();\n}",
            "const off = mode != \"on\";",
        ],
        [
            "if (a === b) {\n  go();\n}",
            "const off = mode !== \"on\";",
        ],
        [
            "while (i != list.length) i++;",
            "return x == null ? 0 : x;",
        ],
        [
            "const same = a === b && c !== d;",
            "const le = a <= b;",
            "const s = \"a == b\";",
        ],
    ),
    "a comparison by what it compares, whatever the operator": Case(
        "`len(x) == 0` and `len(items) > 0` beside a plain truth test: every invalid comparison holds `len` and `0`, "
        "so the comparison of the two is the point (`!= 0`, `0 == len(s)` too), not every `len(...)` call and not "
        "the two operators shown.",
        "python",
        ["if len(queue) == 0:\n    return None", "ready = len(items) > 0"],
        ["if not queue:\n    return None", "ready = bool(items)"],
        ["while len(pending) != 0:\n    pending.pop()", "assert 0 == len(errors)"],
        ["n = len(items)", "if len(items) == 1:\n    pass", "if count == 0:\n    pass"],
    ),
    "a comparison by its plural operator field and what it compares": Case(
        "Python's `comparison_operator` names its operators in the plural (`operators`): `== None` and `!= None` "
        "beside `is None` and `is not None`, said as the operators shown with the `None` every one compares, so "
        "`x == \"\"` and `is None` go through.",
        "python",
        ["if conn == None:\n    connect()", "def live(r):\n    return r.closed_at != None"],
        ["if conn is None:\n    connect()", "def live(r):\n    return r.closed_at is not None"],
        ["while item == None:\n    item = q.get()", "flags = [f for f in fs if f.owner != None]"],
        ["if x is None or x == \"\":\n    pass", "kind = \"None\" == label"],
    ),
    "a call by its callee in a grammar without fields": Case(
        "Kotlin's calls name no fields: the callee is the call's first child, `Log.i` / `Log.w` beside `Log.e`, and "
        "the call is said by it, whatever its arguments.",
        "kotlin",
        [
            "fun f() {\n    Log.i(TAG, \"start\")\n}",
            "fun g(n: Int) {\n    Log.w(TAG, \"n=$n\")\n}",
        ],
        [
            "fun f() {\n    Log.e(TAG, \"start\")\n}",
            "fun g(n: Int) {\n    logger.warn(\"n=$n\")\n}",
        ],
        [
            "val x = run {\n    Log.i(TAG, \"x\")\n    1\n}",
            "fun h(d: Boolean) {\n    if (d) Log.w(\"H\", \"w\")\n}",
        ],
        [
            "fun k() {\n    Log.e(TAG, \"k\")\n}",
            "val lvl = Log.INFO",
        ],
    ),
    "a receiver the valid calls do without": Case(
        "`AppScope.launch` / `AppScope.async` where the valid examples launch and async on other scopes: the "
        "receiver is the point, not the two method names (a third, `produce`, is as wrong).",
        "kotlin",
        [
            "fun refresh() {\n    AppScope.launch {\n        load()\n    }\n}",
            "val job = AppScope.async { fetch() }",
        ],
        [
            "fun refresh() {\n    viewModelScope.launch {\n        load()\n    }\n}",
            "val job = scope.async { fetch() }",
        ],
        [
            "fun p() = AppScope.produce<Int> { send(1) }",
            "fun s() {\n    AppScope.launch(Dispatchers.IO) { sync() }\n}",
        ],
        [
            "fun t() {\n    lifecycleScope.launch { sync() }\n}",
        ],
    ),
    "a name with its namespace": Case(
        "`std::flush` is one API wherever it is written: not the chain of `<<` that happened to stand before it.",
        "cpp",
        [
            "void f() {\n  std::cout << x << std::flush;\n}",
            "void g(std::ostream &o) {\n  o << a << b << std::flush;\n}",
        ],
        [
            "void f() {\n  std::cout << x;\n}",
            "void g(std::ostream &o) {\n  o << a << b;\n}",
        ],
        [
            "void h() {\n  std::cerr << std::flush;\n}",
            "void k(int v) {\n  std::clog << v << ' ' << v << std::flush;\n}",
        ],
        [
            "void h() {\n  std::cout << \"flush\";\n}",
            "void k() {\n  out.flush();\n}",
        ],
    ),
    "a callback is part of the call it is passed to": Case(
        "Both invalid examples pass an arrow function and no valid one writes any: the callback is an argument of "
        "the call that is the point (`setInterval`), not the fact (`kind: arrow_function` ranked first).",
        "javascript",
        [
            "const id = setInterval((t) => tick(t), 50);",
            "setInterval(() => {\n  poll();\n}, 1000);",
        ],
        [
            "scheduler.every(50, tick);",
            "scheduler.every(1000, poll);",
        ],
        [
            "setInterval(refresh, 10);",
            "const h = setInterval(function () { a(); }, 5);",
        ],
        [
            "clearInterval(id);",
            "const f = (t) => tick(t);",
        ],
    ),
    "calls of one callee paired across long callbacks": Case(
        "The `setInterval` calls pair by their callee, though the `it(...)` around the first shares more names with "
        "the second's callback; and a parameter of the callbacks is no telling part of `it`/`test`.",
        "typescript",
        [
            "it(\"throttles\", async () => {\n  fire();\n  await new Promise((r) => setInterval(r, 300));\n"
            "  expect(spy).toHaveBeenCalled();\n});",
            "test(\"evicts\", (done) => {\n  setInterval(() => {\n    expect(store.get(\"a\")).toBeUndefined();\n"
            "    done();\n  }, 1000);\n});",
        ],
        [
            "it(\"throttles\", async () => {\n  fire();\n  jest.advanceTimersByTime(300);\n"
            "  expect(spy).toHaveBeenCalled();\n});",
            "test(\"evicts\", () => {\n  jest.runAllTimers();\n  expect(store.get(\"a\")).toBeUndefined();\n});",
        ],
        [
            "setInterval(done, 5);",
            "beforeEach(() => {\n  setInterval(reset, 0);\n});",
        ],
        [
            "jest.useFakeTimers();",
            "clearInterval(t);",
        ],
    ),
    "a flag every valid call passes": Case(
        "`open` must pass `O_CLOEXEC`: every valid call passes the flag, among others, and no invalid one does; the "
        "rule says the flag is missing, not the valid calls' text.",
        "c",
        [
            "int a(const char *p) {\n  return open(p, O_RDONLY);\n}",
            "int b(const char *p) {\n  int fd = open(p, O_WRONLY | O_CREAT, 0644);\n  return fd;\n}",
        ],
        [
            "int a(const char *p) {\n  return open(p, O_RDONLY | O_CLOEXEC);\n}",
            "int b(const char *p) {\n  int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);\n  return fd;\n}",
        ],
        [
            "void c(void) {\n  if (open(path, O_RDWR) < 0) fail();\n}",
            "int d(void) {\n  return open(name, O_RDONLY | O_NONBLOCK);\n}",
        ],
        [
            "void c(void) {\n  if (open(path, O_RDWR | O_CLOEXEC) < 0) fail();\n}",
            "void d(int fd) {\n  close(fd);\n}",
        ],
    ),
    "a C library call in C++ written with std::": Case(
        "`printf` / `fprintf` in C++: the same calls written `std::printf` are as wrong.",
        "cpp",
        [
            "void f(int n) {\n  printf(\"%d\\n\", n);\n}",
            "void g(const char *m) {\n  fprintf(stderr, \"%s\\n\", m);\n}",
        ],
        [
            "void f(int n) {\n  std::cout << n << '\\n';\n}",
            "void g(const char *m) {\n  std::cerr << m << '\\n';\n}",
        ],
        [
            "void a() {\n  std::printf(\"x\");\n}",
            "void b(FILE *f) {\n  std::fprintf(f, \"y\");\n}",
        ],
        [
            "void a() {\n  fmt::print(\"x\");\n}",
            "void b(char *s) {\n  std::snprintf(s, 4, \"y\");\n}",
        ],
    ),
    "a context up to a nested boundary": Case(
        "`defer` in a loop, where the valid example defers inside a closure called in the loop: inside the loop up "
        "to that boundary (`stopBy` the closure's kind), not inside it.",
        "go",
        [
            "for _, p := range paths {\n\tlock(p)\n\tdefer unlock(p)\n}",
            "for i := 0; i < n; i++ {\n\tdefer trace(i)()\n}",
        ],
        [
            "lock(p)\ndefer unlock(p)\nfor _, q := range qs {\n\tuse(q)\n}",
            "for _, p := range paths {\n\tfunc() {\n\t\tlock(p)\n\t\tdefer unlock(p)\n\t}()\n}",
        ],
        [
            "for {\n\tc := next()\n\tdefer c.Done()\n}",
        ],
        [
            "for _, c := range cs {\n\tgo func() {\n\t\tdefer wg.Done()\n\t}()\n}",
            "defer cancel()",
        ],
    ),
    "a name the code around binds is no fact": Case(
        "`resolve(...)` is called in both invalid examples, but `resolve` is the executor's own parameter, a local "
        "choice (`ok` elsewhere): the async executor passed to `new Promise` is the fact.",
        "javascript",
        [
            "const v = new Promise(async (resolve) => {\n  resolve(await read());\n});",
            "const w = new Promise(async function (resolve, reject) {\n  resolve(await db.load(k));\n});",
        ],
        [
            "const v = new Promise((resolve) => {\n  read().then(resolve);\n});",
            "const w = (async () => await db.load(k))();",
        ],
        [
            "new Promise(async (ok) => {\n  ok(await init());\n});",
        ],
        [
            "new Promise((resolve) => setTimeout(resolve, 5));",
            "const f = async (resolve) => resolve(await x());",
        ],
    ),
    "a construct lacking the method every valid one calls": Case(
        "Every valid `await` calls `.ConfigureAwait(false)` on what it awaits and no invalid one does; `await $A` "
        "keeps no name (ast-grep matches its keyword alone), so the kind says it: `await_expression` with no "
        "`ConfigureAwait` inside.",
        "csharp",
        [
            "var body = await client.SendAsync(request);",
            "public async Task SaveAsync()\n{\n    await writer.WriteLineAsync(line);\n}",
        ],
        [
            "var body = await client.SendAsync(request).ConfigureAwait(false);",
            "public async Task SaveAsync()\n{\n    await writer.WriteLineAsync(line).ConfigureAwait(false);\n}",
        ],
        [
            "var rows = await db.QueryAsync(sql);",
            "if (await cache.HasAsync(key)) { return; }",
        ],
        [
            "var rows = await db.QueryAsync(sql).ConfigureAwait(false);",
            "Task<int> t = repo.CountAsync();",
        ],
        lambda doc: "ConfigureAwait" in str(doc["rule"]),
    ),
    "how many arguments follow the one that matters is incidental": Case(
        "jQuery's deep `$.extend(true, {}, a, b)` twice, each with two sources: the sources after the `{}` every "
        "call passes are any number of them (`$.extend(true, {}, $$$ARGS)`); kept as two holes, a copy of one "
        "source or of three was let through.",
        "javascript",
        ["const cfg = $.extend(true, {}, defaults, opts);",
         "function merge(state, patch) {\n  return $.extend(true, {}, state, patch);\n}"],
        ["const cfg = structuredClone({ ...defaults, ...opts });",
         "function merge(state, patch) {\n  return { ...state, ...patch };\n}"],
        ["const copy = $.extend(true, {}, original);", "widget.options = $.extend(true, {}, base, theme, user);"],
        ["$.extend(target, source);", "const shallow = $.extend({}, a, b);"],
    ),
    "a call by its name, told apart by the closure it is in": Case(
        "`log.Fatal` / `log.Fatalf` inside a goroutine beside `log.Fatal` in `main` and `log.Printf` in a goroutine: "
        "the call family by name, `inside` the `go_statement` (`stopBy: end`). Go's `func_literal` was read as a "
        "literal (a token), so no code inside a closure was a root, and a call by its name regex got no context.",
        "go",
        [
            "func worker(jobs <-chan Job) {\n\tgo func() {\n\t\tfor j := range jobs {\n\t\t\tif err := j.Run(); "
            "err != nil {\n\t\t\t\tlog.Fatal(err)\n\t\t\t}\n\t\t}\n\t}()\n}",
            "func listen(addr string) {\n\tgo func() {\n\t\tlog.Fatalf(\"listen %s: %v\", addr, "
            "http.ListenAndServe(addr, nil))\n\t}()\n}",
        ],
        [
            "func main() {\n\tif err := run(); err != nil {\n\t\tlog.Fatal(err)\n\t}\n}",
            "func listen(addr string) {\n\tgo func() {\n\t\tif err := http.ListenAndServe(addr, nil); err != nil {"
            "\n\t\t\tlog.Printf(\"listen %s: %v\", addr, err)\n\t\t}\n\t}()\n}",
        ],
        [
            "func poll() {\n\tgo func(d time.Duration) {\n\t\tlog.Fatalln(\"stopped\")\n\t}(time.Second)\n}",
            "func a() {\n\tgo func() {\n\t\tlog.Fatal(\"x\")\n\t}()\n}",
        ],
        [
            "func main() {\n\tlog.Fatalf(\"bad flag %q\", f)\n}",
            "func b() {\n\tgo func() {\n\t\tlog.Println(\"x\")\n\t}()\n}",
        ],
        lambda doc: "go_statement" in str(doc["rule"]),
    ),
    "one metavariable where the same code stands at two places": Case(
        "A C counting loop over `i` and over `k`: the loop variable stands at three places in each header, so one "
        "metavariable holds them (`for (int $A = 0; $A < $B; $A++) $C`), ranked before the `++` kind alone, "
        "which flagged every increment and let no loop stepping by two through.",
        "c",
        ["void f(int *a, int n) {\n  for (int i = 0; i < n; i++) {\n    a[i] = 0;\n  }\n}",
         "int g(char *s, int len) {\n  int c = 0;\n  for (int k = 0; k < len; k++) c += s[k];\n  return c;\n}"],
        ["void f(int *a, int n) {\n  memset(a, 0, n * sizeof *a);\n}",
         "int g(char *s, int len) {\n  return sum(s, len);\n}"],
        ["void h(int m) {\n  for (int j = 0; j < m; j++) { tick(); }\n}"],
        ["void h(int m) {\n  for (int j = 0; j < m; j += 2) { tick(); }\n}", "void h(void) {\n  x++;\n}",
         "void h(int m) {\n  for (int j = 0; m > j; j++) { tick(); }\n}"],
    ),
    "a relaxed argument list keeps the metavariable bound before it": Case(
        "`list = list.concat(extra)` and `s.items = s.items.concat([x])`: what is assigned back is what `concat` was "
        "called on, so the relaxed pattern keeps that one metavariable at both places (`$A = $A.concat($$$ARGS)`), "
        "not `$A.concat($$$ARGS)` (every concat) nor the one argument shown.",
        "javascript",
        ["list = list.concat(extra);", "function add(s, x) {\n  s.items = s.items.concat([x]);\n}"],
        ["list.push(...extra);", "function add(s, x) {\n  s.items.push(x);\n}"],
        ["all = all.concat(more, other);", "this.q = this.q.concat(job);"],
        ["const all = base.concat(more);", "next = prev.concat(x);"],
        lambda doc: "$A = $A" in str(doc["rule"]),
    ),
    "an assigned call's result may be cast": Case(
        "`name = strdup(name)` and `c->host = strdup(c->host)`: C code writes the same assignment with the result "
        "cast (`label = (char *)strdup(label)`), so the pattern is `any` of `$A = strdup($A)` and `$A = "
        "($CAST)strdup($A)`; the bare pattern let the cast one through.",
        "c",
        ["void f(char *name) {\n  name = strdup(name);\n}",
         "void g(struct conn *c) {\n  c->host = strdup(c->host);\n}"],
        ["void f(char *name) {\n  char *copy = strdup(name);\n  use(copy);\n}",
         "void g(struct conn *c) {\n  char *h = strdup(c->host);\n  free(c->host);\n  c->host = h;\n}"],
        ["void h(char *label) {\n  label = (char *)strdup(label);\n}",
         "void k(struct opts *o) {\n  o->path = strdup(o->path);\n}"],
        ["void h(char *in, char *out) {\n  out = strdup(in);\n}",
         "void k(char *name) {\n  char *d = (char *)strdup(name);\n  use(d);\n}"],
    ),
    "a repeat through a wrapper node is said by has at each place": Case(
        "`empty($name) ? 'guest' : $name`: the pattern `empty($A) ? $B : $A` never matches (PHP's `argument` wraps "
        "the first `$A`, and ast-grep compares the wrapper with the bare node), so the repeat is said by `has` down "
        "to each place, through the wrapper; `empty($$$ARGS)` ranked first and flagged every `empty`.",
        "php",
        ["<?php\n$who = empty($name) ? 'guest' : $name;",
         "<?php\nreturn empty($this->title) ? 'Untitled' : $this->title;"],
        ["<?php\n$who = $name ?: 'guest';", "<?php\nreturn $this->title ?: 'Untitled';"],
        ["<?php\n$v = empty($cfg['x']) ? 0 : $cfg['x'];", "<?php\necho empty($a->b) ? '-' : $a->b;"],
        ["<?php\n$v = empty($a) ? 0 : $b;", "<?php\n$v = empty($a) ? 0 : count($a);"],
    ),
    "a repeat alone in an assignment's target list is compared through the list": Case(
        "Go's `count = count + 1` where `count++` says it: `$A = $A + 1` matches only a target that is one name "
        "(the first `$A` binds Go's `expression_list`, the second the bare operand, and ast-grep compares the two "
        "nodes), so the repeat is said by `has` at each place, through the list: `s.hits = s.hits + 1` and "
        "`m[k] = m[k] + 1` are flagged too.",
        "go",
        ["func tick() {\n\tcount = count + 1\n}", "func f(xs []int) {\n\tfor range xs {\n\t\tn = n + 1\n\t}\n}"],
        ["func tick() {\n\tcount++\n}", "func f(xs []int) {\n\tfor range xs {\n\t\tn++\n\t}\n}"],
        ["func (s *S) hit() {\n\ts.hits = s.hits + 1\n}", "func g(m map[string]int, k string) {\n\tm[k] = m[k] + 1\n}"],
        ["func (s *S) hit() {\n\ts.hits++\n}", "func g(m map[string]int, k string) {\n\tm[k] = n + 1\n}"],
    ),
    "a comparison with a literal is written either way round": Case(
        "`count == None` in Python: the author's rule also flags `None == total` (the literal first, as C and Yoda "
        "style write it), `any` of the pattern and the same comparison turned round; the pattern alone let it "
        "through.",
        "python",
        ["def f(count):\n    if count == None:\n        return 0",
         "def g(self):\n    if self.total == None:\n        pass"],
        ["def f(count):\n    if count is None:\n        return 0",
         "def g(self):\n    if self.total is None:\n        pass"],
        ["def h(total):\n    if None == total:\n        return 1", "def k(a):\n    if a.b == None:\n        return 2"],
        ["def h(total):\n    if total is None:\n        return 1", "def k(a):\n    if a.b == 0:\n        return 2"],
    ),
    "a body written as one bare expression is that expression": Case(
        "Kotlin's `if (cfg.port == null) 8080 else cfg.port`: the `else` body is one bare expression in a "
        "`control_structure_body`, not a statement list, so it is the metavariable the condition binds too, said "
        "by `has` at each place; as `$$$BODY` the repeat was lost and an `if` on `== null` that gives another "
        "value was flagged. The literal may come first (`null == req.host`).",
        "kotlin",
        ["val port = if (cfg.port == null) 8080 else cfg.port",
         "fun name(u: User): String {\n    return if (u.nick == null) \"anon\" else u.nick\n}"],
        ["val port = cfg.port ?: 8080", "fun name(u: User): String {\n    return u.nick ?: \"anon\"\n}"],
        ["val p = if (port == null) 80 else port", "val h = if (null == req.host) \"localhost\" else req.host"],
        ["val p = if (port == null) 80 else other", "val q = port ?: 80"],
    ),
    "a file lacking the statement every valid file opens with": Case(
        "Both valid modules add `from __future__ import annotations`, word for word, beside the same code: the "
        "fact is the file's, `kind: module` + `not: has` that statement by its tokens with any spacing (a "
        "`__future__` import of another name is not it); there was no rule, the shared code flagging both.",
        "python",
        ["import os\n\n\ndef cwd() -> str:\n    return os.getcwd()\n",
         "import os\nimport sys\n\nprint(os.sep, sys.argv)\n"],
        ["from __future__ import annotations\n\nimport os\n\n\ndef cwd() -> str:\n    return os.getcwd()\n",
         "from __future__ import annotations\nimport os\nimport sys\n\nprint(os.sep, sys.argv)\n"],
        ["import json\n\n\ndef dump(x: dict) -> str:\n    return json.dumps(x)\n",
         "from __future__ import division\nx = 1 / 2\n"],
        ["from  __future__  import  annotations\nx: list[int] = []\n",
         "\"\"\"Docs.\"\"\"\nfrom __future__ import annotations\n"],
    ),
    "what a call passes at one place before a kind anywhere inside it": Case(
        "Log messages built by `+`: the first argument of the logging calls is a concatenation, where every valid "
        "call passes a string literal; a `binary_operator` anywhere inside the call also flagged a sum passed as a "
        "later argument.",
        "python",
        ["logging.info(\"loaded \" + name)", "logging.warning(\"retry \" + str(n) + \" failed\", exc_info=True)"],
        ["logging.info(\"loaded %s\", name)", "logging.warning(\"retry %s failed\", n, exc_info=True)"],
        ["logging.error(\"bad \" + path)", "logging.debug(prefix + \" done\")"],
        ["logging.info(\"total %s\", a + b)", "x = \"a\" + b"],
    ),
    "an element lacking an attribute beside the one that calls for it": Case(
        "`<input type=\"password\">` without `autoComplete`, beside the same inputs with it: the fact is the "
        "element's, `any` of the opening and self-closing element kinds, `has` the `type` attribute by its parts "
        "(the value's content, in any quotes) and `not: has` an attribute named `autoComplete`; before, an attribute "
        "not inside a self-closing element with `autoComplete` let `type='password'` and `<input ...></input>` "
        "through.",
        "javascript",
        ["const Pw = () => <input type=\"password\" name=\"pw\" />;",
         "function Login({ pw, setPw }) {\n  return (\n    <form>\n      <input className=\"field\" type=\"password\" "
         "value={pw} onChange={setPw} />\n    </form>\n  );\n}"],
        ["const Pw = () => <input type=\"password\" name=\"pw\" autoComplete=\"current-password\" />;",
         "function Login({ pw, setPw }) {\n  return (\n    <form>\n      <input className=\"field\" type=\"password\" "
         "value={pw} onChange={setPw} autoComplete=\"new-password\" />\n    </form>\n  );\n}"],
        ["const A = () => <input type='password' />;", "const B = () => <input type={\"password\"} id=\"p\"></input>;"],
        ["const C = () => <input type=\"text\" name=\"q\" />;",
         "const D = () => <input autoComplete=\"off\" type=\"password\" />;"],
    ),
    "a comparison of a value with itself": Case(
        "`count != count` and `user.id == user.id`, beside the same comparisons of two different values: a "
        "`binary_expression` whose left and right are one metavariable (`has: {field: left, pattern: $A}`, the "
        "same on the right), with any comparison operator, so `i < i` is flagged and `n - n` is not.",
        "java",
        ["class A {\n  void f() {\n    if (count != count) reset();\n  }\n}",
         "class B {\n  boolean g(User user) {\n    return user.id == user.id;\n  }\n}"],
        ["class A {\n  void f() {\n    if (count != limit) reset();\n  }\n}",
         "class B {\n  boolean g(User user, User other) {\n    return user.id == other.id;\n  }\n}"],
        ["class C {\n  void h(int i) {\n    while (i < i) { i++; }\n  }\n}",
         "class D {\n  boolean k(P a) { return a.b >= a.b; }\n}"],
        ["class E {\n  int d(int n) { return n - n; }\n}",
         "class F {\n  void m(int x, int y) { if (x == y) go(); }\n}"],
    ),
    "not followed by the statement every valid one adds right after": Case(
        "`close(fd)` and `close(s->sock)`, each fine when the next statement resets what was closed (`fd = -1;`): "
        "`close($A);` with `not: precedes: {pattern: $A = -1;}`, the reset written with the metavariable, so a "
        "reset of another variable does not count and a reset on the same line does.",
        "c",
        ["void a(int fd) {\n  close(fd);\n  log_closed();\n}", "void b(struct conn *s) {\n  close(s->sock);\n}"],
        ["void a(int fd) {\n  close(fd);\n  fd = -1;\n  log_closed();\n}",
         "void b(struct conn *s) {\n  close(s->sock);\n  s->sock = -1;\n}"],
        ["void c(struct conn *conn) {\n  close(conn->fd);\n  conn->open = 0;\n}",
         "void d(int x, int y) {\n  close(x);\n  y = -1;\n}"],
        ["void e(int x) {\n  close(x); x = -1;\n}", "void f(int x) {\n  shutdown(x);\n}"],
        lambda doc: "precedes" in str(doc["rule"]),
    ),
    "not followed by a statement, said of the statement around a call": Case(
        "Go's `c.mu.Lock()` is a call inside an `expression_statement` of its own, and only the statement has a "
        "next one: `$A.Lock()` not `inside` an `expression_statement` that `precedes` `defer $A.Unlock()`; an "
        "unlock of another mutex does not count.",
        "go",
        ["func (c *Counter) Add() {\n\tc.mu.Lock()\n\tc.n++\n\tc.mu.Unlock()\n}",
         "func (s *Store) Get(k string) string {\n\ts.lock.Lock()\n\treturn s.m[k]\n}"],
        ["func (c *Counter) Add() {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\tc.n++\n}",
         "func (s *Store) Get(k string) string {\n\ts.lock.Lock()\n\tdefer s.lock.Unlock()\n\treturn s.m[k]\n}"],
        ["func f() {\n\tmu.Lock()\n\tx = 1\n\tmu.Unlock()\n}",
         "func (q *Q) Pop() int {\n\tq.guard.Lock()\n\tdefer q.other.Unlock()\n\treturn q.items[0]\n}"],
        ["func f() {\n\tmu.Lock()\n\tdefer mu.Unlock()\n\tx = 1\n}", "func g() {\n\tdefer mu.Unlock()\n}"],
    ),
    "a shell command without the option every valid one passes": Case(
        "`mkdir build` and `mkdir \"$d\"` in a loop beside the same with `-p`: a shell `command` is a call named by "
        "its `command_name` (`kind: command`, `has: {field: name, regex: ^mkdir$}`) and `-p` is an option it passes, "
        "also among others (`-vp`): `not: has` it; there was no rule (`mkdir` a value word, the command no call).",
        "bash",
        ["mkdir build", "for d in a b; do\n  mkdir \"$d\"\ndone"],
        ["mkdir -p build", "for d in a b; do\n  mkdir -p \"$d\"\ndone"],
        ["mkdir -v out", "if true; then\n  mkdir logs && cd logs\nfi"],
        ["mkdir -vp out", "echo mkdir out", "mkdir -p \"$HOME/x\""],
        lambda doc: "command" in str(doc["rule"]),
    ),
    "the differing part kept inside the construct every example is": Case(
        "Two `return`s of a comma expression beside the same `return`s of an array and an object: every example "
        "is a `return`, so the comma expression is wrong as its value (`kind: sequence_expression` + `inside: "
        "{kind: return_statement, stopBy: end}`), not wherever it is written: the kind alone, which ranked first, "
        "flagged the two-variable `for` header and a deliberate `x = (a, b)`.",
        "javascript",
        ["function pair(x, y) {\n  return (x, y);\n}", "const get = (o) => {\n  return (o.id, o.name);\n};"],
        ["function pair(x, y) {\n  return [x, y];\n}",
         "const get = (o) => {\n  return { id: o.id, name: o.name };\n};"],
        ["function f() { return (a, b, c); }", "if (ok) return (log(x), x);"],
        ["for (i = 0, j = 1; i < n; i++, j++) { step(i, j); }", "x = (a, b);", "return [a, b];"],
        lambda doc: "return_statement" in str(doc["rule"]),
    ),
    "a word of the request every invalid example writes names the construct": Case(
        "\"no !! to make a boolean\": both invalid examples write `!!`, no valid one does, and the request names it, "
        "so the pattern that keeps it (`!!$A`) goes before the `!` operator alone, which flagged every single "
        "negation.",
        "javascript",
        ["const ok = !!user;", "function isAdmin(f) {\n  return !!f.admin;\n}"],
        ["const ok = Boolean(user);", "function isAdmin(f) {\n  return f.admin === true;\n}"],
        ["if (!!(a && b)) go();", "x = [!!y];"],
        ["if (!done) wait();", "const z = !(a || b);"],
        lambda doc: "!!" in str(doc["rule"]),
        request="no !! to make a boolean, call Boolean() instead",
    ),
    "a clause of its own holding only keywords is a construct": Case(
        "`catch (...)` that neither rethrows nor throws, beside one that rethrows: the clause without a "
        "`throw_statement` (`not: has`), not the whole `try` around it, which ranked first because the shorter "
        "example's `catch (...) {}` holds no name and read as where the code sits; the `try` pattern let a try with "
        "two statements or two catch clauses through.",
        "cpp",
        ["int Reader::next() {\n    try {\n        return fetch();\n    } catch (...) {\n        return -1;\n    }\n}",
         "void Timer::fire() {\n    try {\n        cb_();\n    } catch (...) {\n    }\n}"],
        ["int Reader::next() {\n    try {\n        return fetch();\n    } catch (...) {\n        report();\n"
         "        throw;\n    }\n}",
         "void Timer::fire() {\n    try {\n        cb_();\n    } catch (const std::runtime_error& e) {\n"
         "        report(e);\n    }\n}"],
        ["bool ok(int& v) {\n    try {\n        v = compute();\n        return true;\n    } catch (const Err&) {\n"
         "        throw;\n    } catch (...) {\n        return false;\n    }\n}",
         "void f() {\n    try { g(); } catch (...) { ++errors; }\n}"],
        ["void f() {\n    try { g(); } catch (...) { cleanup(); throw; }\n}",
         "void h() {\n    try { g(); } catch (const std::exception& e) { note(e); }\n}"],
        lambda doc: "catch_clause" in str(doc["rule"]),
    ),
    "an operator the valid examples also write in another spelling": Case(
        "PHP's `==` and `!=` beside `===` and a `== null`: the operators the invalid examples write (`^(!=|==)$`), "
        "though a valid example writes `==` too, told apart by the value every valid match compares with (`not: "
        "has: {kind: null}`); there was no rule (the two comparisons share no code).",
        "php",
        ["<?php\nif ($count == 0) { reset_all(); }", "<?php\n$same = $left->id != $right->id;"],
        ["<?php\nif ($count === 0) { reset_all(); }", "<?php\nif ($v == null) { $v = 1; }"],
        ["<?php\nwhile ($node->kind != 'root') { $node = $node->up; }", "<?php\nreturn $a == $b;"],
        ["<?php\nif (null != $x) { go(); }", "<?php\nreturn $a !== $b;", "<?php\n$ok = $n >= 10;"],
    ),
    "a type the request names, flagged wherever it stands": Case(
        "\"not Hashtable\": both invalid examples write `new Hashtable`, the request names the type and nothing "
        "else they write, so the type by name (`type_identifier` `^Hashtable$`) goes first, not `new "
        "Hashtable<>($$$ARGS)`, which let through a field or parameter declared `Hashtable` (the valid examples' "
        "`new HashMap<>()` is the same construct with another type: the request does not say `new`).",
        "java",
        ["class Counts {\n    Map<String, Integer> make() {\n        return new Hashtable<>();\n    }\n}",
         "class Cfg {\n    Map copy(Map m) {\n        return new Hashtable<>(m);\n    }\n}"],
        ["class Counts {\n    Map<String, Integer> make() {\n        return new HashMap<>();\n    }\n}",
         "class Cfg {\n    Map copy(Map m) {\n        return new HashMap<>(m);\n    }\n}"],
        ["class Cache {\n    private Hashtable<String, Object> items;\n}",
         "class Loader {\n    void load(Hashtable<String, String> into) { into.clear(); }\n}"],
        ["class Cache {\n    private Map<String, Object> hashtable = new HashMap<>();\n}",
         "class Notes {\n    String why() { return \"Hashtable was replaced\"; }\n}"],
        request="use HashMap, not Hashtable (its locking is never needed here)",
    ),
    "a type the request names, written as a plain identifier": Case(
        "C# writes a class name as an `identifier`: \"no Hashtable\" with two `new Hashtable()` flags the name "
        "(`identifier` `^Hashtable$`) in a field, a parameter and a target-typed `new()` too, not only the "
        "`new Hashtable()` the examples happen to write.",
        "csharp",
        ["var table = new Hashtable();\ntable[\"a\"] = 1;", "object Make()\n{\n    return new Hashtable();\n}"],
        ["var table = new Dictionary<string, int>();\ntable[\"a\"] = 1;",
         "object Make()\n{\n    return new Dictionary<string, int>();\n}"],
        ["class Store\n{\n    private readonly Hashtable _cache = new();\n}", "void Fill(Hashtable into) { }"],
        ["var hashtable = new Dictionary<string, int>();", "var set = new HashSet<string>();"],
        request="no Hashtable, use Dictionary<TKey, TValue>",
    ),
    "a Rust function the request names by its module path": Case(
        "\"no mem::zeroed\" with `std::mem::zeroed()` and `mem::zeroed()`: the function is `zeroed` whatever path "
        "names it, so the call by its last path part (`(^|::)zeroed(::<.*>)?$`) goes first, flagging it bare after "
        "a `use` and with a turbofish, not `$A::zeroed()` with `A` ending in `mem` (the request's `mem` qualifies "
        "the name: it is not a word of its own).",
        "rust",
        ["fn make() -> Pod {\n    unsafe { std::mem::zeroed() }\n}",
         "fn reset(p: &mut Pod) {\n    *p = unsafe { mem::zeroed() };\n}"],
        ["fn make() -> Pod {\n    Pod::default()\n}", "fn reset(p: &mut Pod) {\n    *p = Pod::default();\n}"],
        ["use std::mem::zeroed;\n\nfn blank() -> Pod {\n    unsafe { zeroed() }\n}",
         "fn raw() -> Pod {\n    unsafe { core::mem::zeroed::<Pod>() }\n}"],
        ["fn copy(p: &Pod) -> Pod {\n    p.zeroed_copy()\n}",
         "fn size() -> usize {\n    std::mem::size_of::<Pod>()\n}"],
        request="no mem::zeroed, use Default or MaybeUninit",
    ),
    "an operator the request names, written against the one before it": Case(
        "`ok=!!user` and `f && !!f.admin` write `!!` right after `=` or beside `&&`: the code's operator tokens are "
        "read from any of them (`=!!` holds `!!`), so the request's `!!` is found and `!!$A` goes first, not the "
        "`!` operator alone.",
        "javascript",
        ["const ok=!!user;", "function isAdmin(f) {\n  return f && !!f.admin;\n}"],
        ["const ok=Boolean(user);", "function isAdmin(f) {\n  return f && f.admin === true;\n}"],
        ["if (!!(a && b)) go();", "x = [!!y];"],
        ["if (!done) wait();", "const z = !(a || b);"],
        lambda doc: "!!" in str(doc["rule"]),
        request="no !! to make a boolean, call Boolean() instead",
    ),
    "a member every invalid example writes is said by its write, compound or not": Case(
        "`document.cookie = ...` in both invalid examples: the assignment to it (`any` of "
        "`assignment_expression` and `augmented_assignment_expression`, `has: {field: left, pattern: ...}`) "
        "goes before the member access alone, which also flags reading the cookie, and also flags `+=`.",
        "javascript",
        ['document.cookie = "token=" + token;', "function remember(id) {\n  document.cookie = `id=${id}`;\n}"],
        ['localStorage.setItem("token", token);', "function remember(id) {\n  store.set(\"id\", id);\n}"],
        ['document.cookie += "; secure";', "if (ok) document.cookie = c;"],
        ["const all = document.cookie;", "parse(document.cookie);"],
    ),
    "constructs that keep no literal in common are said by their shape": Case(
        "`db.query(`...${id}`)` and `pool.exec(`...${table}`)` share no name or literal, so no pattern says them: "
        "their shape (`call_expression` whose `function` is a `member_expression`) flags the valid "
        "`db.query(\"...\", [id])` too, and is told apart by the `template_substitution` it holds.",
        "javascript",
        ["db.query(`SELECT * FROM users WHERE id = ${id}`);", "pool.exec(`DELETE FROM ${table}`);"],
        ["db.query(\"SELECT * FROM users WHERE id = ?\", [id]);", "const sql = `DELETE FROM ${table}`;"],
        ["api.send(`hello ${name}`);", "this.store.run(`UPDATE t SET n = ${n}`, opts);"],
        ["send(`hi ${name}`);", "db.query(\"SELECT 1\");", "const s = `a ${b}`;"],
        lambda doc: "template_substitution" in str(doc["rule"]) and "member_expression" in str(doc["rule"]),
    ),
    "a comparison said across the kinds the grammar parses comparisons in": Case(
        "Swift parses `== 1.0` as an `equality_expression`, `!= 1.0` as an `infix_expression` (its `op` a "
        "`custom_operator`) and `< 1.0` as a `comparison_expression`: what both invalid examples compare "
        "(`progress` with `1.0`) is said in any of the three, not `$A.progress`, which also flags other uses.",
        "swift",
        ["if task.progress == 1.0 {\n    finish()\n}", "let pending = job.progress != 1.0"],
        ["if task.isFinished {\n    finish()\n}", "let pending = !job.isFinished"],
        ["while download.progress < 1.0 { tick() }", "func done() -> Bool {\n    return 1.0 <= item.progress\n}"],
        ["if task.progress == 0.5 { half() }", "let p = job.progress"],
    ),
    "a declaration not preceded by the comment marker every valid one has": Case(
        "Both valid methods have a Javadoc comment before them, whatever it says, and neither invalid one has (one "
        "has a `//` note): the `public` method not preceded by a comment opening with `/**`, looking back past "
        "other comments, also flags a public method after a plain `/* */` comment or in a class whose other "
        "method is documented, and lets through a documented one with an annotation and a private one.",
        "java",
        ["class Account {\n  public int balance() {\n    return total;\n  }\n}",
         "class Account {\n  // adds to the total\n  public void deposit(int amount) {\n    total += amount;\n  }\n}"],
        ["class Account {\n  /** The balance in cents. */\n  public int balance() {\n    return total;\n  }\n}",
         "class Account {\n  /**\n   * Adds to the total.\n   */\n  public void deposit(int amount) {\n"
         "    total += amount;\n  }\n}"],
        ["class Queue {\n  /** Makes a queue. */\n  public Queue() {}\n\n  public boolean isEmpty() {\n"
         "    return size == 0;\n  }\n}",
         "class Cache {\n  /* not javadoc */\n  @Override\n  public String toString() {\n    return name;\n  }\n}"],
        ["class Cache {\n  /** The name. */\n  @Override\n  public String toString() {\n    return name;\n  }\n}",
         "class Cache {\n  private int hash() {\n    return 1;\n  }\n}"],
        lambda doc: "follows" in str(doc["rule"]),
    ),
    "the request's list of names is the family, not only the names shown": Case(
        "\"no strtok, asctime or ctime\" with one example calling `strtok` and one `ctime`: every name the request "
        "lists with them is as wrong (`asctime`), while the reentrant `_r` variants stay fine.",
        "c",
        ["char *tok = strtok(line, \",\");", "void stamp(time_t now) {\n    char *when = ctime(&now);\n}"],
        ["char *tok = strtok_r(line, \",\", &save);",
         "void stamp(time_t now, char *buf) {\n    char *when = ctime_r(&now, buf);\n}"],
        ["void show(struct tm *tm) {\n    fputs(asctime(tm), stdout);\n}", "char *w = strtok(NULL, \" \");"],
        ["void show(struct tm *tm, char *buf) {\n    fputs(asctime_r(tm, buf), stdout);\n}",
         "int n = strtol(s, NULL, 10);"],
        request="no strtok, asctime or ctime (they are not reentrant)",
    ),
    "a method by the start its names share, on the declaration": Case(
        "`GetName` and `GetTimeout` beside `Name` and `Timeout`: the methods whose name starts with the word `Get` "
        "(`method_declaration` with `name` `^Get[A-Z0-9_]`), whatever they do; not `Get` or `Getter` alone, not "
        "a function, nor a method that only calls a getter.",
        "go",
        ["func (u *User) GetName() string {\n\treturn u.name\n}",
         "func (c *Config) GetTimeout() time.Duration {\n\treturn c.timeout\n}"],
        ["func (u *User) Name() string {\n\treturn u.name\n}",
         "func (c *Config) Timeout() time.Duration {\n\treturn c.timeout\n}"],
        ["func (s *Server) GetAddr() string { return s.addr }",
         "func (q *Queue) GetLen() (n int) {\n\tq.mu.Lock()\n\tn = len(q.items)\n\tq.mu.Unlock()\n\treturn\n}"],
        ["func (c *Cache) Get(key string) []byte { return c.m[key] }", "func GetEnv(k string) string { return k }",
         "func (t *Tree) Getter() int { return t.n }", "func (s *Server) Addr() string { return s.GetAddr() }"],
    ),
    "a method by its name, wherever a method is declared, not a free function": Case(
        "Two Rust methods named `set_...` taking `self` beside ones named otherwise: the functions named `^set_` that "
        "take a `self_parameter`, in an `impl` or as a trait's signature (`function_signature_item`), not a free "
        "function of that name nor a method named otherwise.",
        "rust",
        ["impl Config {\n    pub fn set_timeout(&mut self, t: Duration) {\n        self.timeout = t;\n    }\n}",
         "impl User {\n    fn set_name(&mut self, n: String) {\n        self.name = n;\n    }\n}"],
        ["impl Config {\n    pub fn update_timeout(&mut self, t: Duration) {\n        self.timeout = t;\n    }\n}",
         "impl User {\n    fn rename(&mut self, n: String) {\n        self.name = n;\n    }\n}"],
        ["trait Store {\n    fn set_limit(&mut self, n: usize);\n}",
         "impl<T> Slot<T> {\n    pub fn set_value(&self, v: T) {\n        self.v.replace(v);\n    }\n}"],
        ["fn set_global_level(l: Level) {\n    LEVEL.store(l);\n}", "impl A {\n    fn reset(&mut self) {}\n}",
         "impl B {\n    fn settings(&self) -> &S {\n        &self.s\n    }\n}"],
    ),
    "a receiver by the names the request writes, in the receiver's slot": Case(
        "\"receivers are never named self or this\" with one of each: the `parameter_declaration` named "
        "`^(self|this)$` in a method's `receiver` (`inside` the `parameter_list` that is that field), not a "
        "parameter named `self`, nor a method named `this`.",
        "go",
        ["func (self *Buffer) Len() int {\n\treturn len(self.buf)\n}",
         "func (this Matrix) Rows() int {\n\treturn this.rows\n}"],
        ["func (b *Buffer) Len() int {\n\treturn len(b.buf)\n}", "func (m Matrix) Rows() int {\n\treturn m.rows\n}"],
        ["func (this *Pool) Put(c *Conn) {\n\tthis.free = append(this.free, c)\n}",
         "func (self Vec) Dot(o Vec) float64 { return self.X*o.X + self.Y*o.Y }"],
        ["func lookup(self string) int { return len(self) }", "func (p Path) this() string { return string(p) }",
         "func (w *Writer) Flush() error { return w.err }"],
        request="receivers are never named self or this",
    ),
    "a boolean flag every valid call passes is said as missing, not as a count of arguments": Case(
        "Both valid calls add `true` and neither invalid one does: the call with any arguments and no `true` among "
        "them (`not: has`) also flags one passing `false` or `null`, and lets through `true` passed by name; "
        "`json_decode($A)`, ranked first, only counted the arguments.",
        "php",
        ["<?php\n$data = json_decode($body);", "<?php\nreturn json_decode(file_get_contents($path));"],
        ["<?php\n$data = json_decode($body, true);", "<?php\nreturn json_decode(file_get_contents($path), true);"],
        ["<?php\n$cfg = json_decode($raw, false);", "<?php\nforeach (json_decode($s, null, 512) as $k) {}"],
        ["<?php\n$cfg = json_decode($raw, associative: true);", "<?php\n$x = json_decode($s, true, 512);",
         "<?php\n$x = json_encode($s);"],
    ),
    "a string with interpolation inside the calls the request names": Case(
        "Both invalid examples pass an f-string to `execute` / `executemany`, the valid ones a plain string with "
        "placeholders: the string holding an interpolation (`string` has `interpolation`) inside a call of the "
        "names the request writes (`(^|\\W)(execute|executemany)$`), not every f-string, which also flagged a "
        "log message.",
        "python",
        ["cur.execute(f\"SELECT * FROM users WHERE id = {uid}\")",
         "def purge(conn, table):\n    conn.executemany(f\"DELETE FROM {table} WHERE id = ?\", rows)"],
        ["cur.execute(\"SELECT * FROM users WHERE id = %s\", (uid,))",
         "def purge(conn, table):\n    conn.executemany(\"DELETE FROM logs WHERE id = ?\", rows)"],
        ["self.db.execute(f\"UPDATE t SET n = {n}\")",
         "cursor.executemany(\n    f\"INSERT INTO {name} VALUES (?)\", items)"],
        ["log.info(f\"ran {query}\")", "cur.execute(\"SELECT 1\")", "msg = f\"SELECT failed for {uid}\""],
        lambda doc: "inside" in str(doc["rule"]),
        request="no f-strings in SQL passed to execute() or executemany(), pass the values as parameters",
    ),
    "an interpolation shown in one form is any form of it": Case(
        "Kotlin writes `$name` and `${expr}` as two kinds (`interpolated_identifier`, `interpolated_expression`): "
        "both examples show the first, and a `${x.a}` inside the named call is as wrong.",
        "kotlin",
        ["val s = db.compileStatement(\"DELETE FROM t WHERE id = $id\")",
         "fun q(name: String) = conn.prepareStatement(\"SELECT * FROM u WHERE n = '$name'\")"],
        ["val s = db.compileStatement(\"DELETE FROM t WHERE id = ?\")",
         "fun q(name: String) = conn.prepareStatement(\"SELECT * FROM u WHERE n = ?\")"],
        ["conn.prepareStatement(\"UPDATE t SET a = ${x.a}\")",
         "db.compileStatement(\n    \"INSERT INTO log VALUES ('$msg')\"\n)"],
        ["println(\"deleted $id\")", "db.compileStatement(SQL)", "val t = \"id ${x.a}\""],
        request="no string templates in SQL passed to compileStatement() or prepareStatement()",
    ),
    "a keyed element of a struct literal is the fact, the other fields free": Case(
        "`&http.Transport{DisableKeepAlives: true}` in both invalid examples: the element `DisableKeepAlives: "
        "true` in any literal (`keyed_element` with that key and value) also flags a literal that sets other "
        "fields beside it; the pattern of the whole literal, ranked first, flagged only that one field alone.",
        "go",
        ["func newTransport() *http.Transport {\n\treturn &http.Transport{DisableKeepAlives: true}\n}",
         "var tr = &http.Transport{DisableKeepAlives: true}"],
        ["func newTransport() *http.Transport {\n\treturn &http.Transport{MaxIdleConns: 10}\n}",
         "var tr = &http.Transport{DisableKeepAlives: false}"],
        ["var t = &http.Transport{Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true}",
         "func f() http.Transport {\n\treturn http.Transport{\n\t\tDisableKeepAlives: true,\n"
         "\t\tIdleConnTimeout:   time.Second,\n\t}\n}"],
        ["var t = &http.Transport{DisableKeepAlives: false, Proxy: p}", "var t = &http.Transport{}",
         "func f(tr *http.Transport) bool { return tr.DisableKeepAlives }"],
    ),
    "a declaration of the name shown, without the modifier every valid one writes": Case(
        "`ToString` declared without `override` beside the same method declared `override`: the "
        "`method_declaration` named `^ToString$` with no `override` among its modifiers, whatever its body or "
        "other modifiers, not the method shown as a pattern (which keeps its `public` and its body's shape).",
        "csharp",
        ["class User {\n    public string ToString() => Name;\n}",
         "class Order {\n    public string ToString() {\n        return Id.ToString();\n    }\n}"],
        ["class User {\n    public override string ToString() => Name;\n}",
         "class Order {\n    public override string ToString() {\n        return Id.ToString();\n    }\n}"],
        ["class P {\n    public new string ToString() => \"p\";\n}",
         "class Q {\n    string ToString() { return Q; }\n}"],
        ["class R {\n    public override string ToString() => base.ToString();\n}",
         "class S {\n    public string Format() => \"s\";\n}", "var t = x.ToString();"],
    ),
    "fields and parameters by their declared type, the type also written with its package": Case(
        "A `HashMap` field and a `HashMap` parameter beside `Map` ones, the valid examples still making a "
        "`HashMap`: `any` of `field_declaration` and `formal_parameter` whose `type` is `HashMap` with any package "
        "and type arguments (`java.util.HashMap<K, V>`, a record's component), not a `HashMap` made, returned or "
        "held in a local variable.",
        "java",
        ["class A {\n  private HashMap<String, Integer> counts;\n}",
         "class B {\n  void put(HashMap<String, String> m) {\n    store(m);\n  }\n}"],
        ["class A {\n  private Map<String, Integer> counts = new HashMap<>();\n}",
         "class B {\n  void put(Map<String, String> m) {\n    store(m);\n  }\n}"],
        ["class C {\n  final java.util.HashMap<String, Long> cache = null;\n}",
         "record R(String id, HashMap<String, Integer> m) {}"],
        ["class E {\n  HashMap<String, Integer> build() {\n    return new HashMap<>();\n  }\n}",
         "class F {\n  void f() {\n    HashMap<String, Integer> tmp = new HashMap<>();\n  }\n}",
         "class G {\n  private HashMapper mapper;\n}"],
    ),
    "functions by their declared return type, the valid ones writing the type elsewhere": Case(
        "Two functions declared `-> dict` beside ones returning a class, the valid ones still holding a `dict` "
        "in a variable or a parameter: the `function_definition` whose `return_type` is `dict` (with any type "
        "arguments), not a `dict` parameter or variable.",
        "python",
        ["def load(path) -> dict:\n    return json.load(open(path))",
         "def parse(s: str) -> dict:\n    return dict(pairs(s))"],
        ["def load(path) -> Config:\n    data: dict = json.load(open(path))\n    return Config(**data)",
         "def parse(s: str, extra: dict) -> Pairs:\n    return Pairs(s, extra)"],
        ["def counts(xs) -> dict[str, int]:\n    return Counter(xs)",
         "class Api:\n    async def fetch(self, u) -> dict:\n        return await get(u)"],
        ["def f(d: dict) -> Config:\n    return Config(**d)", "cache: dict = {}",
         "def g() -> dictionary:\n    return dictionary()"],
    ),
    "parameters by the declared types the request names, as references": Case(
        "\"parameters take &T, not &Box<T> or &Rc<T>\" with one of each, the valid examples taking them by value: a "
        "`parameter` whose `type` is a shared reference to `Box` or `Rc` (with any lifetime), not a `Box` taken by "
        "value, a `&mut Box`, nor a local.",
        "rust",
        ["fn draw(s: &Box<Shape>) {\n    s.paint();\n}",
         "fn count(r: &Rc<Node>) -> usize {\n    r.children.len()\n}"],
        ["fn draw(s: &Shape, keep: Box<Shape>) {\n    s.paint();\n}",
         "fn count(r: &Node, shared: Rc<Node>) -> usize {\n    r.children.len()\n}"],
        ["fn walk<'a>(n: &'a Rc<Node>) {}", "impl V {\n    fn visit(&self, b: &Box<Expr>) {}\n}"],
        ["fn own(b: Box<Shape>) {}", "fn grow(b: &mut Box<Shape>) {}",
         "fn f(x: &Shape) {\n    let b: &Box<Shape> = &boxed;\n}"],
        request="parameters take &T, not &Box<T> or &Rc<T>",
    ),
    "declarations without the modifier every valid one writes, whatever their names": Case(
        "Two utility methods declared without `static` beside the same ones declared `static`: every "
        "`method_declaration` without `static` among its modifiers, with a plain name, not a pattern of the "
        "methods shown (their bodies, their `public`).",
        "java",
        ["class StrUtil {\n  public String trim(String s) {\n    return s.strip();\n  }\n}",
         "class MathUtil {\n  public int sq(int x) {\n    return x * x;\n  }\n}"],
        ["class StrUtil {\n  public static String trim(String s) {\n    return s.strip();\n  }\n}",
         "class MathUtil {\n  public static int sq(int x) {\n    return x * x;\n  }\n}"],
        ["class IoUtil {\n  public void close(Closeable c) {\n    try { c.close(); } catch (IOException e) {}\n  }\n}",
         "class X {\n  int f() { return 1; }\n}"],
        ["class Y {\n  static int g() { return 2; }\n}", "class Z {\n  private static final int N = 1;\n}"],
    ),
    "a field set to a literal in a struct literal is also that field set by an assignment": Case(
        "`HttpOnly: false` in a bigger `http.Cookie` literal in both invalid examples, `HttpOnly: true` in the valid "
        "ones: the element by its key and value in any literal, whatever fields stand beside it, and the same field "
        "set by an assignment (`c.HttpOnly = false`); not reading it, and not setting it to `true`.",
        "go",
        ["func login(w http.ResponseWriter) {\n\tc := &http.Cookie{Name: \"sid\", HttpOnly: false}\n"
         "\thttp.SetCookie(w, c)\n}",
         "func remember(w http.ResponseWriter, v string) {\n"
         "\thttp.SetCookie(w, &http.Cookie{Name: \"me\", Value: v, HttpOnly: false})\n}"],
        ["func login(w http.ResponseWriter) {\n\tc := &http.Cookie{Name: \"sid\", HttpOnly: true}\n"
         "\thttp.SetCookie(w, c)\n}",
         "func remember(w http.ResponseWriter, v string) {\n"
         "\thttp.SetCookie(w, &http.Cookie{Name: \"me\", Value: v, HttpOnly: true})\n}"],
        ["func relax(c *http.Cookie) {\n\tc.HttpOnly = false\n}",
         "var c = http.Cookie{HttpOnly: false, Secure: true}"],
        ["func harden(c *http.Cookie) {\n\tc.HttpOnly = true\n}",
         "func check(c *http.Cookie) {\n\tif !c.HttpOnly {\n\t\twarn()\n\t}\n}",
         "var c = &http.Cookie{Name: \"x\", HttpOnly: true}"],
    ),
    "a name of the request's list, in the context the valid examples use it outside": Case(
        "\"no strlen() or wcslen() in a for loop's condition\" with `strlen` in both conditions and the valid "
        "examples calling it before the loop: the call by the request's whole list of names (`^(strlen|wcslen)$`) "
        "inside the condition, though the valid examples write `strlen` too (outside it).",
        "c",
        ["void up(char *s) {\n    for (size_t i = 0; i < strlen(s); i++) s[i] = toupper(s[i]);\n}",
         "int count(const char *t) {\n    int c = 0;\n    for (size_t j = 0; strlen(t) > j; j++) c += t[j] == ' ';\n"
         "    return c;\n}"],
        ["void up(char *s) {\n    size_t n = strlen(s);\n    for (size_t i = 0; i < n; i++) s[i] = toupper(s[i]);\n}",
         "int count(const char *t) {\n    int c = 0;\n"
         "    for (size_t j = 0, m = strlen(t); m > j; j++) c += t[j] == ' ';\n    return c;\n}"],
        ["void w(wchar_t *w) {\n    for (int k = 0; k < wcslen(w); k++) put(w[k]);\n}",
         "void f(char *s) {\n    for (int i = 0; i + 1 < strlen(s); i++) g(s[i]);\n}"],
        ["void w(wchar_t *w) {\n    size_t n = wcslen(w);\n    for (size_t k = 0; k < n; k++) put(w[k]);\n}",
         "void t(char *b) {\n    while (strlen(b) > 0) b[strlen(b) - 1] = 0;\n}"],
        request="no strlen() or wcslen() in a for loop's condition, compute the length once before the loop",
    ),
    "a call written with no arguments where every valid one passes some, by its name": Case(
        "`preconditionFailure()` beside `preconditionFailure(\"why\")`: the call by its name with an empty list "
        "(`has` the `value_arguments`, `regex: ^\\(\\s*\\)$`) also flags it qualified by its module and spaced; "
        "the pattern `preconditionFailure()`, ranked first, let `Swift.preconditionFailure()` through.",
        "swift",
        ["func load(_ name: String) -> Data {\n    guard let d = cache[name] else { preconditionFailure() }\n"
         "    return d\n}",
         "override func viewDidLoad() {\n    super.viewDidLoad()\n    if table == nil {\n"
         "        preconditionFailure()\n    }\n}"],
        ["func load(_ name: String) -> Data {\n"
         "    guard let d = cache[name] else { preconditionFailure(\"no \\(name) in cache\") }\n    return d\n}",
         "override func viewDidLoad() {\n    super.viewDidLoad()\n    if table == nil {\n"
         "        preconditionFailure(\"table outlet not connected\")\n    }\n}"],
        ["let x = items.first ?? Swift.preconditionFailure()", "func f() -> Int {\n    preconditionFailure( )\n}"],
        ["preconditionFailure(reason)", "func myPreconditionFailure() {}", "checkPreconditionFailure()"],
    ),
    "a marker annotation is also the same name with an empty argument list": Case(
        "`@Deprecated` and `@Beta` bare beside the same names given a reason: the marker annotations by name, and "
        "the same names written with empty parentheses (`@Deprecated()`, an `annotation` whose arguments are "
        "`()`), which say as little; not those given an argument.",
        "java",
        ["class Api {\n  @Deprecated\n  public void send(String s) {}\n}",
         "public class Store {\n  @Beta\n  @Override\n  public int size() { return 0; }\n}"],
        ["class Api {\n  @Deprecated(since = \"2.1\")\n  public void send(String s) {}\n}",
         "public class Store {\n  @Beta(\"until 3.0\")\n  @Override\n  public int size() { return 0; }\n}"],
        ["class A {\n  @Deprecated()\n  void a() {}\n}", "@com.google.common.annotations.Beta\nclass B {}"],
        ["class C {\n  @Deprecated(since = \"1.0\")\n  void c() {}\n}",
         "class D {\n  @Override\n  public String toString() { return \"d\"; }\n}",
         "class E {\n  @Beta(value = \"x\")\n  void e() {}\n}"],
    ),
    "code inside the construct the request names, not anywhere": Case(
        "\"in an except block, never return None\" with the valid examples re-raising: the `return None` inside an "
        "`except_clause` (its body), as the request says, not every `return None`, which a function may well end "
        "with.",
        "python",
        ["def port(raw):\n    try:\n        return int(raw)\n    except ValueError:\n        return None",
         "def user(db, uid):\n    try:\n        return db[uid]\n    except KeyError:\n        log(uid)\n"
         "        return None"],
        ["def port(raw):\n    try:\n        return int(raw)\n    except ValueError:\n        raise",
         "def user(db, uid):\n    try:\n        return db[uid]\n    except KeyError:\n        log(uid)\n        raise"],
        ["def read(p):\n    try:\n        return open(p).read()\n    except (OSError, UnicodeError) as e:\n"
         "        warn(e)\n        return None"],
        ["def first(xs):\n    if not xs:\n        return None\n    return xs[0]", "def nothing():\n    return None"],
        request="in an except block, never return None, let the error propagate",
    ),
    "a call the request names in a loop's condition, not in its body or its initializer": Case(
        "\"don't call utf8len in a loop condition\", the function named as a plain word, the valid examples calling "
        "it once before the loop: the call by its name inside the `condition` of any loop (`field: condition`), as "
        "the request says, so a `while` and a `do` too and whatever it is compared with; not in a loop's "
        "initializer or body, nor an `if`'s condition, and not the comparison `$A < utf8len($$$ARGS)` the "
        "examples happen to write.",
        "c",
        ["int cols(const char *s) {\n    int n = 0;\n    for (int i = 0; i < utf8len(s); i++)\n"
         "        n += width(s, i);\n    return n;\n}",
         "void pad(char *s) {\n    size_t i = 0;\n    for (i = 0; i < utf8len(s); ++i) {\n        fix(s, i);\n"
         "    }\n}"],
        ["int cols(const char *s) {\n    int n = 0;\n    int len = utf8len(s);\n    for (int i = 0; i < len; i++)\n"
         "        n += width(s, i);\n    return n;\n}",
         "void pad(char *s) {\n    size_t i = 0, len = utf8len(s);\n    for (i = 0; i < len; ++i) {\n"
         "        fix(s, i);\n    }\n}"],
        ["void f(const char *s) {\n    size_t k = 0;\n    while (k < utf8len(s) && s[k] != ' ')\n        k++;\n}",
         "void g(const char *s) {\n    size_t k = 0;\n    do {\n        k++;\n    } while (utf8len(s) > k);\n}",
         "void h(char **v) {\n    for (size_t p = 0; utf8len(v[1]) >= p; p++)\n        put(v[1], p);\n}"],
        ["void f(const char *s) {\n    for (size_t i = 0, n = utf8len(s); i < n; i++)\n        put(s, i);\n}",
         "size_t total(char **w, int c) {\n    size_t t = 0;\n    for (int i = 0; i < c; i++)\n"
         "        t += utf8len(w[i]);\n    return t;\n}",
         "int check(const char *s) {\n    if (utf8len(s) > 80)\n        return -1;\n    return 0;\n}"],
        request="don't call utf8len in a loop condition, it walks the whole string each time; compute the length once",
    ),
    "a near miss told apart by a field every valid match fills, whatever it holds": Case(
        "\"re-raise inside an except clause with from\", the valid examples chaining `from exc` and `from None`: "
        "`raise $A` inside the `except_clause` the request names with `not: has: {field: cause}`, whatever the "
        "cause is; not a bare `raise`, a `raise` outside an except, nor one that gives a cause.",
        "python",
        ["def read_config(path):\n    try:\n        return toml.load(path)\n    except OSError:\n"
         "        raise ConfigMissing(path)",
         "def charge(card):\n    try:\n        gateway.charge(card)\n    except GatewayError as exc:\n"
         "        audit(card)\n        raise PaymentFailed(card.id)"],
        ["def read_config(path):\n    try:\n        return toml.load(path)\n    except OSError as exc:\n"
         "        raise ConfigMissing(path) from exc",
         "def charge(card):\n    try:\n        gateway.charge(card)\n    except GatewayError:\n        audit(card)\n"
         "        raise PaymentFailed(card.id) from None"],
        ["try:\n    x = parse(s)\nexcept ValueError:\n    if strict:\n        raise BadInput",
         "async def get(k):\n    try:\n        return await store.get(k)\n    except KeyError as e:\n"
         "        raise NotFound(k, reason=str(e))"],
        ["try:\n    x = parse(s)\nexcept ValueError:\n    raise",
         "def check(v):\n    if v < 0:\n        raise ValueError(v)",
         "try:\n    x = parse(s)\nexcept ValueError as e:\n    raise BadInput(s) from e"],
        request="when you re-raise inside an except clause, chain it with from so the original error is kept",
    ),
    "a call whose result is dropped: the call as a statement of its own": Case(
        "`reload(...)` made as a statement in the invalid examples, its promise awaited or kept in the valid ones: "
        "the call `inside: {kind: expression_statement}` (its parent, no `stopBy`), so in an `if` or a loop too; "
        "not the call assigned, returned, awaited or passed on.",
        "javascript",
        ["function refresh() {\n  reload(cache);\n  render();\n}",
         "button.onclick = () => {\n  reload(store);\n};"],
        ["async function refresh() {\n  await reload(cache);\n  render();\n}",
         "button.onclick = () => {\n  pending.push(reload(store));\n};"],
        ["if (stale) reload(db);",
         "for (const s of stores) {\n  reload(s);\n}",
         "reload(a, { force: true });"],
        ["const p = reload(db);",
         "function f() {\n  return reload(db);\n}",
         "async function g() {\n  await reload(db);\n}",
         "reloadAll();",
         "jobs.push(reload(db));"],
        request="never call reload and drop the promise it returns; await it or keep it",
    ),
    "code inside the construct the request names by its kind's first word": Case(
        "\"don't call .unwrap() inside closures\": the `unwrap` the request names, inside a `closure_expression` "
        "(\"closures\" is that kind's first word), as the request says; not an `unwrap()` outside any closure.",
        "rust",
        ["let ids: Vec<u32> = lines.iter().map(|l| l.parse().unwrap()).collect();",
         "fn fill(items: &[Item], sink: &mut Vec<u8>) {\n    items.iter().for_each(|it| {\n"
         "        let v = it.value().unwrap();\n        sink.push(v);\n    });\n}"],
        ["let ids: Vec<u32> = lines.iter().map(|l| l.parse()).collect::<Result<_, _>>()?;",
         "fn fill(items: &[Item], sink: &mut Vec<u8>) {\n    items.iter().for_each(|it| {\n"
         "        if let Some(v) = it.value() {\n            sink.push(v);\n        }\n    });\n}"],
        ["fn f(v: &[&str]) -> Vec<i32> {\n    v.iter().map(|s| s.parse::<i32>().unwrap()).collect()\n}",
         "let n = opt.map(|x| x.checked_add(1).unwrap());"],
        ["fn main() {\n    let cfg = load().unwrap();\n}",
         "let v = x.unwrap_or(0);",
         "let n = opt.map(|x| x + 1);"],
        request="don't call .unwrap() inside closures, an error there panics deep in an iterator chain",
    ),
    "code inside the declaration the request names by its annotation": Case(
        "\"no runBlocking in a @Composable\", the valid examples calling it in plain functions beside their "
        "composables: the call inside a `function_declaration` whose modifiers hold `@Composable` (qualified too), "
        "not in a plain function or one annotated `@Test`.",
        "kotlin",
        ["@Composable\nfun Profile(repo: Repo) {\n    runBlocking { repo.load() }\n    Text(repo.name)\n}",
         "@Composable\nfun Feed(api: Api) {\n    List(runBlocking { api.items() })\n}"],
        ["@Composable\nfun Profile(repo: Repo) {\n    LaunchedEffect(repo) { repo.load() }\n}\n\n"
         "fun main() = runBlocking { start() }",
         "@Composable\nfun Feed(api: Api) {\n    List(remember { api.cached() })\n}\n\n"
         "fun warm(api: Api) = runBlocking { api.items() }"],
        ["@Composable\nfun Header(vm: Vm) {\n    if (vm.ready) {\n        runBlocking { vm.refresh() }\n    }\n}",
         "@androidx.compose.runtime.Composable\nfun Footer() {\n    val t = runBlocking(Dispatchers.IO) { read() }\n}"],
        ["fun load() = runBlocking { fetch() }",
         "@Composable\nfun Header(vm: Vm) {\n    LaunchedEffect(vm) { vm.refresh() }\n}",
         "@Test\nfun loads() {\n    runBlocking { repo.load() }\n}"],
        request="no runBlocking in a @Composable, launch from a LaunchedEffect instead",
    ),
    "code not inside the call the request says to wrap it in, by that call's name": Case(
        "\"always wrap db.query in transaction { }\", the valid examples calling it in `transaction { }` and "
        "`transactionRead { }` (Kotlin: no field names the callee): the query `not: inside` a call named so, by "
        "its first child, not outside any call at all, so a query in a `forEach { }` is flagged too.",
        "kotlin",
        ["fun save(u: User) {\n    db.query(\"insert\", u)\n}",
         "fun load(id: Int) = db.query(\"select\", id).first()"],
        ["fun save(u: User) {\n    transaction {\n        db.query(\"insert\", u)\n    }\n}",
         "fun load(id: Int) = transactionRead { db.query(\"select\", id) }.first()"],
        ["fun all(ids: List<Int>) {\n    ids.forEach { db.query(\"x\", it) }\n}",
         "fun drop() {\n    db.query(\"delete\")\n}"],
        ["fun one() {\n    transaction { db.query(\"y\") }\n}",
         "fun two() = transactionRead { listOf(db.query(\"z\")) }",
         "fun three() = transaction { db.query(\"k\").first() }"],
        request="always wrap db.query in transaction { }, a query outside one runs in autocommit",
    ),
    "code placed in the loop the request names goes before code outside it": Case(
        "\"no s = s .. x inside a loop\" with each invalid example declaring `local p = \"\"` before its loop and the "
        "valid ones a table: `$A = $A .. $B` inside any loop, as the request says, not the empty-string declaration "
        "outside the loop, which separates the examples too but is where the code happened to start.",
        "lua",
        ["local path = \"\"\nfor _, seg in ipairs(segs) do\n  path = path .. \"/\" .. seg\nend",
         "local msg = \"\"\nwhile #queue > 0 do\n  msg = msg .. table.remove(queue)\nend"],
        ["local t = {}\nfor _, seg in ipairs(segs) do\n  t[#t + 1] = seg\nend\n"
         "local path = \"/\" .. table.concat(t, \"/\")",
         "local msg = {}\nwhile #queue > 0 do\n  msg[#msg + 1] = table.remove(queue)\nend"],
        ["for i = 1, n do\n  acc = acc .. tostring(i)\nend", "repeat\n  line = line .. read()\nuntil done()"],
        ["local s = \"\"", "name = name .. \"!\"", "for i = 1, 3 do\n  local x = a .. b\nend"],
        request="no string concatenation s = s .. x inside a loop, put the pieces in a table and table.concat it",
    ),
    "a JSX attribute by its name when the values the examples pass differ": Case(
        "`style={{ color: ... }}` in both invalid examples with different values: the attribute named `style`, "
        "whatever its value (`jsx_attribute` with `^style$`), not the element holding `style` and the `color` "
        "both values happen to set, nor the object pattern `{ color: $A }`.",
        "tsx",
        ["const Dot = () => <div style={{ color: \"red\" }} />;",
         "export function Tag({ c }: Props) {\n  return <hr className=\"rule\" style={{ color: c }} />;\n}"],
        ["const Dot = () => <div className=\"dot-red\" />;",
         "export function Tag({ c }: Props) {\n  return <hr className=\"rule\" />;\n}"],
        ["const Box = () => <span style={styles.box} />;",
         "const L = () => <a href=\"/\" style={{ margin: 0 }}>home</a>;"],
        ["const Box = () => <span className=\"box\" />;", "const style = { color: \"red\" };",
         "const B = () => <Button styleName=\"x\" />;"],
        request="no inline style props in components, use class names",
    ),
    "a construct lacking what each valid example adds, whatever it adds": Case(
        "Each valid example adds a different statement to the same `catch (SQLException e)` (one rolls back, one "
        "rethrows): the catch with `not: has: {any: [the call by its name, a throw_statement], stopBy: end}`, "
        "not a rule that needs both, nor none at all; the parameter's name `e` is the examples' choice, not the point.",
        "java",
        ["class Repo {\n    void save(Row r) {\n        try {\n            conn.insert(r);\n"
         "        } catch (SQLException e) {\n        }\n    }\n}",
         "class Repo {\n    Row load(long id) {\n        try {\n            return conn.find(id);\n"
         "        } catch (SQLException e) {\n            System.out.println(e);\n            return null;\n"
         "        }\n    }\n}"],
        ["class Repo {\n    void save(Row r) {\n        try {\n            conn.insert(r);\n"
         "        } catch (SQLException e) {\n            conn.rollback();\n        }\n    }\n}",
         "class Repo {\n    Row load(long id) {\n        try {\n            return conn.find(id);\n"
         "        } catch (SQLException e) {\n            throw new DataError(e);\n        }\n    }\n}"],
        ["class A {\n    int n() {\n        try { return db.count(); } catch (SQLException e) { return -1; }\n"
         "    }\n}",
         "class B {\n    void m() {\n        try { db.run(); } catch (SQLException ex) { conn.close(); }\n"
         "    }\n}"],
        ["class C {\n    void m() {\n        try { db.run(); } catch (SQLException e) {\n"
         "            conn.rollback();\n            audit(e);\n        }\n    }\n}",
         "class D {\n    void m() {\n        try { db.run(); } catch (SQLException ex) { throw new Oops(ex); }\n"
         "    }\n}",
         "class E {\n    void m() {\n        try { read(); } catch (IOException e) { }\n    }\n}"],
        request="a catch of SQLException must roll back the transaction or rethrow",
    ),
    "a call by the names the request writes, not the argument both examples happen to pass": Case(
        "the request names os.popen and os.system; both examples pass the same command, which code elsewhere "
        "does not: `os.$A(\"ls -l \" + path)` keeps it, an author says the calls",
        "python",
        ["out = os.popen(\"ls -l \" + path).read()", "os.system(\"ls -l \" + path)"],
        ["out = subprocess.run([\"ls\", \"-l\", path], capture_output=True).stdout",
         "subprocess.run([\"ls\", \"-l\", path], check=True)"],
        ["os.system(cmd)", "usage = os.popen(f\"df {mount}\").read()"],
        ["subprocess.run([\"df\", mount])", "home = os.getenv(\"HOME\")", "p = os.path.join(root, name)"],
        request="os.popen and os.system run a shell, use subprocess.run with a list",
    ),
    "a call the request writes with its arguments is that call with as many arguments": Case(
        "the request writes `format(n)`: one argument, the number; `format(amount, '.2f')` formats it and is "
        "fine. The call by its name with any arguments flags that too; an author says the call with one argument "
        "(`has: {field: arguments, ...}`, `not: has: {nthChild: 2}`), whatever it is",
        "python",
        ["label = format(count)", "print('total', format(total))"],
        ["label = str(count)", "print('total', str(total))"],
        ["key = 'user:' + format(user.id)", "def size(rows):\n    return format(len(rows))"],
        ["price = format(amount, '.2f')", "s = format(value, ',')", "text = str(n)"],
        request="turn a number into text with str(n), not format(n)",
    ),
    "a method the request writes after a dot, with a call as its argument, however that call is qualified": Case(
        "the request writes `.collect(Collectors.toSet())`: `collect` on any stream, its one argument a `toSet()` "
        "call, imported bare or written with its whole package; not `toSet()` passed elsewhere (`groupingBy`), "
        "nor the fine `.collect(Collectors.toUnmodifiableSet())`",
        "java",
        ["Set<String> tags = posts.stream().map(Post::tag).collect(Collectors.toSet());",
         "return ids.stream().filter(this::live).collect(Collectors.toSet());"],
        ["Set<String> tags = posts.stream().map(Post::tag).collect(Collectors.toUnmodifiableSet());",
         "return ids.stream().filter(this::live).collect(Collectors.toUnmodifiableSet());"],
        ["var seen = events.stream()\n    .map(Event::id)\n    .collect(toSet());",
         "Set<Long> keys = rows.stream().map(Row::id).collect(java.util.stream.Collectors.toSet());"],
        ["var byTag = posts.stream().collect(Collectors.groupingBy(Post::tag, Collectors.toSet()));",
         "Set<Long> keys = rows.stream().map(Row::id).collect(Collectors.toUnmodifiableSet());"],
        request="our sets are immutable: .collect(Collectors.toUnmodifiableSet()), never .collect(Collectors.toSet())",
    ),
    "a construct holding a node of its own kind, in whichever part, also inside parentheses": Case(
        "`a if p else b if q else c` nests in the else part, `(m if r else n) if s else t` in the first, through "
        "parentheses; the valid examples write single conditionals: `conditional_expression` holding one directly, "
        "or through parentheses, not the text of either example, nor the deeper one in a comprehension.",
        "python",
        ["label = 'big' if n > 9 else 'mid' if n > 3 else 'small'",
         "mode = ('fast' if quick else 'safe') if enabled else 'off'"],
        ["label = 'big' if n > 9 else 'small'", "mode = 'fast' if quick else 'safe'"],
        ["def pick(a, b):\n    return a if a.ok else b if b.ok else None",
         "size = (1 if tiny else 2) if small else 3"],
        ["size = 1 if tiny else 2", "names = [p.name if p else '?' for p in people] if people else []",
         "w = (a or b) if c else d"],
    ),
    "a definition of a kind the valid examples also write, by the construct one of its fields holds": Case(
        "Both sides write C's `typedef`; the invalid ones declare a function pointer type: `type_definition` with "
        "`has: {field: declarator, kind: function_declarator}`, whatever the return and parameter types, not the "
        "names the examples chose nor the pointer declared outside a typedef.",
        "c",
        ["typedef void (*on_close)(struct conn *c);", "typedef int (*compare_fn)(const void *a, const void *b);"],
        ["typedef unsigned int flags_t;", "int (*compare)(const void *a, const void *b) = by_name;"],
        ["typedef size_t (*reader)(void *buf, size_t len, void *ctx);", "typedef void (*hook)(void);"],
        ["typedef long offset_t;", "typedef struct node node_t;", "void (*cb)(int) = on_event;"],
    ),
    "a call written without arguments, where ast-grep would match it with some, is said with none": Case(
        "`scores.reverse.first` and `posts.reverse.first`: Ruby's `first` without parentheses has no argument list "
        "of its own, so the pattern `$A.reverse.first` also flags `reverse.first(3)` (the top three); an author "
        "says the call with no more parts than written (`not: has: {nthChild: 3}`)",
        "ruby",
        ["top = scores.reverse.first", "def newest\n  posts.reverse.first\nend"],
        ["top = scores.last", "def newest\n  posts.last\nend"],
        ["best = ranking.reverse.first", "return events.reverse.first if events.any?"],
        ["top3 = scores.reverse.first(3)", "x = scores.last", "y = scores.first"],
    ),
    "a PHP assignment from a call on the same variable, the repeat said at each place": Case(
        "`$ids = array_unique($ids)`: the variable assigned is the call's first argument. ast-grep's rule parser "
        "reads `$A = array_unique($A1)` as no node kind and refuses it (`run -p` takes it), so the places "
        "apart with `has` at each are written beside the root's kind, `assignment_expression`; the call assigned "
        "to another variable is fine.",
        "php",
        ["<?php\n$ids = array_unique($ids);",
         "<?php\nfunction f($tags) {\n    $tags = array_unique($tags);\n}"],
        ["<?php\n$unique = array_unique($ids);",
         "<?php\nfunction f($tags) {\n    $all = array_unique($tags);\n}"],
        ["<?php\n$this->keys = array_unique($this->keys);", "<?php\n$cfg['ids'] = array_unique($cfg['ids']);"],
        ["<?php\n$keys = array_unique($other);", "<?php\n$a = array_unique($b, SORT_REGULAR);",
         "<?php\n$ids = array_values($ids);"],
    ),
    "a named call without the word it needs and with what the invalid calls share": Case(
        "'a required field added to a form needs a label': valid code also builds a Field without a label (one "
        "not required), so the need is the required one's: Field with required=True and without label, inside "
        "add_field (the prose's 'added' and 'field'); a required Field of a schema is another case.",
        "python",
        ["form.add_field(Field(\"email\", required=True))",
         "form.add_field(Field(\"age\", kind=int, required=True))"],
        ["form.add_field(Field(\"email\", required=True, label=\"E-mail\"))",
         "form.add_field(Field(\"age\", kind=int, required=False))"],
        ["signup.add_field(forms.Field(\"phone\", kind=str, required = True, help=\"mobile\"))",
         "def build(f):\n    f.add_field(\n        Field(\"zip\", required=True),\n    )"],
        ["signup.add_field(forms.Field(\"phone\", required=True, label=\"Phone\"))",
         "f.add_field(Field(\"nick\"))",
         "schema = Schema(Field(\"id\", required=True))",
         "f.add_field(Field(\"zip\", required=False))"],
        request="a required field added to a form needs a label",
    ),
    "a context told apart by the construct one of its fields holds, not by its punctuation": Case(
        "`@EnvironmentObject` on a property made in place (`= AppStore()`) beside one only declared and a "
        "`@StateObject` made the same way: inside a `property_declaration` whose `value` is a `call_expression`, "
        "whatever the call passes, not one holding the `()` the examples happen to write.",
        "swift",
        ["struct A: View {\n    @EnvironmentObject var store = AppStore()\n    var body: some View { Text(a) }\n}",
         "struct B: View {\n    @EnvironmentObject private var theme = Theme()\n}"],
        ["struct A: View {\n    @EnvironmentObject var store: AppStore\n    var body: some View { Text(a) }\n}",
         "struct B: View {\n    @StateObject private var theme = Theme()\n}"],
        ["struct C: View {\n    @EnvironmentObject var cart = Cart(items: [])\n}",
         "struct D: View {\n    @EnvironmentObject var auth = Auth.shared(scope: .app)\n}"],
        ["struct C: View {\n    @EnvironmentObject var cart: Cart\n}",
         "struct E: View {\n    @StateObject private var n = Counter(start: 1)\n}"],
    ),
}


def check_case(ws: Workspace, engine: Engine, case: Case) -> None:
    """The top candidate for the case's examples passes its check and gets its unseen snippets right."""
    result = suggest_rule(ws, engine, case.language, case.invalid, case.valid, request=case.request)
    assert result["success"], result.get("explanation")
    doc = dict(yamlio.load_one(str(result["candidates"][0]["yaml"])))
    assert case.check is None or case.check(doc), (case.why, doc)
    flags = cat.judge(engine, case.language, [cat.matching_body(doc)], [*case.bad, *case.good])[0]
    assert flags == [True] * len(case.bad) + [False] * len(case.good), (case.why, doc, flags)


@pytest.mark.parametrize("name", list(CASES))
def test_a_shape_an_author_would_write(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])
