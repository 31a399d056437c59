"""Arguments as agents send them: forgiving coercion, then validation against the input schema with errors
that name the parameter and list the tool's parameters."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import jsonschema
from mcp.server.mcpserver import Context

from sgtools.core.errors import BadInput, TooLarge

# A byte of a file name that is not UTF-8, as the server writes it (server/guard.py: `\udcXX`, surrogateescape's range).
_ESCAPED_BYTE = re.compile(r"\\u(dc[89a-f][0-9a-f])", re.IGNORECASE)


def unescape_path(path: str) -> str:
    """A path as the server wrote it back into the file's real name: each `\\udcXX` the server wrote for a byte
    that is not UTF-8 becomes that byte again (as Python's surrogateescape holds it), so a file found by one tool
    can be passed to the next (rewrite_code, apply_fixes, scan_code's paths)."""
    if "\\u" not in path:
        return path
    return _ESCAPED_BYTE.sub(lambda m: chr(int(m.group(1), 16)), path)


def _coerce(schema: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """Forgive what agents commonly send: nulls for omitted options, JSON- or plain strings for lists,
    numbers and booleans as strings, a list for the comma-separated `tags`."""
    props: Mapping[str, Any] = schema.get("properties", {})
    out: dict[str, Any] = {}
    for key, value in args.items():
        if value is None:
            continue
        kind = props.get(key, {}).get("type")
        if kind == "array" and isinstance(value, str):
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            value = parsed if isinstance(parsed, list) else [value]
        elif kind == "integer" and (
            (isinstance(value, str) and value.strip().lstrip("-").isdigit())
            or (isinstance(value, float) and value.is_integer())
        ):
            value = int(value)
        elif kind == "boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
            value = value.strip().lower() == "true"
        elif kind == "string" and key == "tags" and isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = ",".join(value)
        out[key] = value
    return out


def validate(name: str, schema: dict[str, Any], raw: object,
              validator: jsonschema.protocols.Validator | None = None) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise BadInput(f"The arguments of {name} must be a JSON object. " + _usage(schema))
    args = _coerce(schema, raw)
    if isinstance(args.get("paths"), list):
        args["paths"] = [unescape_path(v) if isinstance(v, str) else v for v in args["paths"]]
    if _plainly_valid(schema, args):
        return args
    checker = validator or jsonschema.Draft202012Validator(schema)
    errors = sorted(checker.iter_errors(args), key=lambda e: list(e.path))
    if not errors:
        return args
    too_large = [e for e in errors if e.validator in ("maxLength", "maxItems")]
    if too_large:
        e = too_large[0]
        what = "characters" if e.validator == "maxLength" else "items"
        raise TooLarge(f"`{_where(e)}` has more than {e.validator_value} {what}. Send less per call "
                       "(split the input), or raise the limit with the matching SGTOOLS_* setting.")
    problems = "; ".join(_describe(e) for e in errors[:5])
    raise BadInput(f"Invalid arguments for {name}: {problems}. " + _usage(schema))


# What `_plainly_valid` checks itself: a flat object schema, and per property a string, integer or boolean with
# these constraints (a property of any other shape, or a keyword not listed, leaves that call to jsonschema).
_FLAT_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "description", "title"})
_SCALAR_KEYS = frozenset({"type", "description", "title", "default", "maxLength", "minLength", "enum", "minimum",
                          "maximum"})
_SCALAR_TYPES = frozenset({"string", "integer", "boolean"})
Plain = dict[str, Mapping[str, Any] | None]  # property -> its schema when checked here, None when not
_plain: dict[int, tuple[Mapping[str, Any], Plain | None]] = {}  # id(schema) -> (schema, its properties)


def _plain_properties(schema: Mapping[str, Any]) -> Plain | None:
    """The properties of a flat, closed object schema (None for any other), each with its schema when it is a
    scalar `_plainly_valid` can check, else None. Kept per schema object (the tool schemas live as long as the
    server)."""
    hit = _plain.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    props = schema.get("properties")
    plain: Plain | None = None
    if (set(schema) <= _FLAT_KEYS and schema.get("type") == "object" and schema.get("additionalProperties") is False
            and isinstance(props, dict) and isinstance(schema.get("required", []), list)):
        plain = {name: (p if isinstance(p, dict) and set(p) <= _SCALAR_KEYS and p.get("type") in _SCALAR_TYPES
                        else None) for name, p in props.items()}
    if len(_plain) > 256:
        _plain.clear()
    _plain[id(schema)] = (schema, plain)
    return plain


def _scalar_ok(p: Mapping[str, Any], value: Any) -> bool:
    """Whether `value` passes the scalar schema `p` (string/integer/boolean, see `_SCALAR_KEYS`), as jsonschema
    would judge it; False also for what jsonschema might accept by another reading (a float integer), so that
    jsonschema decides those."""
    kind = p["type"]
    if kind == "string":
        if not isinstance(value, str):
            return False
        if "maxLength" in p and len(value) > p["maxLength"]:
            return False
        if "minLength" in p and len(value) < p["minLength"]:
            return False
    elif kind == "integer":
        if type(value) is not int:
            return False
        if "minimum" in p and value < p["minimum"]:
            return False
        if "maximum" in p and value > p["maximum"]:
            return False
    elif type(value) is not bool:
        return False
    return "enum" not in p or any(type(value) is type(e) and value == e for e in p["enum"])


def _plainly_valid(schema: Mapping[str, Any], args: Mapping[str, Any]) -> bool:
    """True when `args` surely pass `schema`: every key a known scalar property whose value passes it, and every
    required key present. False means "ask jsonschema" (which then names the errors), never "invalid": the
    common call is answered without jsonschema's walk (0.05 ms a call, three times that in the server's
    event loop)."""
    plain = _plain_properties(schema)
    if plain is None or any(k not in args for k in schema.get("required", ())):
        return False
    for key, value in args.items():
        p = plain.get(key)
        if p is None or not _scalar_ok(p, value):
            return False
    return True


def _where(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.path) or "arguments"


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        unknown = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return "unknown parameter" + ("s " if len(unknown) > 1 else " ") + ", ".join(f"`{u}`" for u in unknown)
    message = str(error.message)
    if error.validator == "required":
        return message
    shown = message if len(message) <= 200 else message[:200] + "..."
    return f"`{_where(error)}`: {shown}"


def _usage(schema: Mapping[str, Any]) -> str:
    required = set(schema.get("required", []))
    params = [f"{name}{'' if name in required else '?'} ({prop.get('type')})"
              for name, prop in schema.get("properties", {}).items()]
    return "Parameters: " + (", ".join(params) if params else "none") + "."


def raw_arguments(ctx: Context[Any, Any]) -> object:
    params = ctx.request_context.params or {}
    return params.get("arguments") or {}

