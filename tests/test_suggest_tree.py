"""The example trees' one walk from a construct down to a node inside it (tree.path / tree.follow), which spelled.py
writes as nested `has` and lacking.py uses to find the same place in another construct. Real ast-grep parses."""

from __future__ import annotations

from pathlib import Path

from sgtools.engine.process import Engine
from sgtools.workflows.suggest import tree
from sgtools.workflows.suggest.tree import Node, read_examples


def _call(engine: Engine, tmp_path: Path, code: str) -> Node:
    example = read_examples(engine, tmp_path, "python", [code])[0]
    return next(n for n in example.nodes() if n.kind == "call")


def test_a_path_goes_by_field_else_by_place_and_leads_back_to_the_node(engine: Engine, tmp_path: Path) -> None:
    call = _call(engine, tmp_path, "f(a, b.c)")
    attr = next(n for n in call.walk() if n.text == "c")
    steps = tree.path(call, attr)
    assert steps == (("field", "arguments"), ("nthChild", 2), ("field", "attribute"))
    assert tree.follow(call, steps) is attr
    other = _call(engine, tmp_path, "g(x, y.z)")
    found = tree.follow(other, steps)
    assert found is not None and found.text == "z"  # the same place in another call
    assert tree.path(call, attr, depth=2) is None  # three steps down
    assert tree.path(attr, call) is None  # not inside


def test_single_fields_only_refuse_a_place_in_a_list_and_follow_checks_the_kinds(engine: Engine,
                                                                                tmp_path: Path) -> None:
    call = _call(engine, tmp_path, "f(a, b.c)")
    attr = next(n for n in call.walk() if n.text == "c")
    assert tree.path(call, attr, single=True) is None  # `b.c` is the second argument, by place
    name = next(n for n in call.walk() if n.text == "f")
    assert tree.path(call, name, single=True) == (("field", "function"),)
    dotted = _call(engine, tmp_path, "m.f(a)")
    assert tree.follow(dotted, (("field", "function"),), ["identifier"]) is None  # an `attribute` there
    assert tree.follow(dotted, (("field", "function"),), ["attribute"]) is not None
