"""The fix harness's checks on whole projects (bin/fix_checks.py, bin/fix_sources.py), on small real trees laid
out as the Debian source and Go packages of its corpora are: a Java file under its package's folders compiles
with its source tree, a C# file with its .csproj's other files, a C++ package's header as C++, and a Go package in
module mode with its tests (a fix in a _test.go file is built too). Each tool that is absent skips its case with
the install command; `.ci/run` installs them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bin import fix_checks, fix_harness, fix_sources


def fix(lang: str, file: str, before: str, after: str, root: Path) -> fix_harness.Fix:
    return fix_harness.Fix(lang, "r", file, 1, "a", "b", "unsafe", True, 0.5, None, after, before, root=str(root))


def need(tool: str) -> None:
    why = fix_checks.missing(tool)
    if why:
        pytest.skip(why)


@pytest.mark.slow  # a real compiler: seconds of CPU each
def test_javac_finds_the_files_package_on_its_source_root(tmp_path: Path) -> None:
    need("javac")
    src = tmp_path / "lib" / "src" / "main" / "java" / "org" / "acme"
    src.mkdir(parents=True)
    (src / "B.java").write_text("package org.acme;\nclass B { static int n() { return 1; } }\n")
    good = "package org.acme;\nclass A { Integer x = Integer.valueOf(B.n()); }\n"
    bad = "package org.acme;\nclass A { Integer x = Integer.valueOf(B.m()); }\n"  # parses; B has no m()
    (src / "A.java").write_text(good)
    made = [fix("java", "lib/src/main/java/org/acme/A.java", good, good, tmp_path / "lib"),
            fix("java", "lib/src/main/java/org/acme/A.java", good, bad, tmp_path / "lib")]
    assert fix_checks.java_source_root(made[0]) == tmp_path / "lib" / "src" / "main" / "java"
    fix_checks.check_java(made)
    assert made[0].built == (True, True) and made[0].tool == "javac"
    assert made[1].built == (True, False) and made[1].broken


def test_mcs_compiles_the_files_project(tmp_path: Path) -> None:
    need("mcs")
    proj = tmp_path / "pkg" / "src"
    proj.mkdir(parents=True)
    (proj / "Lib.csproj").write_text('<Project><ItemGroup><Reference Include="System.Core" />'
                                     '<Compile Include="A.cs" /><Compile Include="Util\\B.cs" /></ItemGroup></Project>')
    (proj / "Util").mkdir()
    (proj / "Util" / "B.cs").write_text("static class B { public static int[] Items() { return new int[0]; } }\n")
    good = "using System.Linq;\nclass A { bool F() { return B.Items().Any(); } }\n"  # B is in the other file
    bad = "using System.Linq;\nclass A { bool F() { return B.Item().Any(); } }\n"
    (proj / "A.cs").write_text(good)
    made = [fix("csharp", "pkg/src/A.cs", good, good, tmp_path / "pkg"),
            fix("csharp", "pkg/src/A.cs", good, bad, tmp_path / "pkg")]
    fix_checks.check_csharp(made)
    assert made[0].built == (True, True) and made[0].tool == "mcs"
    assert made[1].built == (True, False) and made[1].broken


def test_a_cpp_packages_header_is_checked_as_cpp_with_its_include_dirs(tmp_path: Path) -> None:
    need("g++")
    pkg = tmp_path / "pkg"
    (pkg / "include" / "acme").mkdir(parents=True)
    (pkg / "src").mkdir()
    (pkg / "src" / "impl.cpp").write_text('#include "acme/base.h"\n')
    (pkg / "include" / "acme" / "base.h").write_text("namespace acme { struct Base {}; }\n")
    good = '#include "acme/base.h"\nnamespace acme { using B = Base; }\n'
    bad = '#include "acme/base.h"\nnamespace acme { using B = Bse; }\n'
    (pkg / "src" / "util.h").write_text(good)
    made = [fix("c", "pkg/src/util.h", good, good, pkg), fix("c", "pkg/src/util.h", good, bad, pkg)]
    fix_checks.check_c(made)
    assert made[0].built == (True, True) and made[0].tool == "g++ -fsyntax-only"
    assert made[1].built == (True, False) and made[1].broken


@pytest.mark.slow  # a real compiler: seconds of CPU each
def test_go_module_mode_builds_test_files_too(tmp_path: Path, gocache: Path) -> None:
    need("go")
    mod = tmp_path / "src" / "example.com" / "m"
    mod.mkdir(parents=True)
    (mod / "go.mod").write_text("module example.com/m\n\ngo 1.16\n")
    (mod / "m.go").write_text("package m\n\nfunc N() int { return 1 }\n")
    good = 'package m\n\nimport (\n\t"io"\n\t"strings"\n\t"testing"\n)\n\n' \
           'func TestN(t *testing.T) { _, _ = io.ReadAll(strings.NewReader("x")); _ = N() }\n'
    bad = good.replace('\t"io"\n', "")  # parses; `io` is no longer imported
    (mod / "m_test.go").write_text(good)
    # the corpus names a file <package>/<path> and keeps it under the package's root
    made = [fix("go", "src/example.com/m/m_test.go", good, after, tmp_path / "src") for after in (good, bad)]
    fix_harness._check_go(made, gocache.parent)  # it builds with <cache>/gocache
    assert made[0].built == (True, True) and made[0].tool == "go build"
    assert made[1].built == (True, False) and made[1].broken


@pytest.mark.slow  # a real compiler: seconds of CPU each
def test_go_module_mode_vendors_debians_go_sources(tmp_path: Path, gocache: Path) -> None:
    need("go")
    dep = "github.com/sirupsen/logrus"
    if not (fix_sources.GOCODE / dep).is_dir():
        pytest.skip("no Debian Go sources of logrus: apt-get install -y golang-github-sirupsen-logrus-dev")
    mod = tmp_path / "m"
    mod.mkdir()
    (mod / "go.mod").write_text(f"module example.com/m\n\ngo 1.17\n\nrequire {dep} v1.8.1\n")
    good = f'package m\n\nimport "{dep}"\n\nfunc F() {{ logrus.Info("x") }}\n'
    assert fix_sources.go_module_build(mod, "m.go", good, gocache) is True
    assert fix_sources.go_module_build(mod, "m.go", good.replace("Info", "Infoo"), gocache) is False
    shutil.rmtree(mod / "vendor", ignore_errors=True)
    assert fix_sources.go_module_build(tmp_path, "m.go", good, gocache) is None  # no go.mod above


def test_a_run_counts_only_its_own_languages() -> None:
    """A C source package's stray Python script must not replace the Python corpus's evidence."""
    assert fix_harness.counted(["c", "cpp", "go"]) == {"c", "cpp", "go"}
    assert fix_harness.counted(["javascript"]) == {"javascript", "typescript", "tsx"}
    assert "python" not in fix_harness.counted(list(fix_sources.DEBIAN_SOURCES))
