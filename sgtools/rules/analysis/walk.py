"""Walking a rule document: where its patterns, kinds, regexes and relational rules are, addressed by path.

A path is a tuple of keys and list indexes (`("rule", "has", "pattern")`), shown as `rule.has.pattern` or
`rule.any[1].kind`; repairs are built by replacing the value at a path in a deep copy of the rule.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from typing import Any

Path = tuple[str | int, ...]

RELATIONAL = ("inside", "has", "precedes", "follows")
COMPOSITE = ("all", "any")
# A metavariable as ast-grep writes it: `$A`, `$$A` (unnamed nodes too), `$$$A` or `$$$` (several nodes), `$_`.
METAVAR = re.compile(r"\$\$\$([A-Z_][A-Z0-9_]*)?|\$\$?([A-Z_][A-Z0-9_]*)")


def show(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def rule_objects(doc: Mapping[str, Any]) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Every rule object of a document: `rule`, each util, each constraint, and their sub-rules."""
    roots: list[tuple[Path, Any]] = [(("rule",), doc.get("rule"))]
    for section in ("utils", "constraints"):
        block = doc.get(section)
        if isinstance(block, Mapping):
            roots += [((section, str(k)), v) for k, v in block.items()]
    for path, node in roots:
        yield from _sub_rules(path, node)


def _sub_rules(path: Path, node: Any) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    if not isinstance(node, Mapping):
        return
    yield path, node
    for key in RELATIONAL:
        sub = node.get(key)
        if isinstance(sub, Mapping):
            yield from _sub_rules((*path, key), sub)
            stop = sub.get("stopBy")
            if isinstance(stop, Mapping):
                yield from _sub_rules((*path, key, "stopBy"), stop)
    for key in COMPOSITE:
        items = node.get(key)
        if isinstance(items, list):
            for i, item in enumerate(items):
                yield from _sub_rules((*path, key, i), item)
    if isinstance(node.get("not"), Mapping):
        yield from _sub_rules((*path, "not"), node["not"])


def patterns(doc: Mapping[str, Any]) -> list[tuple[Path, Any]]:
    """(path of the `pattern` key, its value: a string or a {context, selector, strictness} mapping)."""
    out: list[tuple[Path, Any]] = []
    for path, node in rule_objects(doc):
        value = node.get("pattern")
        if isinstance(value, str) or (isinstance(value, Mapping) and isinstance(value.get("context"), str)):
            out.append(((*path, "pattern"), value))
    return out


def pattern_text(value: Any) -> str:
    return str(value["context"]) if isinstance(value, Mapping) else str(value)


def get_at(doc: Any, path: Path) -> Any:
    node = doc
    for part in path:
        node = node[part]
    return node


def replaced(doc: Mapping[str, Any], path: Path, value: Any) -> dict[str, Any]:
    """A deep copy of `doc` with the value at `path` replaced (or the key removed when value is None)."""
    out = copy.deepcopy(dict(doc))
    parent = get_at(out, path[:-1])
    if value is None:
        parent.pop(path[-1], None)
    else:
        parent[path[-1]] = value
    return out


def metavariables(text: str) -> list[str]:
    """Named metavariables in a pattern or template, in order, without `_` and duplicates."""
    names = [m.group(1) or m.group(2) for m in METAVAR.finditer(text)]
    return list(dict.fromkeys(n for n in names if n and not n.startswith("_")))


def required(doc: Mapping[str, Any], path: Path) -> bool:
    """Whether the sub-rule at `path` must match for the whole rule to fire: no `not`, `any` or util on
    the way from `rule` (a dead branch of `any` or a dead `not` only makes the rule broader)."""
    if not path or path[0] != "rule":
        return False
    node: Any = doc
    for part in path[:-1]:
        if part in ("not", "any", "stopBy"):
            return False
        node = node[part]
    return True


def dead(node: Any, is_dead: Any, path: Path = ("rule",)) -> bool:
    """Whether a rule object can never match, given `is_dead(path)` for its atomic parts."""
    if not isinstance(node, Mapping):
        return False
    if is_dead((*path, "pattern")) or is_dead((*path, "kind")):
        return True
    for key in RELATIONAL:
        if isinstance(node.get(key), Mapping) and dead(node[key], is_dead, (*path, key)):
            return True
    items = node.get("all")
    if isinstance(items, list) and any(dead(x, is_dead, (*path, "all", i)) for i, x in enumerate(items)):
        return True
    items = node.get("any")
    return bool(isinstance(items, list) and items
                and all(dead(x, is_dead, (*path, "any", i)) for i, x in enumerate(items)))
