"""The fix harness's checks by each language's own tool (bin/fix_checks.py), on small real files: a fix that
breaks the file is caught, one that keeps it right passes, and a file the tool rejects unfixed gets no verdict.
Each tool that is absent skips its case with the install command; `.ci/run` installs them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bin import fix_checks, fix_harness

REPO = Path(__file__).resolve().parent.parent
CI_TOOLS = REPO / ".ci-cache"  # .ci/run installs npm typescript into .ci-cache/tools


def fix(lang: str, file: str, before: str, after: str, root: Path | None = None) -> fix_harness.Fix:
    return fix_harness.Fix(lang, "r", file, 1, "a", "b", "safe", True, 0.9, None, after, before,
                           root=str(root) if root else None)


def judge(check: Callable[[list[fix_harness.Fix]], None], lang: str, file: str, good: str, bad: str,
          rejected: str) -> None:
    made = [fix(lang, file, good, good), fix(lang, file, good, bad), fix(lang, file, rejected, good)]
    check(made)
    ok, broken, unjudged = made
    assert ok.built == (True, True) and ok.broken is None and ok.tool
    assert broken.built == (True, False) and broken.broken and broken.tool == ok.tool
    assert unjudged.built == (False, False) and unjudged.tool is None and unjudged.broken is None


def need(tool: str) -> None:
    why = fix_checks.missing(tool)
    if why:
        pytest.skip(why)


def test_php_lint() -> None:
    need("php")
    judge(fix_checks.check_php, "php", "p/a.php", "<?php\n$a = in_array($x, $y, true);\n",
          "<?php\n$a = in_array($x, $y, true;\n", "<?php\nfunction (\n")


def test_ruby_syntax() -> None:
    need("ruby")
    judge(fix_checks.check_ruby, "ruby", "p/a.rb", "File.exist?(x)\n", "File.exist?(x\n", "def\n")


@pytest.mark.slow  # a real compiler: seconds of CPU each
def test_javac() -> None:
    need("javac")
    judge(fix_checks.check_java, "java", "p/A.java",
          "class A { boolean f(String s) { return s.trim().isEmpty(); } }\n",
          "class A { boolean f(String s) { return s.trim().isEmptyy(); } }\n",  # parses; javac finds no such method
          "class A { Missing m; }\n")


@pytest.mark.parametrize(("lang", "tool", "name", "good", "bad"), [
    ("c", "gcc", "a.c", "#include <stdlib.h>\nvoid f(char *p) { free(p); }\n",
     "#include <stdlib.h>\nvoid f(char *p) { free(p, 1); }\n"),  # parses; the compiler counts the arguments
    ("cpp", "g++", "a.cpp", "using T = unsigned;\nT x = 1;\n", "using T = unsigned;\nT x = y;\n"),
])
def test_gcc_syntax_only(lang: str, tool: str, name: str, good: str, bad: str) -> None:
    need(tool)
    judge(fix_checks.check_c, lang, f"p/{name}", good, bad, "#include <no_such_header.h>\n")


def test_mcs() -> None:
    need("mcs")
    judge(fix_checks.check_csharp, "csharp", "p/a.cs",
          "using System.Linq;\nclass A { bool F(int[] x) { return x.Any(); } }\n",
          "using System.Linq;\nclass A { bool F(int x) { return x.Any(); } }\n",  # an int has no Any()
          "class A { Missing m; }\n")


def test_mcs_takes_the_projects_unsafe_option_and_skips_msbuild_properties(tmp_path: Path) -> None:
    """dnlib's project allows unsafe code and defines `$(MoreDefineConstants)`: compiled without `-unsafe`, or with
    that property as a symbol, no file of it compiles unfixed and none of its fixes gets a verdict."""
    need("mcs")
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "p.csproj").write_text(
        '<Project><PropertyGroup><AllowUnsafeBlocks>true</AllowUnsafeBlocks>\n'
        '<DefineConstants>TRACE;$(MoreDefineConstants)</DefineConstants></PropertyGroup>\n'
        '<ItemGroup><Compile Include="a.cs" /><Compile Include="b.cs" /></ItemGroup></Project>\n')
    (pkg / "b.cs").write_text("unsafe class B { int* p; }\n")
    good = "class A { bool F(int[] x) { return x.Length > 0; } }\n"
    (pkg / "a.cs").write_text(good)
    made = [fix("csharp", "p/a.cs", good, good, pkg),
            fix("csharp", "p/a.cs", good, good.replace("Length", "Lenght"), pkg)]
    fix_checks.check_csharp(made)
    assert made[0].built == (True, True) and made[0].broken is None
    assert made[1].built == (True, False) and made[1].broken


def test_python_import_sees_what_compile_does_not(tmp_path: Path) -> None:
    pkg = tmp_path / "wheel" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "util.py").write_text("VALUE = 1\n")
    good = "from .util import VALUE\nX = VALUE\n"
    bad = "from .util import VALUE\nimport datetime\nX = datetime.datetime.now(timezone.utc)\n"  # compiles
    (pkg / "mod.py").write_text(good)
    made = [fix("python", "wheel/pkg/mod.py", good, bad, tmp_path / "wheel"),
            fix("python", "wheel/pkg/mod.py", good, good, tmp_path / "wheel")]
    fix_checks.check_python_import(made, None)
    assert made[0].broken and made[0].tool == "python import", made[0]
    assert made[1].built == (True, True) and made[1].broken is None and made[1].tool == "python import"


def test_cargo_check(tmp_path: Path) -> None:
    need("cargo")
    crate = tmp_path / "c"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "c"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                      '[dev-dependencies]\nnot-in-debian = "9"\n')  # dropped for `cargo check`
    good = "pub fn f(v: Option<String>) -> String { v.unwrap_or_default() }\n"
    bad = "pub fn f(v: Option<u8>) -> bool { v == true }\n"  # parses; the type checker rejects it
    (crate / "src" / "lib.rs").write_text(good)
    made = [fix("rust", "c/src/lib.rs", good, good, crate), fix("rust", "c/src/lib.rs", good, bad, crate)]
    fix_checks.check_rust(made, tmp_path / "cache")
    assert made[0].built == (True, True) and made[0].tool == "cargo check"
    assert made[1].built == (True, False) and made[1].broken


@pytest.mark.slow  # tsc: 10.5 s in the last full run, where unmarked it was handed out last
def test_tsc_no_emit(tmp_path: Path) -> None:
    if fix_checks.tsc_binary(CI_TOOLS, install=False) is None:
        pytest.skip("tsc not installed: npm install --prefix .ci-cache/tools typescript@5 (.ci/run does)")
    pkg = tmp_path / "p"
    pkg.mkdir()
    good = "export function f(s: string): boolean { return s.length === 0; }\n"
    bad = "export function f(s: string): boolean { return s.length === '0'; }\n"  # parses; types do not match
    (pkg / "a.ts").write_text(good)
    made = [fix("typescript", "p/a.ts", good, good, pkg), fix("typescript", "p/a.ts", good, bad, pkg)]
    fix_checks.check_typescript(made, CI_TOOLS, install=False)
    assert made[0].built == (True, True) and made[0].broken is None
    assert made[1].broken and "1 new error" in made[1].broken


def test_evidence_rows_count_checked_and_failed_fixes_and_keep_other_languages(tmp_path: Path) -> None:
    from bin import fix_evidence

    made = [fix("python", "p/a.py", "x = 1\n", "x = 2\n"), fix("python", "p/a.py", "x = 1\n", "x = (\n"),
            fix("python", "p/b.py", "print 1\n", "print(1)\n")]  # Python 2: no verdict
    fix_harness._check_python(made)
    path = tmp_path / "fix_evidence.tsv"
    path.write_text(f"# go: go run; tools: go build (go1)\n# python: old run; tools: compile()\n{fix_evidence.HEADER}\n"
                    "r\tpython\t9\t9\t0\tcompile() 9\nq\tgo\t30\t25\t0\tgo build 25\n")
    fix_evidence.write(fix_evidence.rows(made), ["python"], "python run", path, tools={"compile()": "compile() (3)"})
    got = fix_evidence.load(path)
    assert got["r"] == fix_evidence.Row("r", "python", 3, 2, 1, "compile() 2")  # the python row is replaced
    assert got["q"].proven and not got["r"].proven  # the go row is kept
    # each language's rows keep the command that wrote them: the go rows their earlier run's, python this run's
    assert fix_evidence.commands(path) == {"go": "go run; tools: go build (go1)",
                                           "python": "python run; tools: compile() (3)"}
    table = fix_evidence.table(made, {"compile()": "compile() (CPython 3)"})
    assert table[2] == "| python | 3 (3) | 2 | 1 | 1 | 1 | compile() (CPython 3) |"
    named = fix_evidence.table(made, {"compile()": "compile() (CPython 3)"}, "python -m bin.fix_harness --table")
    assert named[0].endswith("| command |") and named[2].endswith("| `python -m bin.fix_harness --table` |")


@pytest.mark.slow  # tsc: 4.7 s in the last full run
def test_tsc_uses_the_packages_own_tsconfig(tmp_path: Path) -> None:
    """A fix that is an error only under the project's own options (strict: an implicit any) is caught."""
    if fix_checks.tsc_binary(CI_TOOLS, install=False) is None:
        pytest.skip("tsc not installed: npm install --prefix .ci-cache/tools typescript@5 (.ci/run does)")
    pkg = tmp_path / "p"
    (pkg / "src").mkdir(parents=True)
    (pkg / "tsconfig.json").write_text('{"compilerOptions": {"strict": true, "noEmit": true}}\n')
    good = "export function f(s: string): string { return s; }\n"
    bad = "export function f(s): string { return s; }\n"  # fine without strict
    (pkg / "src" / "a.ts").write_text(good)
    made = [fix("typescript", "p/src/a.ts", good, bad, pkg)]
    fix_checks.check_typescript(made, CI_TOOLS, install=False)
    assert made[0].built == (True, False) and made[0].broken


def _count_go_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the harness builds, in order: a counting wrapper around the real build."""
    calls: list[str] = []
    real = fix_harness._go_build

    def counted(pkg: Path, name: str, text: str, gocache: Path) -> bool:
        calls.append(text)
        return real(pkg, name, text, gocache)

    monkeypatch.setattr(fix_harness, "_go_build", counted)
    return calls


def test_go_builds_each_fixed_text_once_and_samples_unsafe_fixes(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The Go check's bounds (the whole corpus took over an hour): a fixed text is built once however many fixes
    share it (the fixes of a rule with an import edit are applied together, so they do), and an unsafe rule's
    fixes are sampled, 8 per rule and package; every safe fix is built. The builds are real; the wrapper counts."""
    need("go")
    root = tmp_path / "golang-x-dev"
    (root / "p").mkdir(parents=True)
    good = "package p\n\nfunc F() int { return 1 }\n"
    (root / "p" / "a.go").write_text(good)
    shared = good.replace("1", "2")
    made = [fix("go", "golang-x-dev/p/a.go", good, shared, root) for _ in range(10)]
    for f in made:
        f.safety = "unsafe"
    made.append(fix("go", "golang-x-dev/p/a.go", good, good.replace("int", "nosuchtype"), root))  # safe
    calls = _count_go_builds(monkeypatch)
    fix_harness._check_go(made, tmp_path)
    assert [f.built for f in made[:10]] == [(True, True)] * 8 + [None] * 2
    assert made[10].built == (True, False) and made[10].broken
    assert calls == [good, shared, good.replace("int", "nosuchtype")]


def test_go_remembers_only_the_unfixed_packages_that_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second run in the same cache does not build an unfixed package that built before (the corpus there
    never changes); every fixed text is still built, and a package that did not build is tried again. The builds
    are real; the wrapper counts."""
    need("go")
    root = tmp_path / "golang-x-dev"
    (root / "p").mkdir(parents=True)
    (root / "q").mkdir()
    good = "package p\n\nfunc F() int { return 1 }\n"
    broken = "package q\n\nfunc F() nosuchtype { return 1 }\n"
    (root / "p" / "a.go").write_text(good)
    (root / "q" / "b.go").write_text(broken)
    calls = _count_go_builds(monkeypatch)
    for run in range(2):
        made = [fix("go", "golang-x-dev/p/a.go", good, good.replace("int", "nosuchtype"), root),
                fix("go", "golang-x-dev/q/b.go", broken, broken.replace("1", "2"), root)]
        calls.clear()
        fix_harness._check_go(made, tmp_path)
        assert made[0].built == (True, False) and made[0].broken, run
        assert made[1].built == (False, False) and not made[1].broken, run
        assert calls == ([good] if run == 0 else []) + [good.replace("int", "nosuchtype"), broken], run
    (root / "p" / "c.go").write_text("package p\n\nvar X = F()\n")  # the package changed: built again
    fix_harness._check_go([fix("go", "golang-x-dev/p/a.go", good, good, root)], tmp_path)
    assert calls[-2:] == [good, good]
