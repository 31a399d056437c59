"""The language's own tools for the fix harness (bin/fix_harness.py): each fix's file checked before and after by
the compiler, type checker or interpreter of its language, where one installs from the package registries.

A check sets `built = (before, after)` on each fix it can judge and `broken` when the after-state fails where
the before-state passed. A file that the tool rejects unfixed (a missing dependency, another language version)
gets `built = (False, False)` and no verdict. Absent tools are named with their install command by `missing()`.

| language | tool | what it proves |
| --- | --- | --- |
| python | `import` of the fixed module (its package on sys.path, its dependencies from pip) | the module loads |
| typescript | `tsc --noEmit` on the file (npm typescript) | it type-checks alone (no new errors) |
| rust | `cargo check --offline` of the crate (Debian's crates in /usr/share/cargo/registry) | the crate type-checks |
| java | `javac` on the file | it compiles |
| c, cpp | `gcc`/`g++ -fsyntax-only` with the package's include dirs | it compiles |
| php | `php -l` | it parses |
| ruby | `ruby -c` | it parses |
| csharp | `mcs -target:library` (Debian mono-mcs) | it compiles |
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

INSTALL = {"go": "apt-get install -y golang-go", "node": "apt-get install -y nodejs",
           "tsc": "npm install typescript (into the harness cache: python -m bin.fix_harness fetches it)",
           "cargo": "apt-get install -y cargo (plus the Rust corpus's librust-*-dev packages)",
           "javac": "apt-get install -y default-jdk-headless", "gcc": "apt-get install -y gcc",
           "g++": "apt-get install -y g++", "php": "apt-get install -y php-cli", "ruby": "apt-get install -y ruby",
           "mcs": "apt-get install -y mono-mcs"}
# The framework assemblies that the C# corpus's projects reference beyond mono-mcs's own (KeePass: Windows Forms);
# without them a project does not compile before its fix either, and gets no verdict
MONO_LIBS = ("apt-get install -y libmono-system-windows-forms4.0-cil libmono-system-drawing4.0-cil "
             "libmono-system-data4.0-cil libmono-system-runtime-serialization4.0-cil libmono-system-xml-linq4.0-cil")
DEBIAN_CRATES = Path("/usr/share/cargo/registry")


class FixLike(Protocol):
    lang: str
    file: str
    original: str
    fixed_text: str
    root: str | None
    broken: str | None
    built: tuple[bool, bool] | None
    tool: str | None


def missing(tool: str) -> str | None:
    """None when `tool` is on PATH, else the one-line reason naming the install command."""
    return None if shutil.which(tool) else f"{tool} not installed: {INSTALL.get(tool, tool)}"


def version(cmd: Sequence[str]) -> str:
    if not shutil.which(cmd[0]):
        return ""
    proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=60, check=False)
    return (proc.stdout or proc.stderr).strip().splitlines()[0] if (proc.stdout or proc.stderr).strip() else ""


def _judge(fixes: Sequence[FixLike], ok: Callable[[FixLike, str], bool], tool: str, workers: int = 2) -> None:
    """before/after for each fix; the before-state is checked once per distinct original text."""
    before: dict[tuple[str, str], bool] = {}

    def one(f: FixLike) -> None:
        key = (f.file, f.original)
        if key not in before:
            before[key] = ok(f, f.original)
        after = ok(f, f.fixed_text) if before[key] else False
        f.built = (before[key], after)
        f.tool = tool if before[key] else None
        if before[key] and not after and f.broken is None:
            f.broken = f"{tool}: the fixed file no longer passes"

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(one, fixes))


def _tmp_run(name: str, text: str, cmd: Callable[[Path], list[str]], timeout: float = 300,
             env: dict[str, str] | None = None) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(text, encoding="utf-8")
        proc = subprocess.run(cmd(path), cwd=tmp, capture_output=True, text=True, timeout=timeout, env=env,
                              check=False)
        return proc.returncode == 0


def _disk(f: FixLike) -> Path:
    """The fixed file's own path on disk (the corpus keeps each package under its root)."""
    return Path(str(f.root)) / f.file.split("/", 1)[1] if f.root else Path(f.file)


def check_php(fixes: Sequence[FixLike]) -> None:
    if not missing("php"):
        _judge(fixes, lambda f, t: _tmp_run("x.php", t, lambda p: ["php", "-l", str(p)]), "php -l")


def check_ruby(fixes: Sequence[FixLike]) -> None:
    if not missing("ruby"):
        _judge(fixes, lambda f, t: _tmp_run("x.rb", t, lambda p: ["ruby", "-c", str(p)]), "ruby -c")


def sample(fixes: Sequence[FixLike], per: int) -> list[FixLike]:
    """Every fix of a `safe` rule; of an unsafe rule, the first `per` per rule and package (the rest unchecked)."""
    seen: dict[tuple[str, str], int] = defaultdict(int)
    picked = []
    for f in fixes:
        group = (getattr(f, "rule", ""), f.file.split("/", 1)[0])
        seen[group] += 1
        if getattr(f, "safety", "") == "safe" or seen[group] <= per:
            picked.append(f)
    return picked


_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)


def java_source_root(f: FixLike) -> Path:
    """The directory its `package` declaration puts the file under (the file's own directory if none fits)."""
    disk = _disk(f)
    found = _PACKAGE.search(f.original)
    parts = found[1].split(".") if found else []
    if parts and len(disk.parent.parts) > len(parts) and list(disk.parent.parts[-len(parts):]) == parts:
        return Path(*disk.parent.parts[:-len(parts)])
    return disk.parent


JAVA_PER_RULE_AND_PACKAGE = 8  # javac of a file and what it uses takes seconds: unsafe fixes are sampled
# The compiler's JVM, tuned for one short compilation: the client JIT only and the serial collector. The verdict is
# javac's either way; the CPU is not (a one-file check with Debian's 694 jars on the classpath: 4.8 CPU-s -> 2.4).
JAVAC_JVM = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")
JAVA_CLASSPATH = Path("/usr/share/java")  # Debian's jars, for sources that use another library


def check_java(fixes: Sequence[FixLike]) -> None:
    """`javac` on the fixed file, with its source tree on -sourcepath (the classes it uses compile with it) and
    Debian's jars on the classpath; sources read as ISO-8859-1 so that no byte is unmappable."""
    if missing("javac"):
        return
    cp = ["-cp", f"{JAVA_CLASSPATH}/*"] if JAVA_CLASSPATH.is_dir() else []
    _judge(sample(fixes, JAVA_PER_RULE_AND_PACKAGE), lambda f, t: _tmp_run(Path(f.file).name, t, lambda p: [
        "javac", *JAVAC_JVM, "-proc:none", "-nowarn", "-Xlint:none", "-implicit:none", "-encoding", "ISO-8859-1", *cp,
        "-d", str(p.parent / "out"), "-sourcepath", str(java_source_root(f)), str(p)], timeout=600), "javac")


MONO = Path("/usr/lib/mono/4.5")
_COMPILE = re.compile(r'<Compile\s+Include="([^"*]+\.cs)"')
_REFERENCE = re.compile(r'<Reference\s+Include="([\w.]+)')
_DEFINE = re.compile(r"<DefineConstants>([^<]*)</DefineConstants>")
_UNSAFE = re.compile(r"<AllowUnsafeBlocks>\s*true\s*</AllowUnsafeBlocks>", re.I)


def cs_project(f: FixLike) -> tuple[list[Path], list[str]] | None:
    """(the .cs files, the mcs options) of the old-style .csproj nearest above the file that compiles it;
    None when there is none (the file is compiled alone)."""
    disk = _disk(f)
    top = Path(str(f.root)) if f.root else disk.parent
    for d in [disk.parent, *disk.parents]:
        for proj in sorted(d.glob("*.csproj")):
            text = proj.read_text(encoding="utf-8", errors="replace")
            files = [(d / m.replace("\\", "/")).resolve() for m in _COMPILE.findall(text)]
            if disk.resolve() in files:
                refs = [f"-r:{MONO / (r + '.dll')}" for r in dict.fromkeys(_REFERENCE.findall(text))
                        if (MONO / (r + ".dll")).is_file()]
                define = _DEFINE.search(text)
                defines = [f"-define:{x}" for x in re.split(r"[;,\s]+", define[1] if define else "")
                           if x and "$" not in x]
                unsafe = ["-unsafe"] if _UNSAFE.search(text) else []
                return files, [*refs, *defines, *unsafe]
        if d == top or d == d.parent:
            break
    return None


def check_csharp(fixes: Sequence[FixLike]) -> None:
    """`mcs -target:library` on the fixed file's whole project (its .csproj's files and framework references),
    or on the file alone where no project names it."""
    if missing("mcs"):
        return

    def ok(f: FixLike, text: str) -> bool:
        project = cs_project(f)
        others, opts = ([p for p in project[0] if p != _disk(f).resolve() and p.is_file()], project[1]) if project \
            else ([], [])
        return _tmp_run(Path(f.file).name, text, lambda p: [
            "mcs", "-target:library", "-nowarn:0168,0219,0414,0618", f"-out:{p.parent / 'x.dll'}",
            *opts, *map(str, others), str(p)], timeout=600)

    _judge(fixes, ok, "mcs")


_HEADERS = (".h", ".hh", ".hpp", ".hxx")
_INCLUDES: dict[str, list[str]] = {}


def include_dirs(root: Path, cap: int = 64) -> list[str]:
    """-I for each directory of the package that holds headers and for its parent (`#include <lib/x.h>` from
    include/lib/x.h), shallowest first: most sources need no configure step to find them."""
    key = str(root)
    if key not in _INCLUDES:
        held = {p.parent for ext in _HEADERS for p in root.rglob(f"*{ext}")}
        dirs = sorted(held | {d.parent for d in held if d != root and d.parent.is_relative_to(root)},
                      key=lambda d: (len(d.parts), str(d)))
        _INCLUDES[key] = [x for d in dirs[:cap] for x in ("-I", str(d))]
    return _INCLUDES[key]


def _is_cpp_package(root: Path) -> bool:
    return any(True for ext in (".cpp", ".cc", ".cxx") for _ in root.rglob(f"*{ext}"))


def _gcc(tool: str, std: str, lang: str) -> Callable[[FixLike, str], bool]:
    def ok(f: FixLike, text: str) -> bool:
        include = include_dirs(Path(str(f.root))) if f.root else []
        return _tmp_run(Path(f.file).name, text, lambda p: [
            tool, std, "-fsyntax-only", "-w", "-x", lang, "-iquote", str(_disk(f).parent), *include, str(p)])
    return ok


def check_c(fixes: Sequence[FixLike]) -> None:
    """gcc (C) or g++ (C++) -fsyntax-only, with the file's own directory and every header directory of its package
    on the path. A header (.h) is C in a C package and C++ in a package with C++ sources."""
    cpp_roots = {r: _is_cpp_package(Path(r)) for r in {str(f.root) for f in fixes if f.root}}

    def as_cpp(f: FixLike) -> bool:
        return f.lang == "cpp" or (f.file.endswith(".h") and bool(f.root) and cpp_roots.get(str(f.root), False))

    for cpp, tool, std, lang in ((False, "gcc", "-std=gnu11", "c"), (True, "g++", "-std=gnu++17", "c++")):
        mine = [f for f in fixes if as_cpp(f) == cpp]
        if mine and not missing(tool):
            _judge(mine, _gcc(tool, std, lang), f"{tool} -fsyntax-only")


def tsc_binary(cache: Path, install: bool = True) -> Path | None:
    """The npm typescript compiler in the cache (installed there on first use when `install`), or on PATH; None
    if neither."""
    local = cache / "tools" / "node_modules" / ".bin" / "tsc"
    if local.is_file():
        return local
    if install and shutil.which("npm"):
        (cache / "tools").mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "typescript@5"], cwd=cache / "tools",
                       capture_output=True, text=True, timeout=600, check=False)
        if local.is_file():
            return local
    found = shutil.which("tsc")
    return Path(found) if found else None


_TS_ERROR = re.compile(r"^(?P<file>[^\s(]+)\(\d+,\d+\): error TS\d+", re.M)


def check_typescript(fixes: Sequence[FixLike], cache: Path, install: bool = True) -> None:
    """`tsc --noEmit` with the package's own tsconfig.json (the nearest above the file), else on the file alone with
    its folder beside it: the file's own errors must not grow (a file with errors before, from a missing @types
    package, is judged by its error count, not skipped)."""
    tsc = tsc_binary(cache, install) if fixes else None
    if tsc is None:
        return

    def errors(f: FixLike, text: str) -> int | None:
        src = _disk(f)
        top = Path(str(f.root)) if f.root else src.parent
        config = next((d / "tsconfig.json" for d in [src.parent, *src.parents]
                       if (d / "tsconfig.json").is_file() and d.is_relative_to(top)), None)
        base = config.parent if config else src.parent  # the project's own options where it ships them
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "pkg"
            shutil.copytree(base, copy, ignore=shutil.ignore_patterns("node_modules"))
            (copy / src.relative_to(base)).write_text(text, encoding="utf-8")
            args = ["-p", "tsconfig.json"] if config else [
                "--target", "es2022", "--moduleResolution", "node", "--lib", "es2022,dom", str(src.relative_to(base))]
            proc = subprocess.run([str(tsc), "--noEmit", "--skipLibCheck", "--pretty", "false", "--listFiles",
                                   *args], cwd=copy, capture_output=True, text=True, timeout=900, check=False)
            want = src.relative_to(base).as_posix()
            if not any(("/" + line).endswith("/" + want) for line in proc.stdout.splitlines()):
                return None  # the project's tsconfig leaves the file out: no verdict
            return sum(1 for m in _TS_ERROR.finditer(proc.stdout) if m["file"].lstrip("./") == want)

    counts: dict[tuple[str, str], int | None] = {}
    for f in fixes:
        key = (f.file, f.original)
        if key not in counts:
            counts[key] = errors(f, f.original)
        before = counts[key]
        if before is None:
            f.built = (False, False)
            continue
        after = errors(f, f.fixed_text)
        grew = after is None or after > before
        f.built, f.tool = (True, not grew), "tsc --noEmit"
        if grew and f.broken is None:
            f.broken = f"tsc --noEmit: {'the file left the program' if after is None else after - before} new error(s)"


def python_deps(cache: Path, packages: Sequence[str]) -> Path | None:
    """The corpus packages' dependencies, pip-installed once into the cache, for the import check."""
    target = cache / "pydeps"
    if (target / ".done").is_file():
        return target
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", str(target), *packages],
                          capture_output=True, text=True, timeout=1800, check=False)
    if proc.returncode != 0:
        return None
    (target / ".done").write_text("ok\n")
    return target


_IMPORT = r"""
import importlib.util, sys
name, path, init = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=[sys.argv[4]] if init else None)
mod = importlib.util.module_from_spec(spec)
sys.modules[name] = mod
spec.loader.exec_module(mod)
"""


def module_name(f: FixLike) -> tuple[str, Path] | None:
    """(dotted module name, the directory that must be on sys.path) for a file of a wheel's tree."""
    if not f.root:
        return None
    rel = Path(f.file.split("/", 1)[1])
    parts = [*rel.parent.parts, rel.stem] if rel.stem != "__init__" else list(rel.parent.parts)
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts), Path(str(f.root))


def check_python_import(fixes: Sequence[FixLike], deps: Path | None) -> None:
    """Each fixed module imported in a fresh interpreter (its package first on sys.path, then its dependencies):
    a module that imports unfixed must import fixed."""
    def ok(f: FixLike, text: str) -> bool:
        named = module_name(f)
        if named is None:
            return False
        name, top = named
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(top), *([str(deps)] if deps else [])]),
               "PYTHONDONTWRITEBYTECODE": "1", "DJANGO_SETTINGS_MODULE": ""}
        return _tmp_run(Path(f.file).name, text, lambda p: [
            sys.executable, "-c", _IMPORT, name, str(p), "1" if p.name == "__init__.py" else "0",
            str(_disk(f).parent)], timeout=120, env=env)

    _judge(fixes, ok, "python import")


def crate_root(path: Path) -> Path | None:
    for parent in path.parents:
        if (parent / "Cargo.toml").is_file():
            return parent
    return None


def _cargo_ok(crate: Path, rel: Path, text: str, target: Path) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / crate.name
        shutil.copytree(crate, work)
        manifest = (work / "Cargo.toml").read_text(encoding="utf-8")
        # dev-dependencies are not needed by `cargo check` of the library, and Debian need not ship them
        (work / "Cargo.toml").write_text(re.sub(r"(?ms)^\[(dev-dependencies|target\.[^\]]*\.dev-dependencies)"
                                                r"[^\n]*\n.*?(?=^\[|\Z)", "", manifest), encoding="utf-8")
        (work / ".cargo").mkdir(exist_ok=True)
        (work / ".cargo" / "config.toml").write_text(
            f'[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "{DEBIAN_CRATES}"\n')
        (work / rel).write_text(text, encoding="utf-8")
        env = {**os.environ, "CARGO_TARGET_DIR": str(target), "CARGO_NET_OFFLINE": "true"}
        proc = subprocess.run(["cargo", "check", "--offline", "--lib", "-q"], cwd=work, capture_output=True,
                              text=True, timeout=1200, env=env, check=False)
        return proc.returncode == 0


RUST_PER_RULE_AND_CRATE = 5  # a crate's check takes seconds to a minute: unsafe fixes are sampled, safe ones not


def check_rust(fixes: Sequence[FixLike], cache: Path) -> None:
    """`cargo check` of the fixed file's crate, offline against Debian's crates; one crate at a time (the target
    directory is shared per crate, so only the crate itself is checked again after a fix). Every fix of a `safe`
    rule is checked; of an unsafe rule, the first RUST_PER_RULE_AND_CRATE per crate (the rest stay unchecked)."""
    if missing("cargo"):
        return
    picked = sample(fixes, RUST_PER_RULE_AND_CRATE)

    def ok(f: FixLike, text: str) -> bool:
        disk = _disk(f)
        crate = crate_root(disk)
        if crate is None:
            return False
        return _cargo_ok(crate, disk.relative_to(crate), text, cache / "cargo-target" / crate.name)

    _judge(picked, ok, "cargo check", workers=1)


def summary_tools(cache: Path) -> dict[str, str]:
    """The checks this machine runs, with their versions, per language."""
    out: dict[str, str] = {}
    tsc = tsc_binary(cache, install=False)
    for lang, cmd, label in (("rust", ["cargo", "--version"], "cargo check"),
                             ("java", ["javac", "-version"], "javac"),
                             ("c", ["gcc", "--version"], "gcc -fsyntax-only"),
                             ("cpp", ["g++", "--version"], "g++ -fsyntax-only"),
                             ("php", ["php", "--version"], "php -l"), ("ruby", ["ruby", "--version"], "ruby -c"),
                             ("csharp", ["mcs", "--version"], "mcs"),
                             ("typescript", [str(tsc) if tsc else "tsc", "--version"], "tsc --noEmit")):
        ver = version(cmd)
        if ver:
            out[lang] = f"{label} ({ver})"
    return out


def run_all(fixes: Sequence[Any], cache: Path, python_packages: Sequence[str]) -> None:
    """Every check above on the fixes of its language (Python: import, after the harness's compile())."""
    by: dict[str, list[Any]] = {}
    for f in fixes:
        by.setdefault(f.lang, []).append(f)
    check_php(by.get("php", []))
    check_ruby(by.get("ruby", []))
    check_java(by.get("java", []))
    check_csharp(by.get("csharp", []))
    check_c(by.get("c", []) + by.get("cpp", []))
    check_typescript(by.get("typescript", []), cache)
    check_rust(by.get("rust", []), cache)
    py = [f for f in by.get("python", []) if f.built == (True, True) and f.file.endswith(".py")]
    if py:
        check_python_import(py, python_deps(cache, python_packages))
        for f in py:  # a module that does not import unfixed (settings, a C extension) keeps compile()'s verdict
            if f.built == (False, False):
                f.built, f.tool = (True, True), "compile()"
