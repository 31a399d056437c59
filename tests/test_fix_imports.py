"""Imports are part of the fix (issue 30): a Go fix that moves a name to another package adds and removes the
imports in the same fix-it, so `sgtools scan --fix --unsafe-fixes` leaves code that `go build` accepts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.fixits.importers import go
from tests.conftest import GO_HARNESS_CACHE

GO = shutil.which("go")
needs_go = pytest.mark.skipif(GO is None, reason="Go is not installed: apt-get update && apt-get install -y golang-go")

IOUTIL = """package main

import (
\t"fmt"
\t"io/ioutil"
\t"net/http"
)

func load(path string) ([]byte, error) {
\treturn ioutil.ReadFile(path)
}

func body(resp *http.Response) ([]byte, error) {
\tdefer resp.Body.Close()
\treturn ioutil.ReadAll(resp.Body)
}

func main() {
\tb, err := load("x")
\tfmt.Println(len(b), err, body)
}
"""


def _go_build(root: Path) -> subprocess.CompletedProcess[str]:
    assert GO is not None
    # go build is the language's own proof; the test starts it directly (sgtools never runs go)
    return subprocess.run([GO, "build", "./..."], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(root), "GOCACHE": str(GO_HARNESS_CACHE / "gocache"),
                               "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"})


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/m\n\ngo 1.19\n")
    (root / "main.go").write_text(source)
    monkeypatch.chdir(root)
    assert main(["init"]) == 0
    assert main(["community", "import", "deprecated-ioutil-go"]) == 0
    return root


@needs_go
@pytest.mark.slow  # a real compiler: seconds of CPU
def test_the_ioutil_fix_builds_with_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, monkeypatch, IOUTIL)
    assert _go_build(root).returncode == 0  # the before-state builds
    assert main(["scan", "--fix", "--unsafe-fixes", "--no-progress"]) == 0
    fixed = (root / "main.go").read_text()
    assert "ioutil" not in fixed and '\t"io"\n' in fixed and '\t"os"\n' in fixed
    built = _go_build(root)
    assert built.returncode == 0, built.stderr


@needs_go
def test_a_use_left_keeps_its_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = IOUTIL.replace("func main() {", "func list() { _, _ = ioutil.ReadDir(\".\") }\n\nfunc main() {")
    root = _project(tmp_path, monkeypatch, source)
    assert main(["scan", "--fix", "--unsafe-fixes", "--no-progress"]) == 0
    fixed = (root / "main.go").read_text()
    assert '\t"io/ioutil"\n' in fixed and "os.ReadFile" in fixed and "io.ReadAll" in fixed
    built = _go_build(root)
    assert built.returncode == 0, built.stderr


def test_every_fixit_of_the_rule_in_a_file_carries_the_same_import_edit(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import json

    _project(tmp_path, monkeypatch, IOUTIL)
    capsys.readouterr()
    main(["scan", "--format", "json", "--verify-fixits"])
    issues = json.loads(capsys.readouterr().out)["issues"]
    fixits = [fx for d in issues for fx in d["fixits"]]
    assert len(fixits) == 2 and all(len(fx["edits"]) == 2 and fx["verified"] for fx in fixits)
    assert fixits[0]["edits"][1] == fixits[1]["edits"][1]
    assert fixits[0]["edits"][1]["newText"] == 'import (\n\t"fmt"\n\t"io"\n\t"net/http"\n\t"os"\n)'


@pytest.mark.parametrize(("source", "expected"), [
    ('package p\n\nimport "io/ioutil"\n\nvar x = ioutil.ReadFile\n', 'import (\n\t"os"\n)'),
    ('package p\n\nimport "fmt"\nimport "io/ioutil"\n', 'import (\n\t"fmt"\n\t"os"\n)'),
    ("package p\n\nvar x = 1\n", '\n\nimport (\n\t"os"\n)'),
    # a code template after the first declaration that holds `import (` is not the file's imports (testify's
    # _codegen/main.go: the whole file between the two was replaced, 6 new ERROR nodes, seen by the harness)
    ('package p\n\nimport "io/ioutil"\n\nvar x = ioutil.ReadFile\nvar t = `\nimport (\n\t"z"\n)\n`\n',
     'import (\n\t"os"\n)'),
])
def test_go_import_blocks(source: str, expected: str) -> None:
    fixed = source.replace("ioutil.ReadFile", "os.ReadFile") + "\nvar y = os.ReadFile\n"
    edit = go.plan(source, fixed, ["io", "os"], ["io/ioutil"]).edit
    assert edit is not None and edit[2] == expected


@needs_go
@pytest.mark.slow  # go build, twice: 11.6 s in the last full run (a cold Go build cache; 0.6 s warm)
def test_the_harness_builds_go_before_and_after(tmp_path: Path, gocache: Path) -> None:
    """bin/fix_harness.py's Go check builds the fixed file's whole package: the old ioutil fix, which left the
    imports as they were, re-parses cleanly but no longer builds, and the harness says so."""
    from bin import fix_harness

    pkg = tmp_path / "corpus" / "pkg"
    pkg.mkdir(parents=True)
    original = 'package p\n\nimport "io/ioutil"\n\nfunc Load(p string) ([]byte, error) { return ioutil.ReadFile(p) }\n'
    (pkg / "a.go").write_text(original)
    (pkg / "b.go").write_text("package p\n\nfunc Two() int { return 2 }\n")
    old_fix = original.replace("ioutil.ReadFile", "os.ReadFile")
    with_imports = old_fix.replace('"io/ioutil"', '"os"')
    # `file` is <package>/<path> and `root` that package's directory, as the harness's scan makes them
    made = [fix_harness.Fix("go", "r", "pkg/a.go", 5, "ioutil.ReadFile", "os.ReadFile", "unsafe", True, 0.2, None,
                            text, original, root=str(pkg)) for text in (old_fix, with_imports)]
    fix_harness.check(made, gocache.parent)  # it builds with <cache>/gocache, shared (conftest)
    assert [f.built for f in made] == [(True, False), (True, True)]
    assert made[0].broken == "go build: the package no longer builds" and made[1].broken is None
