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

