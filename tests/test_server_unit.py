"""The adapter's own behaviour, in process: error mapping, deadlines, cancellation, caps, argument coercion.

The faults here (a service that crashes, hangs or returns a huge string) cannot be caused on demand with the
real services, so these tests register stand-in tool calls; everything else is the real server code.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.present import results
from sgtools.present import rules as present_rules
from sgtools.present.text import plural
from sgtools.project.workspace import Workspace
from sgtools.server import app as server
from sgtools.server import arguments, resources, runner
from sgtools.server.schemas import input_schemas
from sgtools.server.spec import App, Call, ToolSpec


def _app(ws: Workspace, *, read_only: bool = False, **limits: Any) -> App:
    return App(ws=ws, engine=Engine(), settings=Settings().replace(**limits), read_only=read_only)


def _spec(call: Call, **kw: Any) -> ToolSpec:
    base = server.tool_specs()["server_info"]
    return replace(base, **{"call": call, "render": lambda d: f"rendered {sorted(d)}", **kw})


def _run(app: App, spec: ToolSpec, args: Any, schema: dict[str, Any] | None = None) -> Any:
    return anyio.run(runner.run_tool, app, spec, schema or {"type": "object", "properties": {}}, args)


def _text(result: Any) -> str:
    return str(result.content[0].text)


def test_unexpected_exception_is_engine_failed_and_logged(ws: Workspace, caplog: pytest.LogCaptureFixture) -> None:
    def crash(app: App, args: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("internal detail\nsecond line")

    with caplog.at_level(logging.ERROR, logger="sgtools.server"):
        result = _run(_app(ws), _spec(crash), {})
    assert result.is_error
    body = _text(result)
    assert body.startswith("[engine-failed] server_info failed unexpectedly (RuntimeError: internal detail)")
    assert "second line" not in body and len(body) < 400
    assert any(r.exc_info for r in caplog.records), "the traceback must be logged"


def test_sgtools_error_is_rendered_with_its_code(ws: Workspace) -> None:
    from sgtools.core.errors import Conflict

    def conflict(app: App, args: dict[str, Any]) -> dict[str, Any]:
        raise Conflict("Rule x exists. Pass overwrite=true to replace it.")

    result = _run(_app(ws), _spec(conflict), {})
    assert result.is_error and _text(result) == "[conflict] Rule x exists. Pass overwrite=true to replace it."


def test_deadline_gives_timeout_promptly(ws: Workspace) -> None:
    release = threading.Event()

    def hang(app: App, args: dict[str, Any]) -> dict[str, Any]:
        release.wait(120)  # released at the end: a tool that never finishes on its own
        return {}

    started = time.monotonic()
    result = _run(_app(ws, tool_timeout=0.3), _spec(hang), {})
    elapsed = time.monotonic() - started
    release.set()
    assert result.is_error and _text(result).startswith("[timeout] server_info did not finish within 0.3 s")
    assert elapsed < 60  # a hang guard, far below the tool's 120 s: the [timeout] text says which deadline decided


def test_cancellation_returns_at_once(ws: Workspace) -> None:
    release = threading.Event()

    def hang(app: App, args: dict[str, Any]) -> dict[str, Any]:
        release.wait(120)  # released at the end: a tool that never finishes on its own
        return {}

    async def main() -> float:
        started = time.monotonic()
        with anyio.move_on_after(0.2):
            await runner.run_tool(_app(ws), _spec(hang), {"type": "object"}, {})
        return time.monotonic() - started

    elapsed = anyio.run(main)
    release.set()
    assert elapsed < 60  # a hang guard, far below the tool's 120 s, not a budget


def test_large_strings_are_cut_and_flagged(ws: Workspace) -> None:
    def big(app: App, args: dict[str, Any]) -> dict[str, Any]:
        return {"tree": "y" * 5000, "small": "ok", "items": [{"text": "z" * 5000}]}

    spec = _spec(big, render=lambda d: str(d["tree"]))
    result = _run(_app(ws, tool_max_output_chars=1000), spec, {})
    data = result.structured_content
    assert data["outputTruncated"] is True and data["small"] == "ok"
    assert data["tree"].startswith("y" * 1000) and "cut: 4000 more characters" in data["tree"]
    assert len(data["items"][0]["text"]) < 1100
    assert len(_text(result)) < 1200 and "text cut at 1000" in _text(result)


def test_a_clean_result_is_sent_without_walking_it_and_a_dirty_one_is_escaped(ws: Workspace,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The outgoing checks (lone surrogates, strings over the cap) walk a result only when one JSON dump says
    they must: a scan's 10 KB cost 0.5 ms of Python per call in the two walks."""
    clean = {"issues": [{"text": "日本😀", "n": i} for i in range(200)], "ok": True}
    dirty = {"name\udcff": ["bad \ud800 text", "fine"], "ok": True}
    walked: list[str] = []
    for name in ("_cap", "escape_surrogates"):
        real = getattr(runner, name)
        monkeypatch.setattr(runner, name, lambda *a, _real=real, _name=name: walked.append(_name) or _real(*a))
    result = _run(_app(ws), _spec(lambda app, args: clean, render=lambda d: "clean"), {})
    assert result.structured_content == clean and walked == []
    result = _run(_app(ws, tool_max_output_chars=1000), _spec(lambda app, args: dirty, render=lambda d: "d"), {})
    assert result.structured_content == {"name\\udcff": ["bad \\ud800 text", "fine"], "ok": True}
    assert "outputTruncated" not in result.structured_content and walked


def test_coercion_of_what_agents_send() -> None:
    schema = input_schemas(Settings(), server.TOOLS)["scan_code"]
    assert arguments._coerce(schema, {"paths": '["a", "b"]', "max_results": "7", "offset": 2.0, "rule_ids": None}) == \
        {"paths": ["a", "b"], "max_results": 7, "offset": 2}
    assert arguments._coerce(schema, {"paths": "src/app.py"}) == {"paths": ["src/app.py"]}
    search = input_schemas(Settings(), server.TOOLS)["search_community_rules"]
    assert arguments._coerce(search, {"query": "x", "tags": ["a", "b"]}) == {"query": "x", "tags": "a,b"}
    fixes = input_schemas(Settings(), server.TOOLS)["apply_fixes"]
    assert arguments._coerce(fixes, {"apply": "true"}) == {"apply": True}


def test_bad_arguments_name_the_problem_and_the_parameters(ws: Workspace) -> None:
    spec = server.tool_specs()["dump_syntax_tree"]
    schema = input_schemas(Settings(), server.TOOLS)["dump_syntax_tree"]
    result = _run(_app(ws), spec, {"cod": "x", "language": "python"}, schema)
    body = _text(result)
    assert body.startswith("[bad-input] Invalid arguments for dump_syntax_tree:")
    assert "'code' is a required property" in body and "unknown parameter `cod`" in body
    assert "Parameters: code (string), language (string), format? (string)" in body
    result = _run(_app(ws), spec, ["not", "an", "object"], schema)
    assert _text(result).startswith("[bad-input] The arguments of dump_syntax_tree must be a JSON object.")


def test_each_tool_builds_its_validator_once_not_per_call(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    import jsonschema

    built: list[object] = []
    real = jsonschema.Draft202012Validator

    def counting(schema: Any) -> Any:
        built.append(schema)
        return real(schema)

    monkeypatch.setattr(jsonschema, "Draft202012Validator", counting)
    app = _app(ws)
    schema = input_schemas(app.settings, server.TOOLS)["scan_code"]
    spec = server.tool_specs()["scan_code"]
    tool = server._make_tool(app, spec, schema, server._tool_call(app, spec, schema))
    assert len(built) == 1
    ctx = SimpleNamespace(request_context=SimpleNamespace(params={"arguments": {"cod": "x"}}))
    for _ in range(3):
        result = anyio.run(tool.fn, ctx)
        assert _text(result).startswith("[bad-input] Invalid arguments for scan_code:")
    assert len(built) == 1, "a tool call must reuse the validator built with the tool"


def test_oversized_input_is_too_large_without_echoing_it(ws: Workspace) -> None:
    settings = Settings().replace(max_code_bytes=100)
    spec = server.tool_specs()["scan_code"]
    schema = input_schemas(settings, server.TOOLS)["scan_code"]
    result = _run(_app(ws, max_code_bytes=100), spec, {"code": "q" * 500, "language": "python"}, schema)
    body = _text(result)
    assert body.startswith("[too-large] `code` has more than 100 characters") and "qqqq" not in body


def test_read_only_refuses_writes_before_running_anything(ws: Workspace) -> None:
    ran: list[str] = []

    def record(app: App, args: dict[str, Any]) -> dict[str, Any]:
        ran.append("x")
        return {}

    app = _app(ws, read_only=True)
    apply_spec = replace(server.tool_specs()["apply_fixes"], call=record)
    schema = input_schemas(Settings(), server.TOOLS)["apply_fixes"]
    assert _text(_run(app, apply_spec, {"apply": True}, schema)).startswith("[read-only] apply_fixes with apply=true")
    assert not _run(app, apply_spec, {"apply": False}, schema).is_error
    init_spec = replace(server.tool_specs()["initialize_ast_grep"], call=record)
    assert _text(_run(app, init_spec, {})).startswith("[read-only] initialize_ast_grep writes")
    assert ran == ["x"]


def test_server_info_reaches_its_services(ws: Workspace) -> None:
    """The tool table calls services as typed functions: a moved or renamed service breaks mypy and this call,
    not a string lookup at run time (server_info once answered [engine-failed] after a rename)."""
    result = _run(_app(ws), server.tool_specs()["server_info"], {})
    assert not result.is_error, _text(result)
    assert result.structured_content["root"] == str(ws.root)


def test_annotations_follow_the_mode() -> None:
    specs = server.tool_specs()
    rewrite = specs["find_code"]
    assert rewrite.annotations(False).destructive_hint is True
    assert rewrite.annotations(True).read_only_hint is True and rewrite.annotations(True).destructive_hint is False
    assert specs["scan_code"].annotations(False).read_only_hint is True
    assert specs["import_community_rule"].annotations(False).open_world_hint is True


def test_guide_ships_with_the_package() -> None:
    text = resources.guide_text()
    assert text.startswith("# Writing ast-grep rules") and "test_rule" in text
    assert (Path(resources.__file__).parent / resources.GUIDE_FILE).is_file()


def test_text_renderings_are_short_and_say_what_to_do() -> None:
    assert plural(0, "match") == "0 matches" and plural(1, "issue") == "1 issue" and plural(2, "fix") == "2 fixes"
    issue = {"ruleId": "no-eval", "severity": "error", "message": "avoid eval", "file": "a.js", "line": 2,
             "column": 5, "fixits": [{"kind": "fix", "verified": True, "safety": "safe", "confidence": 0.9,
                                                "title": "Replace with JSON.parse(x)"}]}
    scan = results.render_scan({"issues": [issue] * 30, "counts": {"error": 30}, "truncated": True,
                                "nextOffset": 30, "ruleErrors": [{"path": "rules/bad.yml", "message": "broken"}]})
    lines = scan.splitlines()
    assert lines[0] == "30 issues (30 error)."
    assert lines[1] == ("a.js:2:5: error[no-eval] avoid eval [fix: verified, safe, confidence 0.90] "
                        "Replace with JSON.parse(x)")
    unsafe = {**issue, "fixits": [{"kind": "fix", "verified": True, "safety": "unsafe", "title": "x"}]}
    assert "[fix: verified, unsafe, confidence unknown]" in results.diagnostic_line(unsafe)
    fixed = results.render_fixes({"diff": "--- a\n+++ b\n", "changedFiles": ["a.js"], "applied": True, "fixes": [
        {"ruleId": "r", "file": "a.js", "line": 3, "title": "Replace with y", "safety": "unsafe", "confidence": 0.8}],
        "skipped": [{"ruleId": "s", "file": "a.js", "line": 5, "reason": "unsafe: it may change behaviour"}]})
    assert fixed.splitlines()[:3] == [
        "Applied 1 fix in 1 file; skipped 1: 1 unsafe (pass include_unsafe: true to apply them once reviewed).",
        "a.js:3 r: Replace with y (unsafe, confidence 0.80)",
        "not applied: a.js:5 s: unsafe: it may change behaviour"]
    # every fix skipped: the text says so and how to apply them, never "Nothing to change."
    none = results.render_fixes({"diff": "", "changedFiles": [], "applied": False, "fixesApplied": 0, "fixes": [],
                                 "skipped": [{"ruleId": "s", "file": "a.js", "line": 5, "reason": r} for r in (
                                     "unsafe: it may change behaviour", "unsafe: x",
                                     "not verified (the fixed code did not re-scan cleanly), so it is never applied",
                                     "overlaps a fix applied before it; run apply_fixes again after this one")]})
    assert "Nothing to change" not in none
    assert none.splitlines()[0] == (
        "Would apply (dry run: pass apply: true to write) 0 fixes in 0 files; skipped 4: 2 unsafe (pass "
        "include_unsafe: true to apply them once reviewed); 1 unverified (never applied: edit by hand or fix the "
        "rule); 1 overlapping (run apply_fixes again to apply them).")
    assert "... and 10 more (see the structured result)" in lines
    assert "call again with offset=30" in scan and "rules/bad.yml: broken" in scan
    assert results.render_scan({"issues": [], "counts": {}}) == "No issues found."
    failed = [{"reason": "invalid_examples[0] is not matched"}]
    tested = present_rules.render_test({"success": False, "errors": [], "matches": [], "hints": [], "warnings": [],
                                        "examples": {"passed": 1, "failed": failed}})
    assert "✗ invalid_examples[0] is not matched" in tested and "0 matches in the code." in tested
    dry = results.render_diff({"diff": "--- a\n+++ b\n", "changedFiles": ["a.js"], "applied": False})
    assert dry.startswith("Would change (dry run; call again with apply=true to write): a.js")


def test_tools_list_is_built_once_and_answers_as_the_sdk_does(ws: Workspace) -> None:
    from mcp import Client

    cached = server.build_server(str(ws.root))
    plain = server.build_server(str(ws.root))
    plain._lowlevel_server.middleware[:] = [m for m in plain._lowlevel_server.middleware
                                            if not isinstance(m, server.ListToolsCache)]
    built = 0
    real_list = cached.list_tools

    async def counting() -> Any:
        nonlocal built
        built += 1
        return await real_list()

    cached.list_tools = counting  # type: ignore[method-assign]  # a spy: the real listing still answers

    async def listings(srv: Any) -> list[Any]:
        async with Client(srv) as client:
            return [[t.model_dump(mode="json") for t in (await client.list_tools()).tools] for _ in range(3)]

    ours, sdk = anyio.run(listings, cached), anyio.run(listings, plain)
    assert ours[0] == ours[1] == ours[2] == sdk[0] and len(sdk[0]) == 14
    assert built == 1, "repeated tools/list calls must reuse the first wire answer"
