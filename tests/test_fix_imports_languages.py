"""Imports are part of the fix in Python, Java, Rust and Go (issue 30, point 2): `sgtools scan --fix` on real
files with real ast-grep, then the language's own tool on the result (python runs the file, javac and rustc
compile it, go build builds it). Each compiler test skips where the compiler is absent, naming its install."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bin.fix_checks import JAVAC_JVM
from sgtools.cli import main
from sgtools.fixits.importers import python as py_imports
from tests.conftest import GO_HARNESS_CACHE

JAVAC, RUSTC, GO = shutil.which("javac"), shutil.which("rustc"), shutil.which("go")
needs_javac = pytest.mark.skipif(JAVAC is None,
                                 reason="javac is not installed: apt-get install -y default-jdk-headless")
needs_rustc = pytest.mark.skipif(RUSTC is None, reason="rustc is not installed: apt-get install -y rustc")
needs_go = pytest.mark.skipif(GO is None, reason="Go is not installed: apt-get update && apt-get install -y golang-go")

NOW_UTC = """id: now-utc
language: python
severity: warning
message: a naive datetime
rule: {pattern: $A.now()}
fix: $A.now(timezone.utc)
metadata:
  fixSafety: safe
  fixImports:
    add: ["from datetime import timezone"]
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str],
             community: str | None = None, rule: str | None = None) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    monkeypatch.chdir(root)
    assert main(["init"]) == 0
    if community is not None:
        assert main(["community", "import", community]) == 0
    if rule is not None:
        (root / "rules" / "rule.yml").write_text(rule)
    return root


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # the language's own tool is the proof; the test starts it directly (sgtools never runs a compiler)
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def _fixits(capsys: pytest.CaptureFixture[str]) -> dict[str, list[dict[str, object]]]:
    capsys.readouterr()
    main(["scan", "--format", "json", "--verify-fixits", "--no-progress"])
    out: dict[str, list[dict[str, object]]] = {}
    for d in json.loads(capsys.readouterr().out)["issues"]:
        out.setdefault(d["file"], []).extend(d["fixits"])
    return out


CLASS_FORM = "from datetime import datetime\n\nprint(datetime.now().tzinfo)\n"
MODULE_FORM = '"""A module."""\nimport datetime\n\nprint(datetime.datetime.now().tzinfo)\n'


@pytest.mark.parametrize("source", [CLASS_FORM, MODULE_FORM], ids=["from-import", "import-module"])
def test_the_python_fix_brings_its_import_and_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   source: str) -> None:
    root = _project(tmp_path, monkeypatch, {"app.py": source}, rule=NOW_UTC)
    assert main(["scan", "--fix", "--no-progress"]) == 0  # safe and verified: applied by default
    fixed = (root / "app.py").read_text()
    ran = _run([sys.executable, "app.py"], root)
    assert ran.returncode == 0 and ran.stdout.strip() == "UTC", (fixed, ran.stderr)  # no NameError
    if source == CLASS_FORM:
        assert fixed.startswith("from datetime import datetime, timezone\n")
    else:
        assert "import datetime\nfrom datetime import timezone\n" in fixed


def test_a_python_name_taken_makes_the_fix_unsafe_and_says_which_import(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    taken = "from datetime import datetime\nfrom mytz import timezone\n\nprint(datetime.now(), timezone)\n"
    root = _project(tmp_path, monkeypatch, {"app.py": taken, "ok.py": CLASS_FORM,
                                            "mytz.py": "timezone = 'mine'\n"}, rule=NOW_UTC)
    fixits = _fixits(capsys)
    [blocked] = fixits["app.py"]
    assert blocked["safety"] == "unsafe" and len(blocked["edits"]) == 1  # type: ignore[arg-type]
    assert "needs `from datetime import timezone`, not added: `timezone` already names something else in this " \
           "file (mytz.timezone)" in str(blocked["title"])
    [fine] = fixits["ok.py"]
    assert fine["safety"] == "safe" and fine["verified"]
    assert main(["scan", "--fix", "--no-progress"]) in (0, 1)
    assert (root / "app.py").read_text() == taken  # the unsafe one is left for a person to decide
    assert _run([sys.executable, "ok.py"], root).returncode == 0


@pytest.mark.parametrize(("source", "expected"), [
    ("x = datetime.now()\n", "from datetime import timezone\n\nx = datetime.now(timezone.utc)\n"),
    ('"""Doc."""\nfrom __future__ import annotations\n\nimport os\nx = datetime.now()\n',
     '"""Doc."""\nfrom __future__ import annotations\n\nimport os\nfrom datetime import timezone\n'
     "x = datetime.now(timezone.utc)\n"),
    ("from datetime import (\n    datetime,\n)\nx = datetime.now()\n",
     "from datetime import (\n    datetime,\n)\nfrom datetime import timezone\nx = datetime.now(timezone.utc)\n"),
    # a word in a comment or a string is not a use of the name
    ('import os  # timezone\ns = "timezone"\nx = datetime.now()\n',
     'import os  # timezone\nfrom datetime import timezone\ns = "timezone"\nx = datetime.now(timezone.utc)\n'),
    ("from datetime import timezone\nx = datetime.now()\n", None),
])
def test_python_import_placement(source: str, expected: str | None) -> None:
    fixed = source.replace("datetime.now()", "datetime.now(timezone.utc)")
    plan = py_imports.plan(source, fixed, ["from datetime import timezone"], [])
    assert not plan.missing
    if expected is None:
        assert plan.edit is None
    else:
        assert plan.edit is not None
        a, b, new = plan.edit
        assert (source[:a] + new + source[b:]).replace("datetime.now()", "datetime.now(timezone.utc)") == expected


JAVA = """package app;

import java.util.List;

public class Main {
    @SuppressWarnings("unchecked")
    static List<String> names() { return java.util.Collections.EMPTY_LIST; }

    public static void main(String[] args) { System.out.println(names().size()); }
}
"""


@needs_javac
@pytest.mark.slow  # a real compiler: seconds of CPU each
def test_the_java_fix_brings_its_import_and_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, monkeypatch, {"Main.java": JAVA}, community="collections-empty-constant-java")
    assert JAVAC is not None
    out = tmp_path / "classes"
    assert _run([JAVAC, *JAVAC_JVM, "-d", str(out), "Main.java"], root).returncode == 0  # the before-state compiles
    assert main(["scan", "--fix", "--unsafe-fixes", "--no-progress"]) == 0
    fixed = (root / "Main.java").read_text()
    assert "return Collections.emptyList();" in fixed and "import java.util.Collections;\n" in fixed
    built = _run([JAVAC, *JAVAC_JVM, "-d", str(out), "Main.java"], root)
    assert built.returncode == 0, (fixed, built.stderr)


def test_a_java_class_of_that_name_blocks_the_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    other = JAVA.replace("import java.util.List;", "import java.util.List;\nimport org.acme.Collections;")
    _project(tmp_path, monkeypatch, {"Main.java": other}, community="collections-empty-constant-java")
    [fx] = _fixits(capsys)["Main.java"]
    assert fx["safety"] == "unsafe" and "needs `import java.util.Collections;`, not added" in str(fx["title"])


RUST_RULE = """id: qualified-hashmap
language: rust
severity: info
message: spell HashMap::new() with a use
rule: {pattern: 'std::collections::HashMap::new()'}
fix: HashMap::new()
metadata:
  fixSafety: unsafe
  fixImports:
    add: ["std::collections::HashMap"]
"""
RUST = """//! A crate.
#![allow(dead_code)]

use std::fmt::Write;

fn main() {
    let m: std::collections::HashMap<u8, u8> = std::collections::HashMap::new();
    let mut s = String::new();
    write!(s, "{}", m.len()).unwrap();
    println!("{}", s);
}
"""


@needs_rustc
def test_the_rust_fix_brings_its_use_and_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, monkeypatch, {"main.rs": RUST}, rule=RUST_RULE)
    assert RUSTC is not None

    def check() -> subprocess.CompletedProcess[str]:
        return _run([RUSTC, "--edition", "2021", "--emit=metadata", "-o", str(tmp_path / "m.rmeta"), "main.rs"],
                    root)

    assert check().returncode == 0
    assert main(["scan", "--fix", "--unsafe-fixes", "--no-progress"]) == 0
    fixed = (root / "main.rs").read_text()
    assert "use std::fmt::Write;\nuse std::collections::HashMap;\n" in fixed and "= HashMap::new();" in fixed
    built = check()
    assert built.returncode == 0, (fixed, built.stderr)


SPRINTF = """package main

import (
\t"errors"
\t"fmt"
)

func check(n int) error {
\treturn errors.New(fmt.Sprintf("bad %d", n))
}

func main() { fmt.Println(check(1)) }
"""


def _go_build(root: Path) -> subprocess.CompletedProcess[str]:
    assert GO is not None
    return subprocess.run([GO, "build", "./..."], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(root), "GOCACHE": str(GO_HARNESS_CACHE / "gocache"),
                               "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}, check=False)


@needs_go
@pytest.mark.parametrize("still_used", [False, True], ids=["errors-unused", "errors-still-used"])
def test_the_go_fix_drops_an_import_it_leaves_unused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     still_used: bool) -> None:
    source = SPRINTF + ("\nvar ErrX = errors.New(\"x\")\n" if still_used else "")
    root = _project(tmp_path, monkeypatch, {"main.go": source, "go.mod": "module example.com/m\n\ngo 1.19\n"},
                    community="errors-new-sprintf-go")
    assert _go_build(root).returncode == 0
    assert main(["scan", "--fix", "--unsafe-fixes", "--no-progress"]) == 0
    fixed = (root / "main.go").read_text()
    assert 'return fmt.Errorf("bad %d", n)' in fixed and ('"errors"' in fixed) == still_used
    built = _go_build(root)
    assert built.returncode == 0, (fixed, built.stderr)
