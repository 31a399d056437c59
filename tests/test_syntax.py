"""dump_syntax_tree against the real binary: the three formats, hints, and the input limits."""

from __future__ import annotations

import pytest

from sgtools.core.errors import BadInput, TooLarge
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules.syntax import FORMATS, dump_syntax_tree, problem_nodes, top_level_kinds
from tests.conftest import snapshot_tree


def test_cst_shows_anonymous_tokens_and_positions(ws: Workspace, engine: Engine) -> None:
    out = dump_syntax_tree(ws, engine, "shell=True", "py")
    assert out["language"] == "python" and out["format"] == "cst" and out["hints"] == []
    lines = out["tree"].splitlines()
    assert lines[0] == "module (0,0)-(0,10)"
    assert "      = (0,5)-(0,6)" in lines
    assert "      right: true (0,6)-(0,10)" in lines


def test_ast_keeps_only_named_nodes(ws: Workspace, engine: Engine) -> None:
    out = dump_syntax_tree(ws, engine, "shell=True", "Python", format="ast")
    assert "right: true (0,6)-(0,10)" in out["tree"]
    assert "= (0,5)" not in out["tree"]


def test_a_multi_statement_snippet_still_dumps(ws: Workspace, engine: Engine) -> None:
    # ast-grep exits 8 here ("Multiple AST nodes") but prints the tree; the tree is the product.
    out = dump_syntax_tree(ws, engine, "x = 1\ny = 2\n", "python", format="cst")
    assert top_level_kinds(out["tree"]) == ["expression_statement", "expression_statement"]
    assert out["hints"] == []


def test_pattern_format_shows_metavariables(ws: Workspace, engine: Engine) -> None:
    out = dump_syntax_tree(ws, engine, "print($$$A, $B)", "py", format="pattern")
    assert out["tree"].splitlines()[0] == "call"
    assert "MetaVar $$$A" in out["tree"] and "MetaVar $B" in out["tree"]
    assert out["hints"] == []


def test_a_pattern_starting_with_a_dash_is_not_taken_for_a_flag(ws: Workspace, engine: Engine) -> None:
    out = dump_syntax_tree(ws, engine, "-$A", "python", format="pattern")
    assert out["tree"].splitlines() == ["unary_operator", "  -", "  MetaVar $A"]


def test_pattern_with_error_nodes_gets_a_hint(ws: Workspace, engine: Engine) -> None:
    out = dump_syntax_tree(ws, engine, "let x = ", "js", format="pattern")
    assert out["tree"].startswith("ERROR")
    assert len(out["hints"]) == 1 and "ERROR" in out["hints"][0]


def test_pattern_with_several_top_level_nodes_explains_why(ws: Workspace, engine: Engine) -> None:
    out = dump_syntax_tree(ws, engine, "x = 1\ny = $A", "python", format="pattern")
    assert out["tree"] == ""
    assert len(out["hints"]) == 1
    assert "2 top-level nodes: expression_statement, expression_statement" in out["hints"][0]


def test_code_with_syntax_errors_gets_a_hint_naming_the_line(ws: Workspace, engine: Engine) -> None:
    out = dump_syntax_tree(ws, engine, "x = 1\ndef f(:\n  pass\n", "python", format="cst")
    assert any(line.strip().startswith("MISSING") for line in out["tree"].splitlines())
    assert len(out["hints"]) == 1 and "(line 2)" in out["hints"][0] and "pattern" not in out["hints"][0]
    # raw text with a metavariable: the hint points to the pattern format
    out = dump_syntax_tree(ws, engine, "print($A)", "python", format="cst")
    assert len(out["hints"]) == 1 and 'format "pattern"' in out["hints"][0]


def test_problem_nodes_reads_field_prefixes() -> None:
    tree = "module (0,0)-(2,0)\n  body: ERROR (1,2)-(1,4)\n  MISSING ) (2,0)-(2,0)"
    assert problem_nodes(tree) == [("ERROR", 2), ("MISSING ) (2,0)-(2,0)", 3)]


def test_bad_format_lists_the_formats(ws: Workspace, engine: Engine) -> None:
    with pytest.raises(BadInput) as info:
        dump_syntax_tree(ws, engine, "x", "python", format="sexpr")
    assert all(f in info.value.message for f in FORMATS)


@pytest.mark.parametrize("code", ["", "   \n", "a\x00b"])
def test_empty_or_nul_code_is_refused(ws: Workspace, engine: Engine, code: str) -> None:
    with pytest.raises(BadInput):
        dump_syntax_tree(ws, engine, code, "python")


def test_unknown_language_is_refused(ws: Workspace, engine: Engine) -> None:
    with pytest.raises(BadInput, match="Unknown language"):
        dump_syntax_tree(ws, engine, "x", "cobolx")


def test_code_over_the_argv_limit_is_refused_before_running(ws: Workspace, engine: Engine) -> None:
    big = "x = 1\n" * (22 * 1024)  # 132 KiB: more than one argv string can carry
    with pytest.raises(TooLarge, match="128 KiB"):
        dump_syntax_tree(ws, engine, big, "python")


def test_code_just_under_the_limit_dumps(ws: Workspace, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    code = "x = 1\n" * 20_000  # 120 000 bytes: under the real 128 KiB argv limit
    out = dump_syntax_tree(ws, engine, code, "python", format="ast")
    assert out["tree"].count("expression_statement") == 20_000
    monkeypatch.setattr(ws, "settings", Settings(max_arg_bytes=1000))
    with pytest.raises(TooLarge):
        dump_syntax_tree(ws, engine, code, "python")


def test_dumping_writes_nothing(ws: Workspace, engine: Engine) -> None:
    (ws.root / "a.py").write_text("x = 1\n")
    before = snapshot_tree(ws.root)
    dump_syntax_tree(ws, engine, "x = 1", "python", format="pattern")
    assert snapshot_tree(ws.root) == before
