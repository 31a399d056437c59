"""Bring rule documents written for older ast-grep versions up to what 0.51 accepts.

Community rule sets (ast-grep-essentials pins ast-grep 0.31) carry two things 0.51 refuses: top-level keys
that older versions ignored (`ast-grep-essentials: true`), and local util ids with the characters that
parameterised utilities reserved in 0.42 (`$DB(..., password="...")`). Both are mechanical to repair, and
each repair is reported so that an importer can tell the user what changed. Pure: no I/O, input untouched.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, MutableMapping
from typing import Any

from sgtools.rules.schema import RESERVED_UTIL_CHARS

# The top-level keys ast-grep 0.51.1 lists in its `unknown field` error.
RULE_KEYS = frozenset({
    "id", "language", "rule", "constraints", "utils", "transform", "fix", "rewriters", "message", "note",
    "severity", "labels", "files", "ignores", "url", "metadata",
})
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
# Keys whose values are rule objects that may contain `matches:` references.
_RULE_HOLDERS = ("rule", "constraints", "utils", "fix")


def has_reserved_chars(util_id: str) -> bool:
    return any(ch in RESERVED_UTIL_CHARS for ch in util_id)


def migrate_rule(doc: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A copy of `doc` that ast-grep 0.51 accepts where the old form was the only problem, and what changed."""
    out = copy.deepcopy(doc)
    notes: list[str] = []
    _move_unknown_keys(out, notes)
    renames = _rename_utils(out, "utils", notes)
    _rewrite_matches(out, renames, notes)
    _repair_rule_objects(out, notes)
    rewriters = out.get("rewriters")
    if isinstance(rewriters, list):
        for i, rw in enumerate(rewriters):
            if isinstance(rw, MutableMapping):
                local = _rename_utils(rw, "utils", notes, where=f"rewriters[{i}].")
                _rewrite_matches(rw, {**renames, **local}, notes, where=f"rewriters[{i}].")
    return out, notes


def _move_unknown_keys(doc: dict[str, Any], notes: list[str]) -> None:
    unknown = [k for k in doc if k not in RULE_KEYS]
    if not unknown:
        return
    metadata = doc.get("metadata")
    if metadata is None:
        metadata = _new_like(doc)
    elif not isinstance(metadata, MutableMapping):
        # `metadata` must be a mapping in 0.51; keep the old value under a key rather than lose it.
        old = metadata
        metadata = _new_like(doc)
        metadata["value"] = old
        notes.append("`metadata` was not a mapping; its value moved to `metadata.value`")
    for key in unknown:
        value = doc.pop(key)
        target = str(key)
        if target in metadata:
            target = _unique(f"{key}-legacy", set(map(str, metadata)))
        metadata[target] = value
        notes.append(f"moved unknown top-level key `{key}` into `metadata.{target}` (ast-grep 0.51 rejects it)")
    doc["metadata"] = metadata


def _rename_utils(holder: MutableMapping[str, Any], key: str, notes: list[str], where: str = "") -> dict[str, str]:
    utils = holder.get(key)
    if not isinstance(utils, MutableMapping):
        return {}
    names = [str(k) for k in utils]
    taken = {n for n in names if not has_reserved_chars(n)}
    renames: dict[str, str] = {}
    for name in names:
        if has_reserved_chars(name):
            new = _unique(_UNSAFE.sub("-", name).strip("-") or "util", taken)
            taken.add(new)
            renames[name] = new
    if not renames:
        return {}
    fresh = _new_like(utils)
    for k, v in utils.items():
        fresh[renames.get(str(k), k)] = v
    holder[key] = fresh
    for old, new in renames.items():
        notes.append(f"renamed util `{where}{key}.{old}` to `{new}` (ast-grep 0.51 reserves ( ) , = in util ids)")
    return renames


def _rewrite_matches(doc: MutableMapping[str, Any], renames: dict[str, str], notes: list[str],
                     where: str = "") -> None:
    if not renames:
        return
    count = 0

    def visit(node: Any) -> None:
        nonlocal count
        if isinstance(node, MutableMapping):
            for k, v in list(node.items()):
                if k == "matches" and isinstance(v, str) and v in renames:
                    node[k] = renames[v]
                    count += 1
                else:
                    visit(v)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    for key in _RULE_HOLDERS:
        if key in doc:
            visit(doc[key])
    if count:
        scope = f" in {where.rstrip('.')}" if where else ""
        notes.append(f"updated {count} `matches:` reference(s) to renamed utils{scope}")


# Keys of rule objects, by their lower-case spelling. ast-grep ignores unknown keys inside relational rules and
# nthChild objects (`has: {stopby: end}` is silently a different rule); rule sets in the wild carry such typos.
_RULE_KEYS = ("pattern", "kind", "regex", "nthChild", "range", "inside", "has", "precedes", "follows", "all", "any",
              "not", "matches")
_RELATION_KEYS = (*_RULE_KEYS, "stopBy", "field")
_NTH_KEYS = ("position", "ofRule", "reverse")
_RELATIONS = ("inside", "has", "precedes", "follows")


def _repair_rule_objects(doc: MutableMapping[str, Any], notes: list[str]) -> None:
    """Where ast-grep silently ignores unknown keys: correct case-only typos (`nthchild` -> `nthChild`, the
    evident intent) and drop the rest (they never had an effect, so behaviour is unchanged)."""

    def tidy(node: MutableMapping[str, Any], allowed: tuple[str, ...], where: str, drop: bool) -> None:
        by_lower = {k.lower(): k for k in allowed}
        for key in list(node):
            if key in allowed:
                continue
            right = by_lower.get(str(key).lower())
            if right is not None and right not in node:
                _rename_key(node, key, right)
                notes.append(f"renamed `{where}.{key}` to `{right}`: ast-grep silently ignored the misspelt key, "
                             "so the rule now does what it says; re-run its tests")
            elif drop:
                del node[key]
                notes.append(f"removed `{where}.{key}`: ast-grep 0.51 silently ignores it there (misplaced?), so "
                             "behaviour is unchanged")

    def rule(node: Any, where: str, allowed: tuple[str, ...] = _RULE_KEYS) -> None:
        if not isinstance(node, MutableMapping):
            return
        # A plain rule object with an unknown key is an error in ast-grep: fix case, never drop.
        tidy(node, allowed, where, drop=allowed is _RELATION_KEYS)
        for key in _RELATIONS:
            rel = node.get(key)
            rule(rel, f"{where}.{key}", _RELATION_KEYS)
            if isinstance(rel, MutableMapping) and isinstance(rel.get("stopBy"), MutableMapping):
                rule(rel["stopBy"], f"{where}.{key}.stopBy")
        for key in ("all", "any"):
            items = node.get(key)
            if isinstance(items, list):
                for i, item in enumerate(items):
                    rule(item, f"{where}.{key}[{i}]")
        rule(node.get("not"), f"{where}.not")
        nth = node.get("nthChild")
        if isinstance(nth, MutableMapping):
            tidy(nth, _NTH_KEYS, f"{where}.nthChild", drop=True)
            rule(nth.get("ofRule"), f"{where}.nthChild.ofRule")

    def rule_map(node: Any, where: str) -> None:
        if isinstance(node, MutableMapping):
            for name, value in node.items():
                rule(value, f"{where}.{name}")

    def scope(holder: MutableMapping[str, Any], prefix: str) -> None:
        rule(holder.get("rule"), f"{prefix}rule")
        rule_map(holder.get("constraints"), f"{prefix}constraints")
        rule_map(holder.get("utils"), f"{prefix}utils")

    scope(doc, "")
    rewriters = doc.get("rewriters")
    if isinstance(rewriters, list):
        for i, rw in enumerate(rewriters):
            if isinstance(rw, MutableMapping):
                scope(rw, f"rewriters[{i}].")


def _rename_key(node: MutableMapping[str, Any], old: Any, new: str) -> None:
    """Rename in place, keeping the key's position (ruamel maps keep order; so do dicts)."""
    items = list(node.items())
    node.clear()
    for k, v in items:
        node[new if k == old else k] = v


def _unique(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _new_like(mapping: Any) -> Any:
    """An empty mapping of the same type, so a ruamel round-trip document stays round-trippable."""
    factory: Callable[[], Any] = type(mapping) if isinstance(mapping, MutableMapping) else dict
    try:
        return factory()
    except TypeError:
        return {}
