"""suggest_rule writes the rule from the code the request names (requested.py, issue 29): every use of it, however it
is qualified, called or aliased, with the names the request lists beside it; and leaves a request alone whose named
code is only where the point is. Real ast-grep, real files in a temp workspace; each top candidate judged by plain
ast-grep on code the examples do not show."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import names as names_module
from tests.test_suggest_shapes import Case, check_case

# These tests are about the generaliser's own rules: no known rule is offered (conftest.ws, the marker).
pytestmark = pytest.mark.generaliser

CASES = {
    "a module's functions the request lists, wherever they are named": Case(
        "the examples show `asyncio.get_event_loop()`; the request lists `asyncio.ensure_future()` beside it: both, "
        "called or not (`get = asyncio.get_event_loop`), under a longer qualifier, not a bare function of that name",
        "python",
        ["loop = asyncio.get_event_loop()", "asyncio.get_event_loop().run_until_complete(main())"],
        ["loop = asyncio.get_running_loop()", "asyncio.run(main())"],
        ["fut = asyncio.ensure_future(fetch(url))", "get = asyncio.get_event_loop",
         "loop = aio.asyncio.get_event_loop()"],
        ["loop = get_event_loop()", "policy = asyncio.get_event_loop_policy()", "task = asyncio.create_task(job())"],
        request="asyncio.get_event_loop() and asyncio.ensure_future() are discouraged, use asyncio.get_running_loop() "
                "and asyncio.create_task()",
    ),
    "an object the request names, also reached through another object": Case(
        "`localStorage` shown as the object of its calls: also `window.localStorage`, `globalThis.localStorage`; not "
        "a name that only starts with it, nor the storage service",
        "typescript",
        ['localStorage.setItem("theme", mode);', 'const token = localStorage.getItem("token");'],
        ['storage.set("theme", mode);', 'const token = storage.get("token");'],
        ['window.localStorage.removeItem("token");', "const store = globalThis.localStorage;",
         "if (localStorage.length > 0) { localStorage.clear(); }"],
        ['const localStorageKey = "app:v2";', "storage.localStorageFallback = true;", "storage.clear();"],
        request="don't touch localStorage directly, go through the storage service",
    ),
    "calls the request names, fine where their result is used: flagged where it is dropped": Case(
        "`fputs` and `fgets` made as statements of their own, in a loop too; not where the result is compared, "
        "assigned, tested or returned",
        "c",
        ["void save(FILE *f, const char *line) {\n    fputs(line, f);\n}",
         "void skip(FILE *in) {\n    char buf[64];\n    fgets(buf, sizeof buf, in);\n}"],
        ["void save(FILE *f, const char *line) {\n    if (fputs(line, f) == EOF) perror(\"save\");\n}",
         "void skip(FILE *in) {\n    char buf[64];\n    char *got = fgets(buf, sizeof buf, in);\n"
         "    use(got);\n}"],
        ["void dump(FILE *out, char **lines, int n) {\n    for (int i = 0; i < n; i++)\n"
         "        fputs(lines[i], out);\n}",
         "static void header(FILE *f) {\n    char tmp[16];\n    fgets(tmp, 16, f);\n}"],
        ["int count(FILE *in) {\n    char b[80];\n    int n = 0;\n    while (fgets(b, sizeof b, in)) n++;\n"
         "    return n;\n}",
         "int put(FILE *f, const char *s) {\n    return fputs(s, f) != EOF;\n}"],
        request="don't ignore what fputs() and fgets() return, check it for EOF or NULL",
    ),
    "a name the request writes after a dot alone is a member of any object, not any name so spelt": Case(
        "`.values` and `.ix` reached on any frame, through any chain; not a variable, a loop target or a keyword "
        "argument that happen to be named `values`, nor the fine `.to_numpy()`",
        "python",
        ["arr = df.values", "rows = frame[cols].ix[0]"],
        ["arr = df.to_numpy()", "rows = frame[cols].iloc[0]"],
        ["return load(path).dropna().values", "first = table.ix[0, 'name']"],
        ["values = [1, 2, 3]", "for values in chunks:\n    push(values)", "plot(x, values=ys)",
         "arr = frame.to_numpy()"],
        request="no .values or .ix on DataFrames, use .to_numpy() and .iloc",
    ),
    "a call the request names on the result of the call it writes it after": Case(
        "`filterNotNull()` on `map { }`'s result, over lines too; not on a list's own (`values.filterNotNull()`), "
        "nor after another call",
        "kotlin",
        ["val ids = rows.map { it.toIntOrNull() }.filterNotNull()",
         "val emails = users.map { user -> user.email }.filterNotNull()"],
        ["val ids = rows.mapNotNull { it.toIntOrNull() }", "val emails = users.mapNotNull { user -> user.email }"],
        ["val ports = config.entries\n    .map { it.value.toIntOrNull() }\n    .filterNotNull()",
         "return items.map { lookup(it) }.filterNotNull().sorted()"],
        ["val present = values.filterNotNull()", "val all = groups.flatMap { it.members }.filterNotNull()"],
        request="use mapNotNull { } instead of map { }.filterNotNull()",
    ),
    "a method the request names, on any receiver": Case(
        "`name.substr(1)` and `s.trim().substr(0, 3)`: `substr` on whatever receiver, not the receivers shown",
        "javascript",
        ["const rest = name.substr(1);", "const head = s.trim().substr(0, 3);"],
        ["const rest = name.slice(1);", "const head = s.trim().slice(0, 3);"],
        ["return items[0].substr(2);", "label = str.substr(i, n).toUpperCase();"],
        ["const part = s.substring(1);", "const substr = s.slice(1);", "const t = text.subscribe(cb);"],
        request="String.prototype.substr() is deprecated, use slice()",
    ),
    "a function the request names by its path, also by a shorter path or bare after a use": Case(
        "`std::mem::forget` and `mem::forget`: the call with any tail of that path (`forget(x)` after a `use`, "
        "`::std::mem::forget`), not a method or another module's function of that name",
        "rust",
        ["std::mem::forget(guard);", "mem::forget(buf);"],
        ["let _guard = ManuallyDrop::new(guard);", "drop(buf);"],
        ["forget(handle);", "::std::mem::forget(x);",
         "fn leak(v: Vec<u8>) {\n    core_mem(v);\n    mem::forget(v);\n}"],
        ["self.forget(key);", "cache::forget(key);", "let n = forget_all();"],
        request="no std::mem::forget, wrap the value in ManuallyDrop if it must not be dropped",
    ),
    "a type the request says is made with new, by any package path": Case(
        "`new Date()` twice: the object made by that class, also `new java.util.Date(ms)`, not every use of the type",
        "java",
        ["Date now = new Date();", "long t = new Date().getTime();"],
        ["Instant now = Instant.now();", "long t = System.currentTimeMillis();"],
        ["return new java.util.Date(millis);", "events.add(new Date(ts));"],
        ["Date parsed = format.parse(text);", "var s = new DateFormatSymbols();", "Dates d = new Dates();"],
        request="new Date() is legacy, use Instant.now()",
    ),
    "a type the request says is made with new, though the valid examples name the type": Case(
        "`new Integer(5)`: the valid examples write `Integer` too (`Integer.valueOf`), never `new Integer`",
        "java",
        ["Integer n = new Integer(5);", "list.add(new Integer(x));"],
        ["Integer n = Integer.valueOf(5);", "list.add(Integer.valueOf(x));"],
        ["return new java.lang.Integer(v);", "Object o = new Integer(s.length());"],
        ["Integer m = Integer.parseInt(s);", "int[] a = new int[3];", "var f = new IntegerField();"],
        request="new Integer(int) is deprecated, use Integer.valueOf",
    ),
    "a name after the object the request writes, though the valid examples call it on others": Case(
        "`document.write(...)`: the valid examples call `write` on a stream, which is fine; `document.write` by "
        "any longer path, called or not",
        "javascript",
        ['document.write("<p>hi</p>");', "document.write(html);"],
        ["stream.write(chunk);", "out.write(html);"],
        ["window.document.write(banner);", "const w = document.write;"],
        ["res.write(body);", "fs.write(fd, buf, cb);", "document.writeln(line);"],
        request="no document.write, build nodes with the DOM",
    ),
    "a call the request says needs an argument, whatever else it passes": Case(
        "`subprocess.run(cmd)` and `subprocess.run(args, cwd=root)`: the call without `check`, not a pattern of the "
        "arguments shown (`subprocess.run($A)` misses a call with three), by any longer module path",
        "python",
        ["subprocess.run(cmd)", "subprocess.run(args, cwd=root)"],
        ["subprocess.run(cmd, check=True)", "subprocess.run(args, cwd=root, check=True)"],
        ['subprocess.run(["git", "fetch"], cwd=repo, capture_output=True, text=True)',
         "out = sh.subprocess.run(argv, env=env)"],
        ["subprocess.run(cmd, check=False, cwd=root)", "subprocess.call(cmd)", "runner.run(cmd)"],
        request="subprocess.run must pass check so a failing command raises",
    ),
    "a Python module's function also by its bare name where the file imports it": Case(
        "`pickle.loads(...)`: also `loads(...)` after `from pickle import loads`, not a bare `loads` of another module",
        "python",
        ["obj = pickle.loads(data)", "return pickle.loads(blob)"],
        ["obj = json.loads(data)", "return json.loads(blob)"],
        ["from pickle import loads\nobj = loads(data)", "state = pickle.loads(zlib.decompress(raw))"],
        ["from json import loads\nobj = loads(data)", "obj = marshal.loads(data)", "loads = count_loads(log)"],
        request="no pickle.loads(), use json.loads()",
    ),
    "a family the request says by one of its names, by the stem the names shown share": Case(
        "\"like assertEquals\" with `assertNotEquals` shown: the deprecated aliases by what they share at both ends "
        "(`assertAlmostEquals` too), not the two names, nor every assert",
        "python",
        ["self.assertEquals(total, 3)", "self.assertNotEquals(code, 0)"],
        ["self.assertEqual(total, 3)", "self.assertNotEqual(code, 0)"],
        ["self.assertAlmostEquals(ratio, 0.5)", "def test_ok(self):\n    self.assertEquals(r.status, 200)"],
        ["self.assertAlmostEqual(ratio, 0.5)", "self.assertIn(key, seen)", "self.assertTrue(done)"],
        request="no deprecated unittest aliases like assertEquals, use the current names",
    ),
    "a name and friends, by the stem it shares with the one an example shows": Case(
        "`imp.load_source` \"and friends\", an example shows `imp.load_module`: every `imp.load_*`, not other "
        "modules' or loaders' `load_module`",
        "python",
        ['mod = imp.load_source("cfg", path)', "m = imp.load_module(name, f, path, desc)"],
        ['mod = importlib.import_module("cfg")', "spec = importlib.util.spec_from_file_location(name, path)"],
        ['ext = imp.load_dynamic("ext", so_path)', "pkg = imp.load_package(name, path)"],
        ["mod = loader.load_module(name)", "data = load_source(path)", "x = importlib.reload(mod)"],
        request="imp.load_source and friends are gone in Python 3.12, use importlib",
    ),
    "calls by the whole names the request lists, when the examples call them on different objects": Case(
        "`os.system` and `subprocess.getoutput` shown, `commands.getoutput` listed: those calls as written, not "
        "`system` or `getoutput` on any object (`platform.system()`)",
        "python",
        ['os.system("rm -rf " + path)', "out = subprocess.getoutput(cmd)"],
        ['subprocess.run(["rm", "-rf", path], check=True)', "out = subprocess.run(cmd, capture_output=True).stdout"],
        ['status = commands.getoutput("ls")', 'os.system(f"tar xf {f}")'],
        ["name = platform.system()", "x = client.getoutput(cmd)", "ok = subprocess.run(argv)"],
        request="no os.system, subprocess.getoutput or commands.getoutput, run a list with subprocess.run",
    ),
    "a family known whole, said by some of its names": Case(
        "\"wrapper constructors such as new Double(...) or new Short(...)\": every boxed primitive made with new, by "
        "any package path, not other types nor arrays of them",
        "java",
        ["Double d = new Double(x);", "list.add(new Short(s));"],
        ["Double d = Double.valueOf(x);", "list.add(Short.valueOf(s));"],
        ["Float f = new Float(1.5f);", 'Object b = new java.lang.Byte("7");'],
        ['BigInteger n = new BigInteger("12");', "Double[] ds = new Double[4];", "double y = Double.parseDouble(t);"],
        request="no wrapper constructors such as new Double(...) or new Short(...), call valueOf",
    ),
    "the stem the request writes with a star": Case(
        "`os.exec*`: every name it starts (`os.execl`, `os.execlpe`), not the longer start the two shown share "
        "(`os.execv`), nor `exec` on other objects",
        "python",
        ["os.execv(path, argv)", "os.execvp(\"ls\", [\"ls\", \"-l\"])"],
        ["subprocess.run(argv, check=True)", "subprocess.run([\"ls\", \"-l\"], check=True)"],
        ["os.execl(path, arg0)", "os.execlpe(\"cp\", \"cp\", a, b, env)"],
        ["cursor.execute(sql)", "exec(code)", "shell.exec_command(c)"],
        request="no os.exec* calls in the service, it replaces the process; use subprocess.run",
    ),
    "code the valid examples write elsewhere, named inside a loop, a comprehension being one": Case(
        "`re.compile(...)` in a `for` and a `while` loop, and outside one in the valid examples: the call by the name "
        "the request writes, inside any loop of the language, a comprehension too; not the call outside one",
        "python",
        ["for line in lines:\n    m = re.compile(p).match(line)",
         "while True:\n    rx = re.compile(pat)\n    step(rx)"],
        ["rx = re.compile(p)\nfor line in lines:\n    m = rx.match(line)", "rx = re.compile(pat)\nstep(rx)"],
        ["hits = [re.compile(p).match(s) for s in items]",
         "for k in keys:\n    if re.compile(k).search(text):\n        n += 1"],
        ['PATTERN = re.compile(r"\\d+")', "for s in items:\n    m = PATTERN.match(s)", "names = [p for p in patterns]"],
        request="no re.compile inside a loop, compile the pattern once before it",
    ),
    "a call the valid examples make outside a loop, named inside one, in any form there": Case(
        "`time.After(...)` received from in a loop's `select` and alone: the call inside any loop, also kept in a "
        "variable first; not the same call outside a loop, nor a `Time`'s `After` method",
        "go",
        ["func wait(in <-chan int) {\n\tfor {\n\t\tselect {\n\t\tcase <-in:\n\t\tcase <-time.After(d):\n"
         "\t\t\treturn\n\t\t}\n\t}\n}",
         "func backoff(n int) {\n\tfor i := 0; i < n; i++ {\n\t\t<-time.After(pause)\n\t}\n}"],
        ["func wait(in <-chan int) {\n\tt := time.NewTimer(d)\n\tfor {\n\t\tselect {\n\t\tcase <-in:\n"
         "\t\tcase <-t.C:\n\t\t\treturn\n\t\t}\n\t}\n}",
         "func once(done <-chan int) {\n\tselect {\n\tcase <-done:\n\tcase <-time.After(d):\n\t}\n}"],
        ["func poll() {\n\tfor !ready() {\n\t\tt := time.After(tick)\n\t\t<-t\n\t}\n}",
         "func drain(jobs []int) {\n\tfor range jobs {\n\t\tselect {\n\t\tcase <-time.After(time.Second):\n"
         "\t\t}\n\t}\n}"],
        ["func slow() {\n\tselect {\n\tcase <-time.After(time.Minute):\n\t}\n}",
         "func late(ds []time.Time) (n int) {\n\tfor _, d := range ds {\n\t\tif time.Now().After(d) {\n"
         "\t\t\tn++\n\t\t}\n\t}\n\treturn\n}"],
        request="no time.After inside a for loop, it makes a new timer every time; reuse one",
    ),
    "a PHP function the request says needs an argument, also called through the global namespace": Case(
        "`htmlspecialchars(...)` without `ENT_QUOTES`: also `\\htmlspecialchars(...)`, whatever else it passes",
        "php",
        ["<?php\necho htmlspecialchars($name);", "<?php\n$s = htmlspecialchars($title, ENT_HTML5);"],
        ["<?php\necho htmlspecialchars($name, ENT_QUOTES);",
         "<?php\n$s = htmlspecialchars($title, ENT_QUOTES | ENT_HTML5);"],
        ["<?php\nreturn \\htmlspecialchars($v);",
         "<?php\nforeach ($rows as $r) {\n    echo htmlspecialchars($r['x'], ENT_NOQUOTES);\n}"],
        ["<?php\necho htmlspecialchars($v, ENT_QUOTES, 'UTF-8');", "<?php\necho htmlentities($v);",
         "<?php\necho e($v);"],
        request="htmlspecialchars must pass ENT_QUOTES",
    ),
    "a value built by its type's name that the request says needs one of two fields": Case(
        "`http.Client{...}` without `Timeout` or `Transport` (each valid example sets one): the literal by its type, "
        "with any other fields",
        "go",
        ["func a() *http.Client {\n\treturn &http.Client{Jar: jar}\n}",
         "func b() {\n\tclient := http.Client{CheckRedirect: noRedirect}\n\tuse(client)\n}"],
        ["func a() *http.Client {\n\treturn &http.Client{Jar: jar, Timeout: 10 * time.Second}\n}",
         "func b() {\n\tclient := http.Client{CheckRedirect: noRedirect, Transport: tr}\n\tuse(client)\n}"],
        ["func c() *http.Client {\n\treturn &http.Client{\n\t\tJar: jar,\n\t}\n}",
         "var shared = http.Client{}"],
        ["func d() *http.Client {\n\treturn &http.Client{Timeout: time.Minute}\n}",
         "func e() *http.Server {\n\treturn &http.Server{Addr: a}\n}",
         "func f() {\n\tresp, err := http.Get(url)\n\tuse(resp, err)\n}"],
        request="every http.Client needs a Timeout (or a Transport with its own timeouts)",
    ),
    "a JavaScript global function the request names, also through the global object": Case(
        "`alert(...)` called bare: also `window.alert` and `globalThis.alert`, the same function; not a method of "
        "that name on another object",
        "javascript",
        ["alert(\"Saved\");", "if (!ok) alert(msg);"],
        ["toast.show(\"Saved\");", "if (!ok) toast.error(msg);"],
        ["window.alert(\"Saved\");", "globalThis.alert(err.message);", "setTimeout(() => alert(n), 10);"],
        ["dialog.alert(\"x\");", "notifier.alert(msg);", "const alerts = [];"],
        request="no alert() in the app, use the toast API",
    ),
    "a command without the option the request names, long or short, clustered or not": Case(
        "`grep` without `-F` or `--fixed-strings`: the short option also among others (`-rnF`), written as the "
        "request writes it, not the word `fixed` anywhere",
        "bash",
        ["grep \"$needle\" notes.txt", "grep -n \"$needle\" notes.txt"],
        ["grep -F \"$needle\" notes.txt", "grep --fixed-strings -n \"$needle\" notes.txt"],
        ["grep -rn \"$pat\" src/", "count=$(grep -c \"$word\" app.log)", "grep --count \"$w\" fixed.txt"],
        ["grep -rnF \"$pat\" src/", "grep -Fx \"$line\" list.txt", "egrep \"$x\" notes.txt",
         "grep --fixed-strings \"$w\" f"],
        request="grep on a variable must use --fixed-strings (-F), or a dot in the value matches any character",
    ),
    "a call without an argument of the kind the request names": Case(
        "`Object.assign(target, b)` beside `Object.assign({}, b)`: \"a fresh object\" is an argument of kind "
        "`object`, whatever it holds and however many others there are",
        "javascript",
        ["Object.assign(target, patch);", "const merged = Object.assign(defaults, opts);"],
        ["Object.assign({}, target, patch);", "const merged = Object.assign({}, defaults, opts);"],
        ["Object.assign(state, patch, extra);", "return Object.assign(base, a, b, c);"],
        ["Object.assign({ id }, row);", "const copy = Object.assign({}, state);", "Object.keys(state);",
         "merge(state, patch);"],
        request="Object.assign must be given a fresh object as its target, or it mutates the first argument",
    ),
    "calls the request lists without the argument they need, though the valid examples make only one of them": Case(
        "`subprocess.run(...)` and `subprocess.call(...)` without `check`: the valid examples call only "
        "`subprocess.run`, with it; the request's list says both are the call",
        "python",
        ["subprocess.run([\"make\", \"all\"])", "status = subprocess.call(cmd, cwd=root)"],
        ["subprocess.run([\"make\", \"all\"], check=True)", "subprocess.check_call(cmd, cwd=root)"],
        ["subprocess.call([\"ls\", \"-l\"])", "out = subprocess.run(args, capture_output=True)",
         "rc = subprocess.call(cmd)"],
        ["subprocess.call(cmd, check=False)", "subprocess.check_call([\"ls\"])", "os.system(\"ls\")"],
        request="subprocess.run and subprocess.call must pass check, a failing command goes unnoticed otherwise",
    ),
    "a constructor the request names, by any package path, without the type it needs, passed by any name": Case(
        "`Formatter()` and `Formatter(sb)` beside calls passing `Locale.US`: also `java.util.Formatter(...)`, a "
        "class made with its package path; a locale passed as a value (`this.locale`) is one too",
        "kotlin",
        ["val f = Formatter()", "Formatter(sb).format(\"%d\", n)"],
        ["val f = Formatter(Locale.US)", "Formatter(sb, Locale.ROOT).format(\"%d\", n)"],
        ["val f = java.util.Formatter()", "java.util.Formatter(out).format(\"%s\", name)"],
        ["val f = Formatter(sb, this.locale)", "val f = formatter()", "val f = Formatter(Locale.GERMANY)"],
        request="Formatter() without a Locale formats with the default locale, pass a Locale",
    ),
    "a module's function of more than one word, however the module is reached": Case(
        "`zlib.gzipSync` and `zlib.gunzipSync`, the valid examples calling other functions of `zlib`: the module is "
        "how they are reached, so also through `require(\"zlib\")`, an alias, or destructured and called bare; not "
        "the async functions nor a property whose name only starts so",
        "javascript",
        ["const packed = zlib.gzipSync(body);", "const raw = zlib.gunzipSync(buf);"],
        ["zlib.gzip(body, done);", "const stream = zlib.createGunzip();"],
        ['const out = require("zlib").gzipSync(payload);',
         'const { gunzipSync } = require("zlib");\nconst text = gunzipSync(file).toString();',
         "return compress.gzipSync(data);"],
        ["zlib.gunzip(buf, cb);", 'const { gzip } = require("zlib");\ngzip(data, cb);',
         "cache.gzipSyncedAt = now;"],
        request="no zlib.gzipSync or gunzipSync on the server, they block the event loop; use the callback or "
                "stream form",
    ),
    "methods the request names bare, shown on self: on any object": Case(
        "`setDaemon()` and `isAlive()`, which the examples call on `self`: the request says the methods, so on any "
        "thread object (`worker.setDaemon`, `self.pool.workers[0].setDaemon`), not the names it says to use",
        "python",
        ["class Poller(Thread):\n    def __init__(self):\n        super().__init__()\n        self.setDaemon(True)",
         "def stop(self):\n    if self.isAlive():\n        self.join()"],
        ["class Poller(Thread):\n    def __init__(self):\n        super().__init__()\n        self.daemon = True",
         "def stop(self):\n    if self.is_alive():\n        self.join()"],
        ["worker.setDaemon(True)", "while t.isAlive():\n    time.sleep(1)", "self.pool.workers[0].setDaemon(False)"],
        ["worker.daemon = True", "if t.is_alive():\n    t.join()", "def setDaemonMode(self):\n    pass"],
        request="setDaemon() and isAlive() are gone from threading, set .daemon and call is_alive()",
    ),
    "a receiver the valid examples call the same method on is the point": Case(
        "`audit.rawWrite` beside `cache.rawWrite` in a valid example: the receiver tells them apart, so the rule "
        "keeps it (under any object path), not the method on any object",
        "javascript",
        ["audit.rawWrite(entry);", "await audit.rawWrite(line, opts);"],
        ["cache.rawWrite(entry);", "await audit.write(line, opts);"],
        ["this.audit.rawWrite(e);"],
        ["store.cache.rawWrite(e);", "audit.write(e);"],
        request="no audit.rawWrite, go through audit.write so entries are signed",
    ),
    "a function the request names bare, also under its module": Case(
        "Swift's `CFRelease(ref)`: the same function written `CoreFoundation.CFRelease(ref)`; not another function "
        "whose name only starts so",
        "swift",
        ["CFRelease(ref)", "if let path = path { CFRelease(path) }"],
        ["ref = nil", "if let path = path { use(path) }"],
        ["CoreFoundation.CFRelease(ref)", "defer { CFRelease(font) }"],
        ["CFRetain(ref)", "CFReleaseLater(font)"],
        request="no CFRelease in Swift code, Core Foundation objects are memory managed",
    ),
    "a class the request names, also written from the root namespace": Case(
        "Ruby's `Dir.pwd`, also written `::Dir.pwd` (the same constant from the root namespace); not a `pwd` on a "
        "value nor another `Dir` method",
        "ruby",
        ["root = Dir.pwd", 'File.join(Dir.pwd, "config.yml")'],
        ["root = options.fetch(:root)", 'File.join(root, "config.yml")'],
        ["path = ::Dir.pwd", 'Dir.pwd + "/tmp"'],
        ["dir.pwd", "Dir.home", 'Dir.glob("*.rb")'],
        request="library code must not read Dir.pwd, take the root directory as an argument",
    ),
    "a C# class's method, also under the global namespace alias": Case(
        "`Environment.Exit`, also written with its namespace, `global::` included; not the exit code property nor "
        "another object's `Exit`",
        "csharp",
        ["Environment.Exit(1);", "if (fatal) Environment.Exit(2);"],
        ['throw new InvalidOperationException("fatal");', "if (fatal) Environment.ExitCode = 2;"],
        ["global::System.Environment.Exit(3);", "System.Environment.Exit(0);"],
        ["Environment.ExitCode = 2;", "app.Exit();"],
        request="library code must not call Environment.Exit, throw instead",
    ),
    "the function the request names, also passed by its name to a call that calls it": Case(
        "`dofile(...)` called, and `dofile` passed bare to `pcall`/`xpcall`, which call it; not a method of that name "
        "on an object, a variable whose name holds it, nor the string (without requested._passed the rule is the "
        "call alone and misses `pcall(dofile, p)`)",
        "lua",
        ['dofile("config.lua")', "local t = dofile(path)"],
        ['local t = require("config")', "local f = io.open(path)"],
        ["local ok, t = pcall(dofile, user_path)", "local ok = xpcall(dofile, debug.traceback, p)",
         'dofile(dir .. "/init.lua")'],
        ["local dofile_count = 0", "loader:dofile(x)", 'local name = "dofile"'],
        request="no dofile(), it runs whatever file it is given; load data with a parser",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_code_the_request_names(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


@pytest.mark.parametrize(("names", "stem"), [
    (["find_by_email", "find_by_slug!"], r"find_by_\w*[!?]?"),  # a start at a word part
    (["before_filter", "after_filter"], r"\w*_filter[!?]?"),  # an end from a word part
    (["assertEquals", "assertNotEquals"], r"assert\w*Equals[!?]?"),  # both: not every assert
    (["iteritems", "iterkeys"], None),  # `iter` ends at no word part
    (["fit", "fdescribe"], None),  # one letter is no stem
    (["new_user", "new_user"], None),  # one name is no family
    (["Long", "Short"], "Integer|Long|Short|Byte|Double|Float|Boolean|Character"),  # known whole
])
def test_a_family_is_said_by_the_stem_its_names_share(names: list[str], stem: str | None) -> None:
    found = names_module.family_stem(names)
    assert (found and found[0]) == stem, found
