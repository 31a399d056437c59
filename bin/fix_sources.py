"""Corpora from Debian's source packages for the fix harness (bin/fix_harness.py), and Go builds in module mode.

Java, C, C++ and C# code comes from Debian's source packages (`apt-get source --download-only`; the upstream
`*.orig.tar.*` is unpacked, Debian's patches are not applied). That needs a `deb-src` entry in apt's sources
(`Types: deb deb-src` in /etc/apt/sources.list.d/debian.sources, then `apt-get update`): without one, the
corpus is reported as not available and says so. Some source packages are not served in full by every mirror;
a package whose upstream tarball does not come is left out and named.

Go: a package builds in module mode when its module has a go.mod. Its requirements are vendored from Debian's
Go sources (`/usr/share/gocode/src`, filled by `apt-get install` of the corpus's golang-*-dev packages): a
`vendor/` tree of links to them beside a `vendor/modules.txt` naming each requirement, then
`go build -mod=vendor` (or `go test -c`, so that test files are compiled too), offline. A module whose
requirements Debian does not ship does not build before the fix either, and gets no verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

DEBIAN_SOURCES = {
    "java": ["libcommons-lang-java", "libcommons-lang3-java", "libcommons-collections3-java", "libcommons-codec-java",
             "libcommons-io-java", "apache-log4j1.2", "libjdom1-java", "libjoda-time-java"],
    "c": ["zlib", "lua5.4", "bzip2", "cjson", "lz4"],
    "cpp": ["tinyxml2", "pugixml", "fmtlib", "yaml-cpp", "leveldb", "libjsoncpp"],
    # C#: the mono libraries that Debian's mirror serves in full (cecil, nrefactory, nini, taglib-sharp, mono-addins
    # and a dozen more are listed but their upstream tarballs are not served here: apt-get source fails on them)
    "csharp": ["dbus-sharp", "keepass2", "newtonsoft-json", "nunit", "dnlib", "opentk", "hyena"],
}
GOCODE = Path("/usr/share/gocode/src")
NO_DEB_SRC = "no deb-src entry in apt's sources: add `Types: deb deb-src` to /etc/apt/sources.list.d/debian.sources"


def fetch_sources(lang: str, src: Path, dl: Path) -> str | None:
    """Unpack each of the language's source packages into `src/<package>`; None when at least one came, else
    why none did. A package that does not come is named on stderr by the caller's report."""
    if not shutil.which("apt-get"):
        return "no package client (apt-get)"
    problems = []
    for name in DEBIAN_SOURCES[lang]:
        where = dl / "debsrc" / name
        where.mkdir(parents=True, exist_ok=True)
        if not list(where.glob("*.orig.tar.*")):
            proc = subprocess.run(["apt-get", "source", "--download-only", name], cwd=where, capture_output=True,
                                  text=True, timeout=600, check=False)
            if "You must put some 'deb-src' URIs" in proc.stderr:
                return NO_DEB_SRC
        tarballs = sorted(where.glob("*.orig.tar.*"))
        if not tarballs:
            problems.append(f"{name}: its upstream tarball was not served")
            continue
        target = src / name
        target.mkdir(parents=True, exist_ok=True)
        shutil.unpack_archive(str(tarballs[0]), str(target))
    if not any(p.is_dir() for p in src.iterdir()):
        return "; ".join(problems) or "nothing fetched"
    return None


def module_root(pkg: Path) -> Path | None:
    """The directory holding the go.mod of the module that `pkg` belongs to."""
    for d in [pkg, *pkg.parents]:
        if (d / "go.mod").is_file():
            return d
        if d.name in ("src", "gocode"):
            return None
    return None


_REQUIRE = re.compile(r"^\s*(?:require\s+)?([\w.~-]+\.[\w./~-]+)\s+(v\S+)", re.M)


def _link_tree(src: Path, dst: Path, skip: tuple[str, ...]) -> None:
    """`dst` mirrors `src` by links, except the path `skip` (the main module, which must not be vendored)."""
    for child in src.iterdir():
        if skip and child.name == skip[0]:
            if len(skip) > 1:
                (dst / child.name).mkdir()
                _link_tree(child, dst / child.name, skip[1:])
        else:
            (dst / child.name).symlink_to(child)


def _vendor(work: Path) -> None:
    gomod = (work / "go.mod").read_text(encoding="utf-8", errors="replace")
    found = re.search(r"^module\s+(\S+)", gomod, re.M)
    vendor = work / "vendor"
    shutil.rmtree(vendor, ignore_errors=True)
    vendor.mkdir()
    if GOCODE.is_dir():
        _link_tree(GOCODE, vendor, tuple(found[1].strip('"').split("/")) if found else ())
    requires = [(p, v) for p, v in _REQUIRE.findall(gomod.split("\nreplace", 1)[0]) if p != "go"]
    (vendor / "modules.txt").write_text("".join(f"# {p} {v}\n## explicit\n" for p, v in requires))


def go_module_build(pkg: Path, name: str, text: str, gocache: Path) -> bool | None:
    """Whether the package in `pkg` builds (with its tests, for a _test.go file) in module mode with `name`
    holding `text`; None when `pkg` is in no module (the caller builds it in GOPATH mode)."""
    root = module_root(pkg)
    if root is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "m"
        shutil.copytree(root, work, symlinks=True, ignore=shutil.ignore_patterns("vendor", ".git"))
        _vendor(work)
        rel = pkg.relative_to(root)
        (work / rel / name).write_text(text, encoding="utf-8")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "GOPATH": f"{tmp}/gopath",
               "GO111MODULE": "on", "GOFLAGS": "-mod=vendor", "GOPROXY": "off", "GONOSUMDB": "*", "GOSUMDB": "off",
               "GOCACHE": str(gocache), "CGO_ENABLED": "0", "GOTOOLCHAIN": "local"}
        tests = name.endswith("_test.go")
        # -trimpath keeps this temporary directory out of the build cache's keys, so the packages a build
        # shares with the last one (the vendored requirements, the module's other packages) come from the cache
        # instead of being compiled again: a package's build drops from ~13 s to ~1-3 s once its cache is warm
        cmd = ["go", "test", "-c", "-o", os.devnull] if tests else ["go", "build", "-o", os.devnull]
        cmd.insert(2, "-trimpath")
        proc = subprocess.run([*cmd, "./" + rel.as_posix()], cwd=work, capture_output=True, text=True, env=env,
                              timeout=600, check=False)
        return proc.returncode == 0


class BuiltBefore:
    """The unfixed packages already seen to build, remembered in the cache directory: the corpus there is
    fetched once and never edited, and a before-build is the same build every run (a test file's `go test -c`
    links a binary, ~1.3 CPU s each, half of the fix-harness test's Go time). Keyed by the Go version, the file
    and the content of its package's directory, and the names in Debian's Go sources. Only a success is
    remembered: a stale one can only make the fixed text's build fail too, a failure shown, never hidden."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.keys: set[str] = set(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            self.keys = set()
        self._context: str | None = None

    def key(self, path: Path, original: str) -> str:
        if self._context is None:
            go = subprocess.run(["go", "version"], capture_output=True, text=True, check=False).stdout
            debian = sorted(p.name for p in GOCODE.iterdir()) if GOCODE.is_dir() else []
            self._context = json.dumps([go, debian])
        digest = hashlib.sha256(self._context.encode())
        digest.update(str(path).encode() + b"\0" + original.encode())
        for other in sorted(path.parent.iterdir()):
            if other.name != path.name and other.is_file() and other.suffix in (".go", ".mod", ".sum"):
                digest.update(other.name.encode() + b"\0" + other.read_bytes())
        return digest.hexdigest()

    def add(self, key: str) -> None:
        if key in self.keys:
            return
        self.keys.add(key)
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(sorted(self.keys)), encoding="utf-8")
        os.replace(tmp, self.path)
