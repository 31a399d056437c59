"""`sgtools lang add`: a tree-sitter grammar from its source package to a rule that fires, with a real compiler.

The Ada grammar's source package comes from the package registry at install time (`.ci/run` downloads it into
`.ci-cache/grammars/`; `SGTOOLS_TEST_GRAMMARS` names another folder); the test itself needs no network.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from sgtools.core.errors import BadInput, NotFound
from sgtools.engine.process import Engine
from sgtools.project import grammar
from sgtools.project.workspace import Workspace
from sgtools.rules.syntax import dump_syntax_tree
from sgtools.scan.snippet import scan_code

REPO = Path(__file__).resolve().parent.parent
GRAMMARS = Path(os.environ.get("SGTOOLS_TEST_GRAMMARS", REPO / ".ci-cache" / "grammars"))
ADA = sorted(GRAMMARS.glob("tree_sitter_ada-*.tar.gz")) if GRAMMARS.is_dir() else []
needs_ada = pytest.mark.skipif(
    not ADA or (grammar.COMPILERS and not any(map(__import__("shutil").which, grammar.COMPILERS))),
    reason="no Ada grammar source package in .ci-cache/grammars (pip download --no-deps --no-binary :all: "
           "tree-sitter-ada -d .ci-cache/grammars) or no C compiler")

ADA_BODY = "procedure Hello is\nbegin\n  goto Done;\n  <<Done>> null;\nend Hello;\n"
ADA_SPEC = "package Jumps is\n  procedure Go;\nend Jumps;\n"
GOTO_RULE = "id: no-goto-ada\nlanguage: ada\nseverity: error\nmessage: no goto in Ada\nrule: {kind: goto_statement}\n"


def test_an_archive_without_parser_c_is_not_found(tmp_path: Path) -> None:
    (tmp_path / "grammar.js").write_text("module.exports = grammar({})")
    with pytest.raises(NotFound, match=r"No parser\.c"):
        grammar.find_sources(tmp_path)


def test_an_archive_leaving_its_folder_is_refused(tmp_path: Path, initialized: Workspace) -> None:
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        data = b"int x;"
        info = tarfile.TarInfo("../../escaped/parser.c")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    with pytest.raises(BadInput, match="safely"):
        grammar.add_language(initialized, Engine(), "evil", str(archive), ["ev"])
    assert not (tmp_path / "escaped").exists()


def test_no_compiler_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a real PATH with no compiler on it
    with pytest.raises(NotFound, match="No C compiler"):
        grammar.compiler()


def test_names_and_extensions_are_checked(initialized: Workspace, tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="lower-case"):
        grammar.add_language(initialized, Engine(), "Ada!", str(tmp_path), ["adb"])
    with pytest.raises(BadInput, match="extensions"):
        grammar.add_language(initialized, Engine(), "ada", str(tmp_path), [" "])


@pytest.mark.slow
@needs_ada
def test_ada_end_to_end_from_the_source_package(initialized: Workspace, engine: Engine) -> None:
    root = initialized.root
    (root / "hello.adb").write_text(ADA_BODY)
    (root / "jumps.ads").write_text(ADA_SPEC)
    done = subprocess.run([sys.executable, "-m", "sgtools", "lang", "add", "ada", "--from", str(ADA[-1]),
                           "--ext", "adb", "--ext", "ads", "--sample", str(root / "hello.adb"), "--root", str(root),
                           "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert '"root": "compilation"' in done.stdout and '"errors": 0' in done.stdout
    tree = dump_syntax_tree(initialized, engine, "procedure P is begin null; end P;", "ada")
    assert tree["tree"].startswith("compilation") and "subprogram_body" in tree["tree"]
    (root / "rules" / "no-goto-ada.yml").write_text(GOTO_RULE)
    scan = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--root", str(root), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert scan.returncode == 1 and "hello.adb" in scan.stdout and "no-goto-ada" in scan.stdout, scan.stderr
    snippet = scan_code(initialized, engine, ADA_BODY, "ada")
    assert [i["ruleId"] for i in snippet["issues"]] == ["no-goto-ada"]
