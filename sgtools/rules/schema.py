"""A rule's structure checked against our JSON Schema (`rule_schema.json`), each problem said plainly.

jsonschema's own messages name schema internals (`anyOf`, `additionalProperties`); an agent needs the JSON
path, what was expected, what it got and the likely fix (a typo'd key, an unquoted number, a misplaced
`stopBy`). ast-grep would refuse the same rule later with less to go on.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.core.cache import JsonCache
from sgtools.core.digest import sha256

if TYPE_CHECKING:  # jsonschema costs ~50 ms to import: only a validation pays it
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SCHEMA_PATH = Path(__file__).with_name("rule_schema.json")
# Characters ast-grep 0.51 reserves in util ids ("Utility id ... contains reserved characters").
RESERVED_UTIL_CHARS = frozenset("(),=")


@functools.cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    # The bundled schema is checked against the metaschema in tests/test_rule_ids_cache.py, not on each run.
    return Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


_RELATIONS = frozenset({"inside", "has", "precedes", "follows"})


def _ignored_by_ast_grep(err: ValidationError) -> bool:
    """An unknown key in an object where ast-grep 0.51 ignores unknown keys (relations, nthChild, the inner
    objects of a transformation, fix configs, labels, glob objects): refusing it would refuse a rule ast-grep
    accepts, so it is a warning. tests/test_schema_parity.py checks these against the binary."""
    while err.validator in ("anyOf", "oneOf") and err.context:
        err = _best(err.context, err)
    if err.validator != "additionalProperties" or not isinstance(err.instance, dict):
        return False
    # A near miss of a known key (`stopby`) is a typo that silently changes the rule: still refused.
    allowed = [str(k) for k in (err.schema.get("properties") or {})]
    unknown = [str(k) for k in err.instance if k not in allowed]
    if any(_close_matches(k.lower(), [a.lower() for a in allowed], n=1, cutoff=0.75) for k in unknown):
        return False
    return _lenient_place(list(err.absolute_path))


def _lenient_place(path: list[Any]) -> bool:
    """Whether the object at `path` is one whose unknown keys ast-grep 0.51 ignores."""
    if not path:
        return False
    last = path[-1]
    parent = path[-2] if len(path) >= 2 else None
    return (last in _RELATIONS or last == "nthChild" or parent == "range"
            or (len(path) >= 3 and path[0] == "transform")
            or path[0] in ("files", "ignores")
            or (len(path) == 2 and path[0] == "labels")
            or last == "fix" or parent == "fix")


def schema_problems(data: Any, limit: int | None = None, warnings: list[str] | None = None) -> list[str]:
    """Every structural problem, each naming its JSON path and how to fix it; past `limit` (None: no limit)
    the rest are counted, not listed. Unknown keys that ast-grep ignores go to `warnings` instead.

    A rule of a shape already found clean (no problem, no warning) is answered from the cache without importing
    jsonschema, which costs more than the rest of a `sgtools rule add` in Python."""
    key = _shape_key(data)
    if key is not None and _clean_shapes.has("clean", key):
        return []
    problems: list[str] = []
    found: list[str] = []
    for err in sorted(_validator().iter_errors(data), key=lambda e: _path(e.absolute_path)):
        if _ignored_by_ast_grep(err):
            found += [f"{text}; ast-grep ignores it" for text in _describe(err)]
            continue
        for text in _describe(err):
            if text not in problems:
                problems.append(text)
    if warnings is not None:
        warnings += found
    if key is not None and not problems and not found:
        _clean_shapes.put("clean", key, True)
    if limit is not None and len(problems) > limit:
        problems = [*problems[:limit], f"... and {len(problems) - limit} more"]
    return problems


_clean_shapes = JsonCache("schema-shapes-v1")
_PLACEHOLDER = "\x00s"  # a non-empty string that no enum of the schema holds


@functools.cache
def _schema_facts() -> tuple[str, frozenset[str]]:
    """The digest of the schema and of this module (how it reads a verdict: part of every shape key) and every
    string the schema's enums allow."""
    text = SCHEMA_PATH.read_bytes()
    members: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            members.update(v for v in node.get("enum", ()) if isinstance(v, str))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(json.loads(text))
    return sha256(text + Path(__file__).read_bytes()).hexdigest(), frozenset(members)


def _shape_key(data: Any) -> str | None:
    """`data` with each string value that no enum allows replaced by a placeholder (an empty one kept empty),
    hashed with the schema. The schema constrains string values only by type, `minLength: 1` and enums
    (tests/test_scale_paths.py checks it), all of which the replacement keeps, so two rules with the same key
    have the same verdict. Keys of mappings are kept as they are (util names have a pattern). None when `data`
    is not plain JSON."""
    digest, members = _schema_facts()

    def shape(value: Any) -> Any:
        if isinstance(value, str):
            return value if value == "" or value in members else _PLACEHOLDER
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items()}
        if isinstance(value, list):
            return [shape(v) for v in value]
        return value
    try:
        text = json.dumps([digest, shape(data)], sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_RULE_KEYS = ("pattern", "kind", "regex", "nthChild", "range", "inside", "has", "precedes", "follows", "all", "any",
              "not", "matches")


def _describe(err: ValidationError) -> list[str]:
    if err.validator in ("anyOf", "oneOf") and err.context:
        if all(e.validator in ("type", "enum") and e.absolute_path == err.absolute_path for e in err.context):
            return [_describe_alternatives(err)]
        return _describe(_best(err.context, err))
    if "propertyNames" in err.schema_path:
        return [_describe_util_name(err)]
    if err.validator in ("additionalProperties", "required") and isinstance(err.instance, dict):
        return _describe_keys(err)
    where = _path(err.absolute_path)
    prefix = f"{where}: " if where else ""
    return [prefix + _describe_value(err, where)]


def _describe_alternatives(err: ValidationError) -> str:
    """An anyOf/oneOf whose branches only differ in type or allowed values: one "expected A or B" line."""
    words: list[str] = []
    for e in err.context or []:
        values = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
        if e.validator == "enum":
            words.append(" or ".join(repr(v) for v in values if v is not None))
        else:
            words.extend(_TYPE_WORDS.get(str(v), str(v)) for v in values if v != "null")
    inst = err.instance
    quote = _quote_hint(inst) if "a string" in words else ""
    return f"{_path(err.absolute_path)}: expected {' or '.join(dict.fromkeys(words))}, got {type_name(inst)}{quote}"


def _describe_util_name(err: ValidationError) -> str:
    inst = err.instance
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", str(inst)).strip("-") or "util"
    return (f"{_path(err.absolute_path)}.{inst}: util id contains characters ast-grep 0.51 reserves (any of "
            f"{' '.join(sorted(RESERVED_UTIL_CHARS))}); rename it (e.g. `{slug}`) and update its `matches:` "
            "references")


def _describe_keys(err: ValidationError) -> list[str]:
    """Unknown keys (with the likely intended one) and missing required keys of a mapping."""
    where = _path(err.absolute_path)
    dotted = where + "." if where else ""
    inst = err.instance
    if err.validator == "required":
        return [f"{dotted}{k}: required key is missing" for k in err.validator_value if k not in inst]
    allowed = sorted((err.schema.get("properties") or {}).keys())
    out = []
    for key in inst:
        if key in allowed:
            continue
        close = _close_matches(str(key), allowed, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else "allowed: " + ", ".join(allowed)
        if not where and key in _RULE_KEYS:  # `not:` beside `rule:` is a misplaced rule key, not a typo of `note`
            hint = f"`{key}` is a rule key: move it under `rule:` (e.g. `rule: {{pattern: ..., {key}: ...}}`)"
        elif not where and not close:
            hint = "move extra information under `metadata:`; allowed: " + ", ".join(allowed)
        elif key in ("stopBy", "field") and "stopBy" not in allowed:
            hint = f"`{key}` belongs inside a relational rule (inside, has, precedes, follows)"
        out.append(f"{dotted}{key}: unknown key; {hint}")
    return out


def _describe_value(err: ValidationError, where: str) -> str:
    """What is wrong with one value (its type, its allowed values, its size), after the `path: ` prefix."""
    inst = err.instance
    if err.validator == "type":
        want = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        names = " or ".join(_TYPE_WORDS.get(str(t), str(t)) for t in want if t != "null")
        quote = _quote_hint(inst) if "string" in want else ""
        return f"expected {names}, got {type_name(inst)}{quote}"
    if err.validator == "enum":
        allowed = [str(v) for v in err.validator_value if v is not None]
        close = _close_matches(str(inst), allowed, n=1)
        return f"{inst!r} is not one of {', '.join(allowed)}" + (f"; did you mean {close[0]}?" if close else "")
    if err.validator == "minLength":
        return "must not be empty"
    if err.validator == "minimum":
        return f"must be {err.validator_value} or more"
    if err.validator in ("maxProperties", "minProperties") and where.startswith(("transform", "rewriters")):
        return "a transformation needs exactly one of substring, replace, convert, rewrite"
    return str(err.message)


def _quote_hint(value: Any) -> str:
    """YAML reads `42`, `1.5` and `true` as numbers and booleans; as code they must be quoted."""
    if isinstance(value, bool):
        return f" (quote it: '{str(value).lower()}')"
    if isinstance(value, (int, float)):
        return f" (quote it: '{value}')"
    return ""


def _best(errors: Iterable[ValidationError], parent: ValidationError) -> ValidationError:
    """The branch error that says the most: anything beats a bare type mismatch, deeper beats shallower."""
    candidates = list(errors)
    informative = [e for e in candidates if not (e.validator == "type" and e.absolute_path == parent.absolute_path)]
    pool = informative or candidates
    return max(pool, key=lambda e: (len(e.absolute_path), e.validator not in ("type", "anyOf", "oneOf")))


_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
               "boolean": "true or false", "number": "a number"}


def _path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    for kind, word in ((dict, "a mapping"), (list, "a list"), (str, "a string"), (int, "an integer"),
                       (float, "a number")):
        if isinstance(value, kind):
            return word
    return type(value).__name__


def _close_matches(word: str, possibilities: list[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """difflib's, imported only when a rule has a key or value to correct (a valid rule never loads difflib)."""
    import difflib

    return difflib.get_close_matches(word, possibilities, n=n, cutoff=cutoff)
