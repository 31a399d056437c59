"""YAML in and out: safe loading with size, depth and alias limits; round-trip dumping that keeps comments.

Rule files come from agents and from remote indexes, so loading guards against YAML bombs (alias
expansion), deep nesting and huge documents before any of it reaches the rest of the package.
"""

from __future__ import annotations

import functools
import importlib
import io
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # ruamel.yaml costs ~35 ms to import; a scan whose rules are cached never needs it
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

from sgtools.core.cache import JsonCache, json_safe
from sgtools.core.digest import sha256
from sgtools.core.settings import get_settings

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
    from ruamel.yaml import YAML

    y = YAML(typ="safe", pure=True)
    return y


def _rt() -> YAML:
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 4096  # never re-wrap long patterns or messages
    y.indent(mapping=2, sequence=2, offset=0)
    return y


def _wrap(exc: YAMLError) -> YamlError:
    from ruamel.yaml.error import MarkedYAMLError

    if isinstance(exc, MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        return YamlError(str(exc.problem or exc.context or "invalid YAML"), mark.line + 1, mark.column + 1)
    return YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML")


def _yaml_error() -> type[YAMLError]:
    from ruamel.yaml.error import YAMLError

    return YAMLError


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


class _Fallback(Exception):
    """The C path met something it does not translate (an explicit tag): the pure parser decides."""


@functools.lru_cache(maxsize=1)
def _c_parser() -> Any:
    """libyaml's parser from PyYAML (`yaml._yaml.CParser`), or None when PyYAML was built without it."""
    try:  # by name: PyYAML ships no type stubs, and its parser is used through ruamel's typed nodes
        return importlib.import_module("yaml._yaml").CParser
    except (ImportError, AttributeError):
        return None


def _load_all_c(text: str) -> list[Any] | None:
    """`load_all` with libyaml doing the scanning, parsing and composing (about 10x faster than ruamel's pure
    Python, which is most of the time of building an index or importing a big rule), and ruamel's own YAML 1.2
    resolver and safe constructor doing the rest: the same tags (`on`/`yes` stay strings, `0o17` is octal, no
    sexagesimals) and the same values as the pure path. None when libyaml is absent, the text names a YAML
    version (the pure path reads `%YAML 1.1`), or libyaml or the constructor refuses the text: then the pure path
    runs and its answer (its error message and position) is the one given."""
    cparser = _c_parser()
    if cparser is None or "%YAML" in text:
        return None
    from ruamel.yaml import nodes
    from ruamel.yaml.tag import Tag

    c_nodes: Any = importlib.import_module("yaml.nodes")
    y = _safe()
    resolver, constructor = y.resolver, y.constructor
    kinds = {c_nodes.ScalarNode: nodes.ScalarNode, c_nodes.SequenceNode: nodes.SequenceNode,
             c_nodes.MappingNode: nodes.MappingNode}

    class Parser(cparser):  # type: ignore[misc, valid-type]  # libyaml asks these of the loader it is part of
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            return resolver.resolve(kinds[kind], value, implicit)

        def descend_resolver(self, *_args: Any) -> None:
            return None

        def ascend_resolver(self, *_args: Any) -> None:
            return None

    made: dict[int, Any] = {}  # by id: an alias is the same node twice, as in the pure composer

    def convert(node: Any) -> Any:
        done = made.get(id(node))
        if done is not None:
            return done
        if not isinstance(node.tag, Tag):
            raise _Fallback  # an explicit tag: libyaml gives its text, ruamel's constructor wants its Tag
        out: Any
        if isinstance(node, c_nodes.ScalarNode):
            made[id(node)] = out = nodes.ScalarNode(node.tag, node.value, style=node.style)
            return out
        if isinstance(node, c_nodes.SequenceNode):
            made[id(node)] = out = nodes.SequenceNode(node.tag, [], flow_style=node.flow_style)
            out.value = [convert(v) for v in node.value]
            return out
        made[id(node)] = out = nodes.MappingNode(node.tag, [], flow_style=node.flow_style)
        out.value = [(convert(k), convert(v)) for k, v in node.value]
        return out

    try:
        parser = Parser(text)
        docs = []
        while parser.check_node():
            docs.append(constructor.construct_document(convert(parser.get_node())))
            made.clear()
        return docs
    except Exception:  # any refusal or surprise on this path is the pure path's to judge
        return None


def load_all(text: str) -> list[Any]:
    """Every document in `text`, plain Python data (safe loader)."""
    _check_text(text)
    try:
        fast = _load_all_c(text)
        docs = fast if fast is not None else list(_safe().load_all(text))
    except _yaml_error() as exc:
        raise _wrap(exc) from None
    except RecursionError:
        raise YamlError("the document is nested too deeply") from None
    for doc in docs:
        check_shape(doc)
    return docs


_parsed = JsonCache("yaml-v1")
_parsed_lock = threading.Lock()


def load_all_cached(data: bytes) -> list[Any]:
    """`load_all` of UTF-8 bytes, remembered by content digest across processes: parsing YAML in pure Python
    is the largest fixed cost of a CLI run (~0.5 ms a rule), reading a JSON cache is not."""
    key = sha256(data).hexdigest()
    with _parsed_lock:
        hit = _parsed.get("docs", key)
    if isinstance(hit, list):
        return hit
    docs = load_all(data.decode("utf-8"))
    if json_safe(docs):
        with _parsed_lock:
            _parsed.put("docs", key, docs)
    return docs


def load_one(text: str | bytes) -> Any:
    """The single document of `text`; bytes (a file as read) go through the persistent parse cache."""
    if not text.strip():
        return None
    loaded = load_all_cached(text) if isinstance(text, bytes) else load_all(text)
    docs = [d for d in loaded if d is not None]
    if len(docs) > 1:
        raise YamlError(f"expected one YAML document, found {len(docs)} (separated by `---`)")
    return docs[0] if docs else None


def load_rt(text: str) -> Any:
    """Round-trip load (comments and key order kept) for files we rewrite."""
    _check_text(text)
    try:
        return _rt().load(text)
    except _yaml_error() as exc:
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
