"""YAML in and out: safe loading with size, depth and alias limits; round-trip dumping that keeps comments.

Rule files come from agents and from remote indexes, so loading guards against YAML bombs (alias
expansion), deep nesting and huge documents before any of it reaches the rest of the package.
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from sgtools.settings import get_settings

MAX_NODES = 50_000  # scalars + containers after alias expansion; a real rule has a few hundred


class YamlError(ValueError):
    """A YAML problem with a 1-based position when the parser knows one."""

    def __init__(self, problem: str, line: int | None = None, column: int | None = None) -> None:
        where = f" at line {line}, column {column}" if line is not None else ""
        super().__init__(f"{problem}{where}")
        self.problem = problem
        self.line = line
        self.column = column


def _safe() -> YAML:
    y = YAML(typ="safe", pure=True)
    return y


def _rt() -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 4096  # never re-wrap long patterns or messages
    y.indent(mapping=2, sequence=2, offset=0)
    return y


def _wrap(exc: YAMLError) -> YamlError:
    if isinstance(exc, MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        return YamlError(str(exc.problem or exc.context or "invalid YAML"), mark.line + 1, mark.column + 1)
    return YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML")


def _check_text(text: str) -> None:
    limit = get_settings().max_rule_bytes
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise YamlError(f"the document is {size} bytes, over the {limit}-byte limit")
    if "\x00" in text:
        raise YamlError("the document contains NUL bytes; it looks like binary data, not YAML")


def check_shape(data: Any) -> None:
    """Refuse alias bombs and deep nesting by walking with a node budget and a depth cap."""
    max_depth = get_settings().max_yaml_depth
    budget = MAX_NODES
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise YamlError(f"the document expands to more than {MAX_NODES} nodes (an alias bomb?)")
        if depth > max_depth:
            raise YamlError(f"the document is nested deeper than {max_depth} levels")
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
            stack.extend((k, depth + 1) for k in node if not isinstance(k, str))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)


def load_all(text: str) -> list[Any]:
    """Every document in `text`, plain Python data (safe loader)."""
    _check_text(text)
    try:
        docs = list(_safe().load_all(text))
    except YAMLError as exc:
        raise _wrap(exc) from None
    except RecursionError:
        raise YamlError("the document is nested too deeply") from None
    for doc in docs:
        check_shape(doc)
    return docs


def load_one(text: str) -> Any:
    docs = [d for d in load_all(text) if d is not None] if text.strip() else []
    if len(docs) > 1:
        raise YamlError(f"expected one YAML document, found {len(docs)} (separated by `---`)")
    return docs[0] if docs else None


def load_rt(text: str) -> Any:
    """Round-trip load (comments and key order kept) for files we rewrite."""
    _check_text(text)
    try:
        return _rt().load(text)
    except YAMLError as exc:
        raise _wrap(exc) from None


def dump_rt(data: Any) -> str:
    buf = io.StringIO()
    _rt().dump(data, buf)
    return buf.getvalue()


def dump(data: Any) -> str:
    """Deterministic block-style YAML for data we generate (tests files, migrated rules)."""
    y = _rt()
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()
