"""A catalogue of realistic first drafts of rules, as an agent writes them from a developer's feedback, each with
the examples that say what was meant. `broken` drafts are wrong in one of the issue's families (a pattern read as
another node kind, `has` without `stopBy: end`, an unknown kind, an undefined metavariable in `fix`, `$X` for
`$$$X`, an unanchored regex, the wrong grammar); `causes` are the finding codes that name the right cause.
Correct-but-suspicious drafts (`broken=False`) must get nothing at warning level or above.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Draft:
    name: str
    language: str
    rule: str  # the YAML body after `id`/`language`
    invalid: list[str]
    valid: list[str] = field(default_factory=list)
    causes: tuple[str, ...] = ()  # finding codes that name the right cause (broken drafts)
    broken: bool = True

    def yaml(self) -> str:
        return f"id: {self.name}\nlanguage: {self.language}\nseverity: warning\nmessage: m\n{self.rule}"


MISREAD = ("pattern-never-matches", "example-not-matched")
STOPBY = ("example-not-matched",)
KIND = ("unknown-kind",)
METAVAR = ("undefined-metavariable",)
MULTI = ("example-not-matched",)
REGEX = ("example-matched",)
GRAMMAR = ("wrong-language", "example-not-matched")


def _go(body: str) -> str:
    return f"package main\n\nfunc main() {{\n{body}\n}}\n"


GO: list[Draft] = [
    Draft("go-no-println", "go", "rule:\n  pattern: fmt.Println($$$ARGS)\n",
          [_go('\tfmt.Println("x")')], [_go('\tlog.Info("x")')], MISREAD),
    Draft("go-no-os-exit", "go", "rule:\n  pattern: os.Exit($CODE)\n", [_go("\tos.Exit(1)")], [_go("\treturn")],
          MISREAD),
    Draft("go-no-log-fatal", "go", "rule:\n  pattern: log.Fatal($$$A)\n", [_go("\tlog.Fatal(err)")],
          [_go("\tlog.Print(err)")], MISREAD),
    Draft("go-no-time-sleep", "go", "rule:\n  pattern: time.Sleep($D)\n", [_go("\ttime.Sleep(time.Second)")],
          [_go("\ttime.Now()")], MISREAD),
    Draft("go-no-http-get", "go", "rule:\n  pattern: http.Get($URL)\n", [_go("\thttp.Get(u)")],
          [_go("\tclient.Do(req)")], MISREAD),
    Draft("go-no-errors-new", "go", "rule:\n  pattern: errors.New($MSG)\n", [_go('\terrors.New("boom")')],
          [_go('\tfmt.Errorf("boom: %w", err)')], MISREAD),
    Draft("go-no-ioutil", "go", "rule:\n  pattern: ioutil.ReadFile($P)\n", [_go("\tioutil.ReadFile(p)")],
          [_go("\tos.ReadFile(p)")], MISREAD),
    Draft("go-no-panic-in-handler", "go",
          "rule:\n  kind: function_declaration\n  has:\n    pattern: panic($$$)\n",
          ["package main\n\nfunc handle() {\n\tif bad {\n\t\tpanic(\"x\")\n\t}\n}\n"],
          ["package main\n\nfunc handle() error {\n\treturn nil\n}\n"], STOPBY),
    Draft("go-no-goroutine", "go", "rule:\n  kind: go_stmt\n", [_go("\tgo work()")], [_go("\twork()")], KIND),
    Draft("go-no-defer-in-loop", "go",
          "rule:\n  kind: defer_statement\n  inside:\n    kind: for_statement\n",
          [_go("\tfor _, f := range files {\n\t\tdefer f.Close()\n\t}")], [_go("\tdefer f.Close()")], STOPBY),
    Draft("go-println-fix", "go",
          "rule:\n  pattern:\n    context: 'func _() { fmt.Println($$$ARGS) }'\n    selector: call_expression\n"
          "fix: log.Info($$$ARG)\n", [_go('\tfmt.Println("x")')], [_go('\tlog.Info("x")')], METAVAR),
    Draft("go-no-printf-one-arg", "go",
          "rule:\n  pattern:\n    context: 'func _() { fmt.Printf($F) }'\n    selector: call_expression\n",
          [_go('\tfmt.Printf("%d", n)')], [_go('\tlog.Printf("%d", n)')], MULTI),
    Draft("go-no-json-marshal", "go", "rule:\n  pattern: json.Marshal($V)\n", [_go("\tb, _ := json.Marshal(v)")],
          [_go("\tb, err := enc.Encode(v)")], MISREAD),
    Draft("go-no-atoi", "go", "rule:\n  pattern: strconv.Atoi($S)\n", [_go("\tstrconv.Atoi(s)")],
          [_go("\tstrconv.ParseInt(s, 10, 64)")], MISREAD),
    Draft("go-no-ignored-error", "go", "rule:\n  kind: call_expr\n  regex: ^os\\.Remove\n",
          [_go("\tos.Remove(p)")], [_go("\tos.Getenv(p)")], KIND),
]

PYTHON: list[Draft] = [
    Draft("py-no-eval-in-function", "python", "rule:\n  kind: function_definition\n  has:\n    pattern: eval($$$)\n",
          ["def f(x):\n    return eval(x)\n"], ["def f(x):\n    return x\n"], STOPBY),
    Draft("py-no-print-args", "python", "rule:\n  pattern: print($MSG)\n", ['print("a", b)\n'], ["log(a)\n"], MULTI),
    Draft("py-no-eval-exec-regex", "python", "rule:\n  kind: identifier\n  regex: eval|exec\n",
          ["eval(x)\n"], ["cursor.execute(q)\n"], REGEX),
    Draft("py-no-shell-true", "python", "rule:\n  pattern: subprocess.call($CMD, shell=True)\n",
          ["subprocess.call(cmd, env=e, shell=True)\n"], ["subprocess.call(cmd)\n"], MULTI),
    Draft("py-no-verify-false", "python", "rule:\n  pattern: requests.get($URL, verify=False)\n",
          ["requests.get(url, timeout=5, verify=False)\n"], ["requests.get(url)\n"], MULTI),
    Draft("py-func-def-kind", "python", "rule:\n  kind: func_def\n  regex: ^def test\n",
          ["def test_x():\n    pass\n"], ["x = 1\n"], KIND),
    Draft("py-no-sleep-in-loop", "python", "rule:\n  pattern: time.sleep($S)\n  inside:\n    kind: for_statement\n",
          ["for i in x:\n    if i:\n        time.sleep(1)\n"], ["time.sleep(1)\n"], STOPBY),
    Draft("py-logger-fix", "python", "rule:\n  pattern: print($$$ARGS)\nfix: logger.info($$$ARG)\n",
          ['print("x")\n'], ['logger.info("x")\n'], METAVAR),
    Draft("py-no-assert-in-method", "python", "rule:\n  kind: class_definition\n  has:\n    kind: assert_statement\n",
          ["class A:\n    def f(self):\n        assert x\n"], ["class A:\n    pass\n"], STOPBY),
]

JAVASCRIPT: list[Draft] = [
    Draft("js-no-password-literal", "javascript", "rule:\n  pattern: 'password: $VALUE'\n",
          ['const c = {password: "hunter2"};\n'], ["const c = {user: 1};\n"], ("example-not-matched",)),
    Draft("js-no-console-log", "javascript", "rule:\n  pattern: console.log($MSG)\n",
          ['console.log("a", b);\n'], ["logger.info(a);\n"], MULTI),
    Draft("js-no-any-cast", "javascript", "rule:\n  pattern: $E as any\n", ["const x = y as any;\n"],
          ["const x = y;\n"], GRAMMAR),
    Draft("js-no-settimeout-string", "javascript", "rule:\n  pattern: setTimeout($CODE)\n",
          ['setTimeout("tick()", 10);\n'], ["requestAnimationFrame(tick);\n"], MULTI),
    Draft("js-arrow-kind", "javascript", "rule:\n  kind: arrow_func\n  has:\n    kind: await_expression\n"
          "    stopBy: end\n", ["const f = async () => { await g(); };\n"], ["const f = () => 1;\n"], KIND),
    Draft("js-no-debugger-in-fn", "javascript",
          "rule:\n  kind: function_declaration\n  has:\n    kind: debugger_statement\n",
          ["function f() {\n  if (x) {\n    debugger;\n  }\n}\n"], ["function f() {}\n"], STOPBY),
    Draft("js-no-alert-regex", "javascript", "rule:\n  kind: identifier\n  regex: alert|confirm\n",
          ["alert(1);\n"], ["alerting(1);\n"], REGEX),
    Draft("js-no-innerhtml-fix", "javascript", "rule:\n  pattern: $EL.innerHTML = $V\nfix: $EL.textContent = $VAL\n",
          ["el.innerHTML = x;\n"], ["el.textContent = x;\n"], METAVAR),
    Draft("js-no-await-in-loop", "javascript", "rule:\n  kind: await_expression\n  inside:\n    kind: for_statement\n",
          ["async function f() {\n  for (const x of xs) {\n    await g(x);\n  }\n}\n"],
          ["async function f() {\n  await g();\n}\n"], STOPBY),
]

TYPESCRIPT: list[Draft] = [
    Draft("ts-no-any-param", "typescript", "rule:\n  pattern: '$NAME: any'\n",
          ["function f(x: any) {}\n"], ["function f(x: string) {}\n"], ("example-not-matched",)),
    Draft("ts-no-console-error", "typescript", "rule:\n  pattern: console.error($E)\n",
          ["console.error('a', e);\n"], ["logger.error(e);\n"], MULTI),
    Draft("ts-no-jsx-onclick", "typescript", "rule:\n  pattern: <button onClick={$F}>$$$</button>\n",
          ["const b = <button onClick={go}>Go</button>;\n"], ["const b = <a href='x'>Go</a>;\n"], GRAMMAR),
    Draft("ts-no-nonnull-in-class", "typescript",
          "rule:\n  kind: class_declaration\n  has:\n    kind: non_null_expression\n",
          ["class A {\n  f() {\n    return this.x!;\n  }\n}\n"], ["class A {}\n"], STOPBY),
    Draft("ts-interface-kind", "typescript", "rule:\n  kind: interface_decl\n  regex: ^interface I\n",
          ["interface IUser { name: string }\n"], ["type User = { name: string };\n"], KIND),
    Draft("ts-ts-ignore-regex", "typescript", "rule:\n  kind: comment\n  regex: ts-ignore|ts-nocheck\n",
          ["// @ts-ignore\nconst x = 1;\n"], ["// see ts-ignored-files.md\nconst x = 1;\n"], REGEX),
]

JAVA: list[Draft] = [
    Draft("java-no-field-injection", "java", "rule:\n  pattern: '@Autowired private $T $N;'\n",
          ["class A {\n  @Autowired private Repo repo;\n}\n"], ["class A {\n  private final Repo repo;\n}\n"],
          ("example-not-matched",)),
    Draft("java-no-sysexit-in-method", "java",
          "rule:\n  kind: method_declaration\n  has:\n    pattern: System.exit($C)\n",
          ["class A {\n  void f() {\n    if (x) {\n      System.exit(1);\n    }\n  }\n}\n"],
          ["class A {\n  void f() {}\n}\n"], STOPBY),
    Draft("java-printf-args", "java", "rule:\n  pattern: System.out.printf($F)\n",
          ['class A { void f() { System.out.printf("%d", n); } }\n'], ["class A { void f() { log(n); } }\n"], MULTI),
    Draft("java-catch-kind", "java", "rule:\n  kind: catch_clse\n  not:\n    has:\n      kind: throw_statement\n"
          "      stopBy: end\n", ["class A { void f() { try { g(); } catch (E e) { } } }\n"],
          ["class A { void f() { g(); } }\n"], KIND),
    Draft("java-no-printstacktrace-fix", "java",
          "rule:\n  pattern: $E.printStackTrace()\nfix: log.error(\"failed\", $EX)\n",
          ["class A { void f() { e.printStackTrace(); } }\n"], ["class A { void f() { log.error(e); } }\n"], METAVAR),
    Draft("java-thread-sleep-in-loop", "java",
          "rule:\n  pattern: Thread.sleep($MS)\n  inside:\n    kind: for_statement\n",
          ["class A { void f() { for (;;) { if (x) { Thread.sleep(10); } } } }\n"],
          ["class A { void f() { Thread.sleep(10); } }\n"], STOPBY),
]

CSHARP: list[Draft] = [
    Draft("cs-no-async-void", "csharp", "rule:\n  pattern: public async void $M($$$P)\n",
          ["class A {\n  public async void Run(int x) { await Task.Delay(1); }\n}\n"],
          ["class A {\n  public async Task Run(int x) { await Task.Delay(1); }\n}\n"], ("example-not-matched",)),
    Draft("cs-no-allow-anonymous", "csharp", "rule:\n  pattern: '[AllowAnonymous]'\n",
          ["class C {\n  [AllowAnonymous]\n  public void Get() {}\n}\n"], ["class C {\n  public void Get() {}\n}\n"],
          ("example-not-matched",)),
    Draft("cs-console-writeline-args", "csharp", "rule:\n  pattern: Console.WriteLine($X)\n",
          ['class A { void F() { Console.WriteLine("{0}", x); } }\n'], ["class A { void F() { Log(x); } }\n"], MULTI),
    Draft("cs-no-thread-sleep-in-method", "csharp",
          "rule:\n  kind: method_declaration\n  has:\n    pattern: Thread.Sleep($T)\n",
          ["class A { void F() { if (x) { Thread.Sleep(10); } } }\n"], ["class A { void F() { } }\n"], STOPBY),
    Draft("cs-no-swallowed-exception", "csharp",
          "rule:\n  kind: catch_clause\n  has:\n    kind: return_statement\n",
          ["class A { int F() { try { return G(); } catch (E e) { if (x) { return 0; } } return 1; } }\n"],
          ["class A { int F() { return G(); } }\n"], STOPBY),
    Draft("cs-using-kind", "csharp", "rule:\n  kind: using_directiv\n  regex: System.Web\n",
          ["using System.Web;\nclass A {}\n"], ["class A {}\n"], KIND),
]

C_LANG: list[Draft] = [
    Draft("c-no-gets", "c", "rule:\n  pattern: gets($BUF)\n", ["void f(void) {\n  char b[8];\n  gets(b);\n}\n"],
          ["void f(void) {\n  fgets(b, 8, stdin);\n}\n"], ("example-not-matched",)),
    Draft("c-no-strcpy-in-fn", "c", "rule:\n  kind: function_definition\n  has:\n    pattern: strcpy($D, $S)\n",
          ["void f(char *d) {\n  if (d) {\n    strcpy(d, s);\n  }\n}\n"], ["void f(void) {}\n"], STOPBY),
    Draft("c-printf-args", "c", "rule:\n  pattern: printf($FMT)\n", ['void f(void) {\n  printf("%d", n);\n}\n'],
          ["void f(void) {\n  puts(s);\n}\n"], MULTI),
    Draft("c-no-goto-kind", "c", "rule:\n  kind: goto_stmt\n", ["void f(void) {\n  goto end;\nend:;\n}\n"],
          ["void f(void) {}\n"], KIND),
    Draft("c-no-sprintf", "c", "rule:\n  pattern: sprintf($BUF, $FMT)\n",
          ['void f(void) {\n  sprintf(b, "%d", n);\n}\n'], ["void f(void) {\n  snprintf(b, 8, s);\n}\n"], MULTI),
]

RUST: list[Draft] = [
    Draft("rs-no-unwrap-in-fn", "rust", "rule:\n  kind: function_item\n  has:\n    pattern: $X.unwrap()\n",
          ["fn f() {\n    if x {\n        let v = y.unwrap();\n    }\n}\n"], ["fn f() {}\n"], STOPBY),
    Draft("rs-println-args", "rust", "rule:\n  pattern: dbg($X)\n", ["fn f() {\n    dbg(a, b);\n}\n"],
          ["fn f() {\n    log(a);\n}\n"], MULTI),
    Draft("rs-unsafe-kind", "rust", "rule:\n  kind: unsafe_blk\n", ["fn f() {\n    unsafe { g() }\n}\n"],
          ["fn f() {\n    g()\n}\n"], KIND),
    Draft("rs-expect-fix", "rust", "rule:\n  pattern: $X.expect($MSG)\nfix: $X.context($M)?\n",
          ['fn f() {\n    let v = y.expect("no");\n}\n'], ["fn f() {\n    let v = y?;\n}\n"], METAVAR),
    Draft("rs-no-clone-in-loop", "rust", "rule:\n  pattern: $X.clone()\n  inside:\n    kind: for_expression\n",
          ["fn f() {\n    for x in xs {\n        if a {\n            g(x.clone());\n        }\n    }\n}\n"],
          ["fn f() {\n    g(x.clone());\n}\n"], STOPBY),
]

KOTLIN_RUBY_PHP: list[Draft] = [
    Draft("kt-no-println-in-fun", "kotlin",
          "rule:\n  kind: function_declaration\n  has:\n    pattern: println($X)\n",
          ["fun f() {\n    if (x) {\n        println(1)\n    }\n}\n"], ["fun f() {}\n"], STOPBY),
    Draft("rb-no-puts-args", "ruby", "rule:\n  pattern: puts($X)\n", ["puts(a, b)\n"], ["log(a)\n"], MULTI),
    Draft("php-no-eval-regex", "php", "rule:\n  kind: name\n  regex: eval|exec\n",
          ["<?php\neval($x);\n"], ["<?php\nexecute($x);\n"], REGEX),
]

# Drafts that look suspicious but are right: none may get a finding at warning level or above.
CORRECT: list[Draft] = [
    Draft("ok-golang-alias", "golang", "rule:\n  pattern: $X == nil\n", [_go("\tif err == nil {\n\t}")],
          [_go("\tif err != nil {\n\t}")], broken=False),
    Draft("ok-go-context", "go", "rule:\n  pattern:\n    context: 'func _() { fmt.Println($$$A) }'\n"
          "    selector: call_expression\n", [_go('\tfmt.Println("x")')], [_go('\tlog.Info("x")')], broken=False),
    Draft("ok-java-bare-method-call", "java", "rule:\n  pattern: System.out.println($A)\n",
          ['class A { void f() { System.out.println("x"); } }\n'], ["class A { void f() { log(1); } }\n"],
          broken=False),
    Draft("ok-java-method-decl", "java", "rule:\n  pattern: public void $M() { $$$ }\n",
          ["class A {\n  public void run() { go(); }\n}\n"], ["class A {\n  private void run() { go(); }\n}\n"],
          broken=False),
    Draft("ok-has-direct-child", "python",
          "rule:\n  kind: argument_list\n  has:\n    kind: keyword_argument\n    regex: ^shell=True$\n",
          ["subprocess.call(cmd, shell=True)\n"], ["subprocess.call(cmd)\n"], broken=False),
    Draft("ok-py-print", "python", "rule:\n  pattern: print($$$A)\n", ["print(1, 2)\n"], ["log(1)\n"], broken=False),
    Draft("ok-py-anchored-regex", "python", "rule:\n  kind: identifier\n  regex: ^(eval|exec)$\n",
          ["eval(x)\n"], ["cursor.execute(q)\n"], broken=False),
    Draft("ok-js-console", "javascript", "rule:\n  pattern: console.log($$$)\n", ["console.log(1, 2);\n"],
          ["logger.info(1);\n"], broken=False),
    Draft("ok-js-object-pair-context", "javascript",
          "rule:\n  pattern:\n    context: '({password: $V})'\n    selector: pair\n",
          ['const c = {password: "x"};\n'], ["const c = {user: 1};\n"], broken=False),
    Draft("ok-ts-any-kind", "typescript",
          "rule:\n  kind: type_annotation\n  has:\n    kind: predefined_type\n    regex: ^any$\n",
          ["function f(x: any) {}\n"], ["function f(x: string) {}\n"], broken=False),
    Draft("ok-tsx-jsx", "tsx", "rule:\n  pattern: <button onClick={$F}>$$$</button>\n",
          ["const b = <button onClick={go}>Go</button>;\n"], ["const b = <a href='x'>Go</a>;\n"], broken=False),
    Draft("ok-cs-attribute-kind", "csharp", "rule:\n  kind: attribute\n  regex: ^AllowAnonymous$\n",
          ["class C {\n  [AllowAnonymous]\n  public void Get() {}\n}\n"], ["class C {\n  public void Get() {}\n}\n"],
          broken=False),
    Draft("ok-c-gets-call", "c", "rule:\n  kind: call_expression\n  has:\n    kind: identifier\n    regex: ^gets$\n",
          ["void f(void) {\n  gets(b);\n}\n"], ["void f(void) {\n  fgets(b, 8, stdin);\n}\n"], broken=False),
    Draft("ok-rust-unwrap", "rust", "rule:\n  pattern: $X.unwrap()\n", ["fn f() {\n    let v = y.unwrap();\n}\n"],
          ["fn f() {\n    let v = y?;\n}\n"], broken=False),
    Draft("ok-go-has-stopby", "go", "rule:\n  kind: function_declaration\n  has:\n    kind: go_statement\n"
          "    stopBy: end\n", ["package main\n\nfunc f() {\n\tif x {\n\t\tgo g()\n\t}\n}\n"],
          ["package main\n\nfunc f() {}\n"], broken=False),
    Draft("ok-go-inside-stopby", "go", "rule:\n  kind: defer_statement\n  inside:\n    kind: for_statement\n"
          "    stopBy: end\n", [_go("\tfor _, f := range fs {\n\t\tdefer f.Close()\n\t}")], [_go("\tdefer f.Close()")],
          broken=False),
    Draft("ok-not-inside", "python",
          "rule:\n  pattern: print($$$)\n  not:\n    inside:\n      kind: function_definition\n"
          "      stopBy: end\n", ["print(1)\n"], ["def f():\n    print(1)\n"], broken=False),
    Draft("ok-any-branches", "javascript",
          "rule:\n  any:\n    - pattern: eval($X)\n    - pattern: new Function($$$)\n",
          ["eval(s);\n"], ["JSON.parse(s);\n"], broken=False),
    Draft("ok-java-field-context", "java",
          "rule:\n  pattern:\n    context: 'class _ { @Autowired private $T $N; }'\n    selector: field_declaration\n",
          ["class A {\n  @Autowired private Repo repo;\n}\n"], ["class A {\n  private final Repo repo;\n}\n"],
          broken=False),
    Draft("ok-kotlin-println", "kotlin", "rule:\n  pattern: println($$$)\n", ["fun f() {\n    println(1)\n}\n"],
          ["fun f() {\n    log(1)\n}\n"], broken=False),
    Draft("ok-ruby-puts", "ruby", "rule:\n  pattern: puts($$$)\n", ["puts(a, b)\n"], ["log(a)\n"], broken=False),
    Draft("ok-constraints-regex", "python",
          "rule:\n  pattern: $F($$$)\nconstraints:\n  F:\n    regex: ^(eval|exec)$\n", ["eval(x)\n"], ["run(x)\n"],
          broken=False),
]

BROKEN: list[Draft] = GO + PYTHON + JAVASCRIPT + TYPESCRIPT + JAVA + CSHARP + C_LANG + RUST + KOTLIN_RUBY_PHP
