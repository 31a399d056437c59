"""The fix harness: every bundled fix applied to every finding in real code from the package registries, then
checked with the language's own tools, and the judged verdicts (community_index/fix_verdicts.tsv) turned into
a measured confidence per band.

    python -m bin.fix_harness [--cache DIR] [--languages python,rust] [--review N] [--json OUT] [--fetch-only]

The corpora are fetched at run time into a cache outside the repository (default ~/.cache/sgtools-fix-corpus,
or $SGTOOLS_FIX_CORPUS): Python wheels (pip download), npm tarballs (npm pack), and Debian source packages of
Rust crates, Go modules, Ruby and PHP libraries (apt-get download; no install). Pinned versions keep the verdict
keys stable. The scan is the product's own: `sgtools scan --format json --verify-fixits` with the bundled rules,
so every fix-it carries the `safety`, `verified` and `confidence` a user would see. Each fix is applied alone
to its file and checked before and after by the language's own tool (Python: compile() and an import of the
module; JavaScript: node's parser; Go: go build; Rust: cargo check; TypeScript: tsc --noEmit; Java: javac; C/C++:
gcc/g++ -fsyntax-only; PHP: php -l; Ruby: ruby -c; C#: mcs; bin/fix_checks.py), and re-parsed with no more ERROR
nodes than the original (every language, through ast-grep). `--evidence` records per rule how many fixes the
tools checked and how many failed (community_index/fix_evidence.tsv, bin/fix_evidence.py): a bundled `safe` fix
needs 20 checked and 0 failed there. `--review N` writes N not yet judged fixes,
a few per rule, to review.md in the cache for reading by eye; verdicts go into fix_verdicts.tsv.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bin import fix_checks, fix_evidence, fix_sources

REPO = Path(__file__).resolve().parent.parent
VERDICTS = REPO / "community_index" / "fix_verdicts.tsv"
PYPI = ["ansible-core==2.19.14", "django==5.2.19", "requests==2.34.2", "werkzeug==3.1.9", "pygments==2.21.0",
        "docutils==0.23", "sqlalchemy==2.1.9"]
# A pure-Python project whose sdist ships its own test suite: `sgtools scan --fix` must leave it passing.
SDIST = "docutils==0.21.2"
NPM = ["lodash@4.18.1", "jquery@4.0.0", "moment@2.31.0", "underscore@1.13.8", "async@3.2.6", "rxjs@7.8.2"]
DEBIAN = {
    "rust": ["librust-regex-dev", "librust-clap-dev", "librust-grep-searcher-dev", "librust-ignore-dev",
             "librust-serde-json-dev", "librust-syn-dev", "librust-tokio-dev"],
    "go": ["golang-github-spf13-cobra-dev", "golang-github-stretchr-testify-dev", "golang-github-gorilla-mux-dev",
           "golang-github-prometheus-client-golang-dev", "golang-github-urfave-cli-dev",
           "golang-github-sirupsen-logrus-dev", "golang-github-spf13-viper-dev", "golang-github-pelletier-go-toml-dev",
           "golang-github-hashicorp-hcl-dev", "golang-github-mitchellh-mapstructure-dev",
           "golang-github-gorilla-websocket-dev", "golang-github-miekg-dns-dev", "golang-github-gin-gonic-gin-dev",
           "golang-github-jessevdk-go-flags-dev", "golang-github-coreos-go-systemd-dev",
           "golang-github-dgraph-io-badger-dev"],
    "ruby": ["ruby-rack", "ruby-sinatra", "ruby-thor"],
    "php": ["php-guzzlehttp-guzzle", "php-monolog", "php-twig", "php-symfony-console"],
}
LANGUAGES = ("python", "javascript", *DEBIAN, *fix_sources.DEBIAN_SOURCES)
BANDS = ((0.9, 1.01), (0.8, 0.9), (0.6, 0.8), (0.3, 0.6), (0.0, 0.3))


def default_cache() -> Path:
    return Path(os.environ.get("SGTOOLS_FIX_CORPUS") or Path.home() / ".cache" / "sgtools-fix-corpus")


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


def fetch_sdist(cache: Path) -> Path | None:
    """The unpacked sdist of `SDIST` (with its tests) in the cache, fetched when missing; None if it cannot be."""
    name, version = SDIST.split("==")
    target = cache / "sdist" / f"{name}-{version}"
    if (target / "test").is_dir():
        return target
    dl = cache / "dl" / "sdist"
    dl.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", str(dl), SDIST],
         dl)
    archive = next(iter(sorted(dl.glob(f"{name}-{version}.tar.gz"))), None)
    if archive is None:
        return None
    shutil.unpack_archive(archive, cache / "sdist")
    return target if (target / "test").is_dir() else None


def fetch(cache: Path, languages: list[str]) -> dict[str, str]:
    """Fetch each missing corpus; returns {language: problem} for those that could not be had."""
    problems: dict[str, str] = {}
    dl = cache / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    proc: subprocess.CompletedProcess[str] | None
    for lang in languages:
        src = cache / "src" / lang
        if (src / ".done").is_file():
            continue
        shutil.rmtree(src, ignore_errors=True)
        src.mkdir(parents=True)
        if lang == "python":
            proc = _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                         "-d", str(dl / "py"), *PYPI], dl)
            for whl in sorted((dl / "py").glob("*.whl")):
                with zipfile.ZipFile(whl) as zf:
                    zf.extractall(src / whl.name.split("-")[0].lower())
        elif lang == "javascript":
            proc = _run(["npm", "pack", "--silent", *NPM], dl) if shutil.which("npm") else None
            for tgz in sorted(dl.glob("*.tgz")):
                shutil.unpack_archive(tgz, src / tgz.name.rsplit("-", 1)[0])
        elif lang in fix_sources.DEBIAN_SOURCES:  # Java, C, C++, C#: Debian's source packages
            why = fix_sources.fetch_sources(lang, src, dl)
            if why:
                problems[lang] = why
                continue
            proc = subprocess.CompletedProcess([], 0, "", "")
        else:
            proc = _run(["apt-get", "download", *DEBIAN[lang]], dl) if shutil.which("apt-get") else None
            for deb in sorted(dl.glob("*.deb")):
                if any(deb.name.startswith(p + "_") for p in DEBIAN[lang]):
                    _run(["dpkg-deb", "-x", str(deb), str(src / deb.name.split("_")[0])], dl)
        if proc is None or proc.returncode != 0 or not any(src.iterdir()):
            problems[lang] = (proc.stderr.strip()[-300:] if proc else "no package client") or "nothing fetched"
            continue
        (src / ".done").write_text("ok\n")
    return problems


@dataclass
class Fix:
    lang: str
    rule: str
    file: str  # relative to the language's corpus: <package>/<path>
    line: int
    old: str
    new: str
    safety: str
    verified: bool
    confidence: float
    reason: str | None  # why it is not verified, when it is not
    fixed_text: str = field(repr=False)
    original: str = field(repr=False)
    broken: str | None = None
    root: str | None = None  # the package's directory on disk (for whole-package builds)
    built: tuple[bool, bool] | None = None  # (before, after) by the language's own compiler, when it ran
    tool: str | None = None  # which tool gave `built` its verdict (its before-state passed)

    @property
    def key(self) -> str:
        digest = hashlib.sha1(f"{self.old}\0{self.new}".encode()).hexdigest()[:10]
        return f"{self.rule}|{self.file}|{self.line}|{digest}"


def _why(fx: dict[str, Any]) -> str:
    v = fx.get("verification") or {}
    if not v.get("checked"):
        return str(v.get("reason") or "not checked")
    return "still fires" if v.get("stillFires") else "parses worse"


SUFFIX_LANGUAGE = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
                   ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx", ".jsx": "javascript",
                   ".rs": "rust", ".go": "go", ".rb": "ruby", ".php": "php", ".sh": "bash", ".bash": "bash",
                   ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".java": "java", ".kt": "kotlin",
                   ".cs": "csharp"}


def scan(corpus: Path) -> list[Fix]:
    """The product's own JSON scan of each package of one corpus (bundled rules, fix-its verified), each fix
    applied alone. Limits are raised only where a whole package would exceed them (verification count and the
    engine's output cap), and default excludes are off (npm packages ship their code in dist/); everything else
    runs with the defaults a user has."""
    env = {**os.environ, "SGTOOLS_FIXIT_VERIFY_MAX": "100000", "SGTOOLS_FIXIT_VERIFY_MAX_BYTES": str(1 << 31),
           "SGTOOLS_ENGINE_MAX_OUTPUT": str(1 << 31)}
    out: list[Fix] = []
    for root in sorted(p for p in corpus.iterdir() if p.is_dir()):
        proc = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--format", "json", "--verify-fixits",
                               "--no-progress", "--allow-rule-errors", "--no-default-excludes", "--root", str(root),
                               str(root)],
                              cwd=root, capture_output=True, text=True, env=env, timeout=3600, check=False)
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"scan of {root} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        out += _fixes(root, json.loads(proc.stdout)["issues"])
    return out


def _fixes(root: Path, issues: list[dict[str, Any]]) -> list[Fix]:
    out: list[Fix] = []
    texts: dict[str, bytes] = {}
    for d in issues:
        for fx in d.get("fixits") or []:
            if fx.get("kind") != "fix" or not fx.get("edits"):
                continue
            edit = fx["edits"][0]
            file = str(edit.get("file") or d["file"])
            data = texts.setdefault(file, (root / file).read_bytes())
            s, e = int(edit["byteStart"]), int(edit["byteEnd"])
            fixed = data[:s] + str(edit["newText"]).encode() + data[e:]
            lang = SUFFIX_LANGUAGE.get(Path(file).suffix, Path(file).suffix)
            if len(fx["edits"]) > 1:  # imports (fixits/imports.py): the file's fixes of the rule go in together
                fixed = _together(data, [f for dd in issues if dd["ruleId"] == d["ruleId"]
                                         for f in dd.get("fixits") or [] if f.get("edits")
                                         and str(f["edits"][0].get("file") or dd["file"]) == file], fx)
            out.append(Fix(lang, str(d["ruleId"]), f"{root.name}/{file}", int(d["line"]),
                           data[s:e].decode("utf-8", "replace"), str(edit["newText"]), str(fx.get("safety")),
                           bool(fx.get("verified")), float(fx.get("confidence") or 0),
                           None if fx.get("verified") else _why(fx),
                           fixed.decode("utf-8", "replace"), data.decode("utf-8", "replace"), root=str(root)))
    return out


def _together(data: bytes, group: list[dict[str, Any]], fx: dict[str, Any]) -> bytes:
    """The file under all of a rule's fix-its that share `fx`'s import edit, that edit applied once, as
    apply_fixes applies them (together or not at all)."""
    shared = fx["edits"][1]
    edits = {(int(e["byteStart"]), int(e["byteEnd"]), str(e["newText"]))
             for f in group if len(f["edits"]) > 1 and f["edits"][1] == shared for e in f["edits"]}
    out = data
    for a, b, new in sorted(edits, reverse=True):
        out = out[:a] + new.encode() + out[b:]
    return out


GOCODE = Path("/usr/share/gocode")  # Debian's Go sources: `apt-get install` of the corpus's -dev packages puts
# them and their dependencies here, so a package builds offline (module mode with them vendored, else GOPATH mode)


def _go_build(pkg: Path, name: str, text: str, gocache: Path) -> bool:
    """Whether the package in `pkg` builds with `name` holding `text`, with its tests for a _test.go file: in
    module mode with Debian's Go sources vendored (fix_sources.go_module_build) when the package has a go.mod,
    else in GOPATH mode, offline, with Debian's Go sources as the second GOPATH entry. A package whose imports
    are not there does not build before either, and gets no verdict."""
    moduled = fix_sources.go_module_build(pkg, name, text, gocache)
    if moduled is not None:
        return moduled
    parts = pkg.parts
    at = parts.index("src") + 1 if "gocode" in parts and "src" in parts else len(parts) - 1
    import_path = Path(*parts[at:]) if at < len(parts) else Path("p")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "src" / import_path
        work.mkdir(parents=True)
        tests = name.endswith("_test.go")
        for go in pkg.glob("*.go"):
            if tests or not go.name.endswith("_test.go"):
                shutil.copy(go, work / go.name)
        (work / name).write_text(text, encoding="utf-8")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "GOPATH": f"{tmp}:{GOCODE}",
               "GO111MODULE": "off",
               "GOCACHE": str(gocache), "CGO_ENABLED": "0", "GOFLAGS": "", "GOTOOLCHAIN": "local"}
        cmd = ["go", "test", "-c", "-trimpath", "-o", os.devnull, "."] if tests else \
            ["go", "build", "-trimpath", "-o", os.devnull, "."]  # -trimpath: the cache serves other temp dirs
        proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env, timeout=300, check=False)
        return proc.returncode == 0


GO_PER_RULE_AND_PACKAGE = 8  # a package's build takes seconds (badger's test binary: ~10 s under load): unsafe
# fixes are sampled as Java's are, the first 8 per rule and package; every fix of a `safe` rule is built


def _check_go(fixes: list[Fix], cache: Path) -> None:
    """Go: the fixed file's whole package built before and after with `go build`, or `go test -c` for a test
    file (the language's own proof). A fixed text already built (the fixes of a rule with an import edit share
    one: they are applied together) is not built again, nor an unfixed package that built in an earlier run
    (fix_sources.BuiltBefore)."""
    go = fix_checks.sample([f for f in fixes if f.file.endswith(".go") and f.root], GO_PER_RULE_AND_PACKAGE)
    if not go or not shutil.which("go"):
        return
    before: dict[str, bool] = {}
    built: dict[tuple[str, str], bool] = {}
    known = fix_sources.BuiltBefore(cache / "go-built-before.json")
    for f in go:
        path = Path(str(f.root)) / f.file.split("/", 1)[1]
        if str(path) not in before:
            seen = known.key(path, f.original)
            before[str(path)] = seen in known.keys or _go_build(path.parent, path.name, f.original, cache / "gocache")
            if before[str(path)]:
                known.add(seen)
        key = (str(path), hashlib.sha256(f.fixed_text.encode()).hexdigest())
        if before[str(path)] and key not in built:
            built[key] = _go_build(path.parent, path.name, f.fixed_text, cache / "gocache")
        after = built.get(key, False)
        f.built = (before[str(path)], after)
        f.tool = "go build" if before[str(path)] else None
        if before[str(path)] and not after and f.broken is None:
            f.broken = "go build: the package no longer builds"


def toolchains(cache: Path) -> dict[str, str]:
    """{tool as a fix's `tool` names it: that tool with its version}, for the tools installed here."""
    py = f"CPython {sys.version.split()[0]}"
    out = {"compile()": f"compile() ({py})", "python import": f"python import ({py})",
           "go build": f"go build (go test -c for a _test.go file), whole package, module mode with Debian's Go "
                       f"sources vendored, else GOPATH mode ({fix_checks.version(['go', 'version'])})",
           "node's parser": f"node's parser ({fix_checks.version(['node', '--version'])})"}
    for label in fix_checks.summary_tools(cache).values():
        out[label.split(" (")[0]] = label
    return out


_NODE_CHECK = r"""
const vm = require('vm'); const fs = require('fs');
const ok = (src) => { try { new vm.Script(src); return true; } catch (e) {}
  try { new vm.SourceTextModule(src); return true; } catch (e) { return false; } };
for (const line of fs.readFileSync(0, 'utf8').split('\n').filter(Boolean)) {
  const [a, b] = JSON.parse(line); console.log(JSON.stringify([ok(a), ok(b)])); }
"""


def _check_python(fixes: list[Fix]) -> None:
    for f in fixes:
        try:
            compile(f.original, f.file, "exec")
        except (SyntaxError, ValueError):
            f.built = (False, False)
            continue  # the original does not compile here (another Python version): no verdict from compile
        try:
            compile(f.fixed_text, f.file, "exec")
            f.built = (True, True)
            f.tool = "compile()"
        except (SyntaxError, ValueError) as exc:
            f.built, f.tool = (True, False), "compile()"
            f.broken = f"compile: {exc.__class__.__name__}: {exc}"


def _check_node(fixes: list[Fix]) -> None:
    js = [f for f in fixes if f.file.endswith((".js", ".cjs", ".mjs"))]
    if not js or not shutil.which("node"):
        return
    lines = "".join(json.dumps([f.original, f.fixed_text]) + "\n" for f in js)
    proc = subprocess.run(["node", "--experimental-vm-modules", "--no-warnings", "-e", _NODE_CHECK], input=lines,
                          capture_output=True, text=True, timeout=1800, check=False)
    for f, res in zip(js, proc.stdout.splitlines(), strict=False):
        before, after = json.loads(res)
        f.built = (bool(before), bool(before and after))
        f.tool = "node's parser" if before else None
        if before and not after:
            f.broken = "node: no longer parses"


def _ast_grep() -> str:
    from sgtools.engine.process import Engine

    return str(Engine().binary)


def _check_reparse(fixes: list[Fix]) -> None:
    """ERROR nodes in each fixed text against its original, through ast-grep, one call per file suffix."""
    by_suffix: dict[str, list[Fix]] = defaultdict(list)
    for f in fixes:
        if Path(f.file).suffix in SUFFIX_LANGUAGE:
            by_suffix[Path(f.file).suffix].append(f)
    binary = _ast_grep()
    with tempfile.TemporaryDirectory() as tmp:
        for suffix, group in by_suffix.items():
            base = Path(tmp) / suffix.strip(".")
            base.mkdir()
            for i, f in enumerate(group):
                (base / f"{i}a{suffix}").write_text(f.original)
                (base / f"{i}b{suffix}").write_text(f.fixed_text)
            rule = json.dumps({"id": "err", "language": SUFFIX_LANGUAGE[suffix], "rule": {"kind": "ERROR"}})
            proc = _run([binary, "scan", "--inline-rules", rule, "--json=stream", "."], base)
            errors = Counter(Path(json.loads(ln)["file"]).name for ln in proc.stdout.splitlines() if ln.strip())
            for i, f in enumerate(group):
                extra = errors[f"{i}b{suffix}"] - errors[f"{i}a{suffix}"]
                if extra > 0 and f.broken is None:
                    f.broken = f"re-parse: {extra} new ERROR node(s)"


def load_verdicts(path: Path = VERDICTS) -> dict[str, tuple[str, str]]:
    """{key: (verdict, reason)}; verdict is `right` or `wrong`."""
    out: dict[str, tuple[str, str]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                key, verdict, reason = [*line.split("\t"), "", ""][:3]
                out[key] = (verdict.strip(), reason.strip())
    return out


def summarize(fixes: list[Fix], verdicts: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """Per language and per safety: applied, broken; judged and right; the confidence table per band."""
    per_lang: dict[str, Counter[str]] = defaultdict(Counter)
    for f in fixes:
        c = per_lang[f.lang]
        c["applied"] += 1
        c[f"{f.safety}"] += 1
        c[f"broken_{f.safety}"] += f.broken is not None
        verdict = verdicts.get(f.key)
        if verdict:
            c[f"judged_{f.safety}"] += 1
            c[f"right_{f.safety}"] += verdict[0] == "right" and f.broken is None
    bands = []
    for lo, hi in BANDS:
        inside = [f for f in fixes if f.verified and lo <= f.confidence < hi]
        judged = [verdicts[f.key][0] if f.broken is None else "wrong" for f in inside if f.key in verdicts]
        right = [f for f in inside if f.broken is None and verdicts.get(f.key, ("right",))[0] == "right"]
        bands.append({"band": f"[{lo:.1f}, {min(hi, 1.0):.1f}{']' if hi > 1 else ')'}", "fixes": len(inside),
                      "broken": sum(f.broken is not None for f in inside), "judged": len(judged),
                      "judgedRight": judged.count("right"),
                      "rightShare": round(judged.count("right") / len(judged), 3) if judged else None,
                      "notBrokenShare": round(len(right) / len(inside), 3) if inside else None})
    return {"languages": {k: dict(v) for k, v in sorted(per_lang.items())}, "bands": bands,
            "total": len(fixes), "brokenSafe": sum(f.broken is not None and f.safety == "safe" for f in fixes)}


def review(fixes: list[Fix], verdicts: dict[str, tuple[str, str]], n: int, out: Path) -> int:
    """Write up to `n` unjudged fixes, round-robin over rules, with two lines of context, for reading by eye."""
    by_rule: dict[str, list[Fix]] = defaultdict(list)
    for f in sorted(fixes, key=lambda f: f.key):
        if f.key not in verdicts:
            by_rule[f.rule].append(f)
    picked: list[Fix] = []
    while len(picked) < n and any(by_rule.values()):
        for rule in sorted(by_rule):
            if by_rule[rule] and len(picked) < n:
                lst = by_rule[rule]
                picked.append(lst.pop(len(lst) // 2 if len(lst) % 3 else 0))
    parts = []
    for f in picked:
        lines = f.original.splitlines()
        ctx = "\n".join(f"    {ln}" for ln in lines[max(0, f.line - 3): f.line + 2])
        parts.append(f"## {f.key}\nsafety={f.safety} verified={f.verified} confidence={f.confidence} "
                     f"broken={f.broken}\n{ctx}\n  - {f.old!r}\n  + {f.new!r}\n")
    out.write_text("\n".join(parts), encoding="utf-8")
    return len(picked)


def print_summary(s: dict[str, Any]) -> None:
    print(f"{'language':<12}{'applied':>8}{'safe':>6}{'unsafe':>7}{'broken safe':>12}{'broken unsafe':>14}"
          f"{'judged safe':>12}{'right safe':>11}{'judged unsafe':>14}{'right unsafe':>13}")
    for lang, c in s["languages"].items():
        print(f"{lang:<12}{c.get('applied', 0):>8}{c.get('safe', 0):>6}{c.get('unsafe', 0):>7}"
              f"{c.get('broken_safe', 0):>12}{c.get('broken_unsafe', 0):>14}{c.get('judged_safe', 0):>12}"
              f"{c.get('right_safe', 0):>11}{c.get('judged_unsafe', 0):>14}{c.get('right_unsafe', 0):>13}")
    print(f"total applied: {s['total']}; broken among safe: {s['brokenSafe']}")
    print(f"{'confidence':<14}{'fixes':>7}{'broken':>8}{'judged':>8}{'right':>7}{'right share':>12}"
          f"{'not broken':>11}")
    for b in s["bands"]:
        share = "-" if b["rightShare"] is None else f"{b['rightShare']:.3f}"
        nb = "-" if b["notBrokenShare"] is None else f"{b['notBrokenShare']:.3f}"
        print(f"{b['band']:<14}{b['fixes']:>7}{b['broken']:>8}{b['judged']:>8}{b['judgedRight']:>7}{share:>12}"
              f"{nb:>11}")


def run(cache: Path, languages: list[str]) -> list[Fix]:
    fixes: list[Fix] = []
    for lang in languages:
        root = cache / "src" / lang
        if (root / ".done").is_file():
            fixes += scan(root)
    check(fixes, cache)
    return fixes


def check(fixes: list[Fix], cache: Path | None = None) -> None:
    """Set `broken` on each fix whose result no longer compiles or re-parses where its original did."""
    _check_python([f for f in fixes if f.file.endswith(".py")])
    _check_node(fixes)
    cache = cache or Path(tempfile.gettempdir()) / "sgtools-fix-harness"
    _check_go(fixes, cache)
    fix_checks.run_all(fixes, cache, PYPI)
    _check_reparse(fixes)


# The languages whose fixes a corpus gives evidence for: its own, and those its packages are written in beside it
# (rxjs is TypeScript; a C++ package's headers are .h). A fix in another language (a Python script inside a C
# source package) is left out of the table and the evidence, so that a run of some corpora does not replace the
# evidence of that language's own corpus with a few stray fixes.
ALSO_COUNTED = {"javascript": ("typescript", "tsx"), "cpp": ("c",)}


def counted(langs: list[str]) -> set[str]:
    return {x for lang in langs for x in (lang, *ALSO_COUNTED.get(lang, ()))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=default_cache())
    ap.add_argument("--languages", default=",".join(LANGUAGES))
    ap.add_argument("--no-fetch", action="store_true", help="use only what the cache already holds")
    ap.add_argument("--fetch-only", action="store_true",
                    help="fetch what the cache lacks and stop; exit 1 if a corpus could not be had (.ci/run)")
    ap.add_argument("--review", type=int, default=0, metavar="N", help="write N unjudged fixes to review.md")
    ap.add_argument("--json", type=Path, help="write the summary and every fix's key and check as JSON")
    ap.add_argument("--table", action="store_true", help="print docs/fixes.md's per-language compiler table")
    ap.add_argument("--evidence", action="store_true",
                    help=f"rewrite {fix_evidence.EVIDENCE.name}'s lines of these languages")
    args = ap.parse_args(argv)
    langs = [x for x in args.languages.split(",") if x]
    if not args.no_fetch:
        missing = fetch_sdist(args.cache) is None
        if missing:
            print(f"fix_harness: {SDIST}: sdist not available", file=sys.stderr)
        problems = fetch(args.cache, langs)
        for lang, why in problems.items():
            print(f"fix_harness: {lang}: corpus not available ({why})", file=sys.stderr)
        if args.fetch_only:
            return 1 if missing or problems else 0
    fixes = run(args.cache, langs)
    verdicts = load_verdicts()
    summary = summarize(fixes, verdicts)
    print_summary(summary)
    own = [f for f in fixes if f.lang in counted(langs)]  # not the odd Python script inside a C package
    if args.table:
        print("\n".join(fix_evidence.table(own, toolchains(args.cache), "python -m bin.fix_harness --table "
                                           f"--languages {','.join(langs)}")))
    if args.evidence:
        fix_evidence.write(fix_evidence.rows(own), sorted(counted(langs)), "python -m bin.fix_harness --evidence "
                           f"--languages {','.join(langs)}", tools=toolchains(args.cache))
    for f in fixes:
        if f.broken and f.safety == "safe":
            print(f"BROKEN safe fix: {f.key}: {f.broken}")
    if args.review:
        n = review(fixes, verdicts, args.review, args.cache / "review.md")
        print(f"wrote {n} fixes to review to {args.cache / 'review.md'}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "fixes": [
            {"key": f.key, "safety": f.safety, "verified": f.verified, "confidence": f.confidence,
             "broken": f.broken, "unverifiedBecause": f.reason} for f in fixes]}, indent=1))
    return 1 if summary["brokenSafe"] else 0


if __name__ == "__main__":
    sys.exit(main())
