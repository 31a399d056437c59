"""Running one tool call: validate, refuse writes in read-only mode, call the service in a worker thread under
a deadline, cap the output, and turn an `SgToolsError` into an `isError` result that starts with its SPEC code."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.to_thread
import jsonschema
import pydantic_core
from mcp_types import CallToolResult, TextContent

from sgtools.core.errors import ReadOnly, SgToolsError, Timeout
from sgtools.core.oserrors import io_error
from sgtools.engine import lifecycle
from sgtools.server.arguments import validate
from sgtools.server.guard import escape_surrogates
from sgtools.server.spec import App, ToolSpec

log = logging.getLogger("sgtools.server.runner")


def _cap(value: Any, limit: int, cut: list[int]) -> Any:
    if isinstance(value, str) and len(value) > limit:
        cut.append(len(value))
        return value[:limit] + f"\n... [cut: {len(value) - limit} more characters]"
    if isinstance(value, dict):
        return {k: _cap(v, limit, cut) for k, v in value.items()}
    if isinstance(value, list):
        return [_cap(v, limit, cut) for v in value]
    return value


def _checked(data: Any, limit: int) -> tuple[Any, bool]:
    """`data` with lone surrogates escaped (text from disk, a file name or a YAML escape, may not encode), and
    whether no string in it can be over `limit` characters. Both questions would walk the whole result in Python
    (0.5 ms for a scan's 10 KB, on every call); one UTF-8 JSON dump in Rust answers them for the common case: it
    fails on a lone surrogate, and no string is longer (in characters) than the dump's bytes that hold it.
    (pydantic-core's dump: 0.08 ms for the TypeScript B1 findings result's 6 KB against 0.34 for `json.dumps` and
    encoding it, the same run.)"""
    try:
        dumped = pydantic_core.to_json(data)
    except (TypeError, ValueError):  # a lone surrogate (PydanticSerializationError), a value JSON does not hold
        return escape_surrogates(data), False
    return data, len(dumped) <= limit


def _cap_text(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [text cut at {limit} characters; the structured result has the details]"


# ---- running a call ---------------------------------------------------------------------------------------


def error_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=escape_surrogates(text))], is_error=True)


def _refuse_in_read_only(app: App, spec: ToolSpec, args: Mapping[str, Any]) -> None:
    if not app.read_only:
        return
    if spec.write_only:
        raise ReadOnly(f"{spec.name} writes to the project, and this server runs with --read-only. "
                       "Ask the user to restart it without --read-only, or use the read-only tools.")
    if spec.writes_when_applied and args.get("apply"):
        raise ReadOnly(f"{spec.name} with apply=true writes files, and this server runs with --read-only. "
                       "Call it with apply=false to get the diff and show it to the user instead.")


async def run_tool(app: App, spec: ToolSpec, schema: dict[str, Any], raw: object,
                   validator: jsonschema.protocols.Validator | None = None) -> CallToolResult:
    """Validate, refuse writes in read-only mode, run the service off the event loop under a deadline.
    `validator` is the one built for `schema` when the tool was made, so a call does not build it again."""
    try:
        args = validate(spec.name, schema, raw, validator)
        _refuse_in_read_only(app, spec, args)
        limit = app.settings.tool_timeout
        # The call's processes end with it: answered, cancelled (`notifications/cancelled`) or out of time, and
        # the tool's deadline bounds every engine deadline inside it (engine/lifecycle.py).
        call = lifecycle.Call(time.monotonic() + limit)
        try:
            with anyio.fail_after(limit):
                # abandon_on_cancel: a cancelled or timed-out call returns at once; `call.end` kills its ast-grep,
                # so the worker unwinds too, and writes are atomic, so it cannot leave a half-written file.
                data = await anyio.to_thread.run_sync(lifecycle.run_in, call, spec.call, app, args,
                                                      abandon_on_cancel=True)
        except TimeoutError:
            raise Timeout(
                f"{spec.name} did not finish within {limit:g} s. Narrow the input (fewer paths, a smaller snippet, "
                "fewer rules) or raise SGTOOLS_TOOL_TIMEOUT. A write that was under way may still complete: "
                "check with list_rules / scan before retrying."
            ) from None
        finally:
            call.end()
    except SgToolsError as exc:
        log.info("tool %s refused: %s", spec.name, exc.render()[:500])
        return error_result(exc.render())
    except OSError as exc:  # the environment (read-only, full disk, wrong file type), not a bug
        log.info("tool %s hit a filesystem fault", spec.name, exc_info=True)
        return error_result(io_error(exc, f"{spec.name}:").render())
    except Exception as exc:
        log.exception("tool %s failed unexpectedly", spec.name)
        short = str(exc).splitlines()[0][:200] if str(exc) else ""
        return error_result(f"[engine-failed] {spec.name} failed unexpectedly ({type(exc).__name__}"
                             f"{': ' + short if short else ''}). The details are in the server log; retry, "
                             "and report it if it persists.")
    cap = app.settings.tool_max_output_chars
    data, fits = _checked(data, cap)
    cut: list[int] = []
    structured = data if fits else _cap(data, cap, cut)
    if cut:
        structured["outputTruncated"] = True
    text = _cap_text(spec.render(data), cap)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)

