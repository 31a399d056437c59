"""The published JSON schemas of the tools, derived from the services' TypedDicts.

A tool's wrapper in `tools.py` is annotated with its argument and result TypedDicts (and mypy checks them
against the service); `schema_of` turns those into JSON Schema, so a field added to a result is published and
an argument's name, type and requiredness have one source. Inputs use plain JSON types (no $ref/anyOf: some
agent frameworks cannot read them) plus a description and caps per argument from `_field_docs`.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints

from sgtools.contracts.common import SEVERITIES
from sgtools.core.settings import Settings
from sgtools.server.spec import ToolSpec


def _str(description: str, max_length: int, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, "maxLength": max_length, **extra}


def _str_list(description: str, max_items: int, max_length: int) -> dict[str, Any]:
    return {"type": "array", "description": description, "items": {"type": "string", "maxLength": max_length},
            "maxItems": max_items}


def _int(description: str, minimum: int, maximum: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "description": description, "minimum": minimum}
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def _bool(description: str, default: bool = False) -> dict[str, Any]:
    return {"type": "boolean", "description": description, "default": default}



_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


@functools.cache
def schema_of(tp: Any) -> dict[str, Any]:
    """JSON Schema of a type used in a contract: scalars, None, Literal, list, dict[str, T], unions and
    TypedDicts (inlined; a key is required unless NotRequired / total=False). `object` / Any: any JSON."""
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    if tp is Any or tp is object:
        return {}
    origin = get_origin(tp)
    if origin in (Required, NotRequired):
        return schema_of(get_args(tp)[0])
    if origin is Literal:
        values = list(get_args(tp))
        kinds = sorted({_SCALARS[type(v)] for v in values})
        return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": values}
    if origin is list:
        return {"type": "array", "items": schema_of(get_args(tp)[0])}
    if origin is dict:
        return {"type": "object", "additionalProperties": schema_of(get_args(tp)[1])}
    if origin in (Union, types.UnionType):
        return _union(get_args(tp))
    if _is_typeddict(tp):
        hints = get_type_hints(tp, include_extras=True)
        required = [k for k, v in hints.items() if _required(tp, k, v)]
        schema: dict[str, Any] = {"type": "object", "properties": {k: schema_of(v) for k, v in hints.items()}}
        if required:
            schema["required"] = required
        return schema
    raise TypeError(f"no JSON Schema for {tp!r}: use JSON types in service contracts")


def _required(tp: Any, key: str, hint: Any) -> bool:
    """Whether a TypedDict key is required. The Required/NotRequired wrapper decides when present: Python 3.11
    ignores it in `__required_keys__` for string annotations (`from __future__ import annotations`)."""
    if get_origin(hint) is Required:
        return True
    if get_origin(hint) is NotRequired:
        return False
    return key in tp.__required_keys__


def _merge(derived: dict[str, Any], docs: dict[str, Any]) -> dict[str, Any]:
    """`derived` with `docs` laid over it, nested schemas merged key by key."""
    out = dict(derived)
    for key, value in docs.items():
        old = out.get(key)
        out[key] = _merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return out


def _union(members: tuple[Any, ...]) -> dict[str, Any]:
    """`X | None` stays a plain schema with "null" added to its type; other unions become anyOf."""
    others = [m for m in members if m is not type(None)]
    if len(others) == 1 and len(others) < len(members):
        inner = dict(schema_of(others[0]))
        kind = inner.get("type")
        if isinstance(kind, str):
            inner["type"] = [kind, "null"]
            if "enum" in inner:
                inner["enum"] = [*inner["enum"], None]
            return inner
    return {"anyOf": [schema_of(m) for m in members]}


def contract(spec: ToolSpec) -> tuple[Any, Any]:
    """The argument and result TypedDicts of a tool, read from its wrapper's annotations."""
    hints = get_type_hints(spec.call)
    return hints["args"], hints["return"]


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    return schema_of(contract(spec)[1])


# How deep `tools/list` describes a result: its fields and their types; scan_code's findings one level more.
# The full shapes are in docs/SPEC.md and in `output_schema`, which the contract tests check results against.
_PUBLISHED_DEPTH = {"scan_code": 2}


def _pruned(schema: dict[str, Any], depth: int, limit: int) -> dict[str, Any]:
    """`schema` with the properties of objects `limit` levels down left out (a looser schema: every result
    the full one accepts, it accepts), and the `required` lists below the top level."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties":
            if depth >= limit:
                continue
            value = {name: _pruned(prop, depth + 1, limit) for name, prop in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            value = _pruned(value, depth, limit)
        elif key == "anyOf":
            value = [_pruned(member, depth, limit) for member in value]
        elif key == "required" and depth > 0:
            continue
        out[key] = value
    return out


def published_output(spec: ToolSpec) -> dict[str, Any]:
    """The output schema as `tools/list` shows it: each field of the result with its type (the structure a host
    validates and an agent reads), without the nested detail that costs context at every session start."""
    return _pruned(output_schema(spec), 0, _PUBLISHED_DEPTH.get(spec.name, 1))


def input_schema(spec: ToolSpec, docs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The argument TypedDict's schema, closed, with each argument's description and caps merged in."""
    derived = schema_of(contract(spec)[0])
    props = derived.get("properties", {})
    if set(docs) != set(props):
        raise TypeError(f"{spec.name}: documented arguments {sorted(docs)} differ from its TypedDict's "
                        f"{sorted(props)}")
    for name, prop in props.items():
        if "type" in docs[name] and docs[name]["type"] != prop.get("type"):
            raise TypeError(f"{spec.name}.{name}: documented as {docs[name]['type']}, typed as {prop.get('type')}")
    return {**derived, "properties": {k: _merge(props[k], docs[k]) for k in props}, "additionalProperties": False}


_CAPS = frozenset({"maxLength", "maxItems", "maximum", "pattern"})


def published(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema as `tools/list` shows it: without the size caps and the id pattern, which change no
    agent's choice and cost context at every session start. Calls are still validated against the full one."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _CAPS or (key == "default" and value is False):
            continue
        if key == "properties":
            value = {name: published(prop) for name, prop in value.items()}
        elif key == "items" and isinstance(value, dict):
            value = published(value)
        out[key] = value
    return out


def input_schemas(s: Settings, specs: typing.Iterable[ToolSpec]) -> dict[str, dict[str, Any]]:
    docs = _field_docs(s)
    return {spec.name: input_schema(spec, docs[spec.name]) for spec in specs}


def _field_docs(s: Settings) -> dict[str, dict[str, dict[str, Any]]]:
    """Per tool, per argument: the description and the caps (from `Settings`, so operators can tune them).
    Names, types and which arguments are required come from the tool's argument TypedDict."""
    short = s.max_rule_bytes
    language = _str("e.g. python, typescript, go", 64)
    rule_id = _str("rule id", 128,
                   pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    rule_yaml = _str("one ast-grep rule as YAML",
                     s.max_rule_bytes)
    paths = _str_list("files or directories (default: the workspace)",
                      s.hard_max_results, 4096)
    rule_ids = _str_list("only these rules", s.hard_max_results, 128)
    valid = _str_list("code it must not match", s.max_examples,
                      s.max_code_bytes)
    invalid = _str_list("code it must match", s.max_examples,
                        s.max_code_bytes)
    min_severity = {"type": "string", "enum": list(SEVERITIES),
                    "description": "lowest severity reported"}
    max_results = _int(f"default {s.default_max_results}", 1, s.hard_max_results)
    apply = _bool("write to disk (default: only the diff)")
    return {
        "initialize_ast_grep": {},
        "scan_code": {
            "code": _str("a snippet to check", s.max_code_bytes),
            "files": {"type": "array", "minItems": 1, "maxItems": s.max_overlay_files,
                      "description": "instead of `code`: a pending change's files",
                      "items": {"properties": {
                          "path": _str("workspace path", 4096),
                          "code": _str("new content", s.max_code_bytes)},
                          "additionalProperties": False}},
            "language": _str("the snippet's language (or give `path`)", 64),
            "path": _str("the snippet's virtual path, e.g. src/app.py", 4096),
            "paths": _str_list("no code: files or directories (default: all)",
                               s.hard_max_results, 4096),
            "rule_ids": _str_list("no code: only these rules", s.hard_max_results, 128),
            "offset": _int("no code: the previous page's nextOffset", 0),
            "profile": _bool("no code: time each rule"),
            "min_severity": min_severity, "max_results": max_results,
        },
        "add_or_update_rule": {
            "rule_id": rule_id, "rule_yaml": rule_yaml, "valid_examples": valid, "invalid_examples": invalid,
            "force": _bool("save with no invalid example (unproven) or never firing"),
        },
        "remove_rule": {"rule_id": rule_id},
        "list_rules": {"language": language, "rule_id": {**rule_id, "description": "explain this rule"}},
        "test_rule": {
            "rule_yaml": rule_yaml, "code": _str("code to run it on", s.max_code_bytes),
            "language": language, "valid_examples": valid, "invalid_examples": invalid,
        },
        "suggest_rule": {
            "language": language,
            "invalid_examples": {**_str_list("code it must flag (varied: a more general rule)",
                                             s.max_examples, s.max_arg_bytes), "minItems": 1},
            "valid_examples": _str_list("code it must not flag (near misses)",
                                        s.max_examples, s.max_arg_bytes),
            "path": _str("virtual path, e.g. src/app.tsx", 4096),
            "message": _str("the rule's message", short),
            "severity": {"type": "string", "enum": list(SEVERITIES), "description": "default warning"},
            "rule_id": rule_id,
            "fix_examples": {"type": "array", "maxItems": s.max_examples,
                             "description": "before/after pairs: infer a verified `fix`",
                             "items": {"properties": {"before": {"type": "string", "maxLength": s.max_arg_bytes},
                                                      "after": {"type": "string", "maxLength": s.max_arg_bytes}},
                                       "additionalProperties": False}},
            "max_candidates": _int("default 3", 1, s.suggest_max_candidates),
            "request": _str("your words, e.g. `in library code`: a path scope", 4096),
            "draft_rule": _str("your rule's YAML", s.max_rule_bytes),
        },
        "dump_syntax_tree": {
            "code": _str("code or pattern", s.max_arg_bytes), "language": language,
            "format": {"type": "string", "enum": ["cst", "ast", "pattern"], "default": "cst",
                       "description": "cst: all nodes; ast: named ones; pattern: as a pattern"},
        },
        "find_code": {
            "pattern": _str("an ast-grep pattern, e.g. `$A == None`", s.max_arg_bytes), "language": language,
            "paths": paths, "max_results": max_results,
            "rewrite": _str("replacement, e.g. `$A is None`",
                            s.max_arg_bytes),
            "apply": apply,
        },
        "apply_fixes": {"paths": paths, "rule_ids": rule_ids, "apply": apply, "include_unsafe": {
            "type": "boolean", "default": False,
            "description": "also fixes that may change behaviour"}},
        "search_community_rules": {
            "query": _str("words, e.g. `unchecked error`", short),
            "language": language,
            "tags": _str("comma-separated, all required, e.g. `security,cwe-95`", short),
            "limit": _int("at most this many", 1, s.hard_max_results),
            "source": _str("only this source's rules", short),
        },
        "get_community_rule_details": {"rule_id": rule_id},
        "import_community_rule": {
            "rule_id": rule_id,
            "overwrite": _bool("replace a rule with the same id"),
            "globs": {"type": "string", "enum": ["keep", "drop"], "default": "keep",
                      "description": "drop: ignore the source's files/ignores globs"},
        },
        "server_info": {},
    }


