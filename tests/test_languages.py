"""core/languages.py: the names and extensions we accept are the ones ast-grep accepts (checked against the real
binary, so a new ast-grep that changes its table fails here), and comment syntax for suppression fix-its."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgtools.core.errors import BadInput
from sgtools.core.languages import LANGUAGES, canonical, from_path, line_comment, require
from sgtools.engine.process import Engine

ALIASES = [(canon, alias) for canon, (aliases, _, _) in LANGUAGES.items() for alias in aliases]


def test_canonical_accepts_every_alias_in_any_case() -> None:
    assert canonical("Python") == canonical(" py ") == "python"
    assert canonical("golang") == "go" and canonical("C++") == "cpp" and canonical("TSX") == "tsx"
    assert all(canonical(alias.upper()) == canon for canon, alias in ALIASES)
    assert canonical("cobol") is None and canonical("") is None
    assert canonical(3) is None  # type: ignore[arg-type]  # a non-string from JSON input is no language


def test_require_names_the_choices() -> None:
    assert require("JS") == "javascript"
    with pytest.raises(BadInput, match=r"Unknown language 'sh'\. Use one ast-grep knows, e\.g\. bash, c, cpp"):
        require("sh")  # ast-grep does not accept `sh` as a language name, only as an extension


@pytest.mark.parametrize(("path", "language"), [
    ("src/app.py", "python"), ("x.PYI", "python"), ("BUILD.bzl", "python"), ("a/b.tsx", "tsx"), ("m.mts", "typescript"),
    ("lib.rs", "rust"), ("run.sh", "bash"), ("Main.KT", "kotlin"), ("k.h", "c"), ("k.hpp", "cpp"),
    ("x.pyw", None), ("Makefile", None), ("notes.txt", None), ("a.sh.in", None), (".py", None),
])
def test_from_path(path: str, language: str | None) -> None:
    assert from_path(path) == language


def test_line_comments() -> None:
    assert line_comment("py") == "#" and line_comment("typescript") == "//" and line_comment("lua") == "--"
    assert line_comment("haskell") == "--" and line_comment("css") is None and line_comment("html") is None
    assert line_comment("cobol") is None


def test_the_table_has_no_clashes() -> None:
    extensions = [e for _, exts, _ in LANGUAGES.values() for e in exts]
    assert len(extensions) == len(set(extensions))
    names = [alias for _, alias in ALIASES]
    assert len(names) == len(set(names)) and all(canon in LANGUAGES[canon][0] for canon in LANGUAGES)


def test_ast_grep_agrees_on_every_alias_and_extension(engine: Engine, tmp_path: Path) -> None:
    """For each alias, `ast-grep run -l ALIAS` over a file of every known extension matches exactly the files of
    that language's extensions: our table is ast-grep's, not a guess beside it."""
    for _canon, (_aliases, exts, _) in LANGUAGES.items():
        for ext in exts:
            (tmp_path / f"f.{ext}").write_text("a\n")
    (tmp_path / "f.pyw").write_text("a\n")  # not Python to ast-grep, nor to us
    wrong = []
    for canon, alias in ALIASES:
        result = engine.run(["run", "-p", "a", "-l", alias, "--json=compact", "."], cwd=tmp_path)
        found = {Path(m["file"]).suffix.lstrip(".") for m in json.loads(result.stdout or b"[]")}
        if found != set(LANGUAGES[canon][1]):
            wrong.append((alias, sorted(found ^ set(LANGUAGES[canon][1])), result.stderr[:200]))
    assert wrong == []
