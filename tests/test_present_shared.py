"""One text rendering per result: the CLI prints, and the MCP tool returns as its text, the output of the same
function in sgtools.present (the CLI with say=cli.voice.speak, so messages name its commands; MCP with long lists
capped). Real
services on a real project; the MCP side goes through the server's tool table and run_tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from sgtools.cli import main
from sgtools.cli.voice import speak
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.present import community, doctor, rules
from sgtools.present.results import TEXT_ITEMS
from sgtools.project.workspace import Workspace
from sgtools.rules.listing import explain_rule, list_rules
from sgtools.server import runner
from sgtools.server.app import TOOLS, tool_specs
from sgtools.server.schemas import input_schemas
from sgtools.server.spec import App
from sgtools.workflows import rule_testing as testing

RULE = ("id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nnote: use ast.literal_eval\n"
        "rule:\n  pattern: eval($X)\n")


@pytest.fixture
def project(initialized: Workspace, tmp_path: Path) -> Workspace:
    (initialized.root / "rules" / "no-eval.yml").write_text(RULE, encoding="utf-8")
    return initialized


def _mcp_text(ws: Workspace, tool: str, args: dict[str, Any]) -> str:
    app = App(ws, Engine(), Settings())
    schema = input_schemas(app.settings, TOOLS)[tool]
    result = anyio.run(runner.run_tool, app, tool_specs()[tool], schema, args)
    assert not result.is_error, result.content
    return str(result.content[0].text)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    main(list(argv))
    return capsys.readouterr().out.rstrip("\n")


def test_list_rules(project: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    data = list_rules(project, Engine())
    shared = rules.render_rules(data)
    assert shared.splitlines()[1].startswith("no-eval  python  error  rules/no-eval.yml")
    assert _cli(capsys, "rule", "list", "--root", str(project.root)) == rules.render_rules(data, errors=False)
    assert _mcp_text(project, "list_rules", {}) == shared


def test_explain_rule(project: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    info = explain_rule(project, Engine(), "no-eval")
    shared = rules.render_explanation(info)
    assert "note: use ast.literal_eval" in shared and "pattern: eval($X)" in shared
    assert _cli(capsys, "explain", "no-eval", "--root", str(project.root)) == rules.render_explanation(info, say=speak)
    assert _mcp_text(project, "list_rules", {"rule_id": "no-eval"}) == shared


@pytest.mark.slow
def test_test_rule(project: Workspace, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rule_file = tmp_path / "draft.yml"
    rule_file.write_text(RULE, encoding="utf-8")
    cli = _cli(capsys, "rule", "test", "--root", str(project.root), "--file", str(rule_file), "--code", "eval(1)",
               "--invalid", "eval(x)", "--valid", "eval(y)")
    args: dict[str, Any] = {"rule_yaml": RULE, "code": "eval(1)", "invalid_examples": ["eval(x)"],
                            "valid_examples": ["eval(y)"]}
    mcp = _mcp_text(project, "test_rule", args)
    assert mcp.startswith("Rule has problems.\n1 match in the code.") and "✗ valid_examples[0] is matched" in mcp
    result = testing.test_rule(project, Engine(), **args)
    assert mcp == rules.render_test(result, limit=TEXT_ITEMS)
    assert cli == rules.render_test(result, say=speak)


def test_server_info(project: Workspace) -> None:
    from sgtools.workflows.doctor import server_info

    mcp = _mcp_text(project, "server_info", {})
    shared = doctor.render_info(server_info(project, Engine()))
    assert mcp.splitlines()[2:] == shared.splitlines()[2:]  # community sources aside, the same report
    assert mcp.startswith("context-sherpa ") and "rules          1 loaded, 0 with errors" in mcp


def test_search_and_details(capsys: pytest.CaptureFixture[str], project: Workspace) -> None:
    from sgtools.community.service import get_community_rule_details, search_community_rules

    found = search_community_rules("eval", language="python")
    shared = community.render_search(found, limit=TEXT_ITEMS)
    assert _mcp_text(project, "search_community_rules", {"query": "eval", "language": "python"}) == shared
    assert _cli(capsys, "community", "search", "eval", "--language", "python") == community.render_search(found)
    first = found["matches"][0]["id"]
    details = community.render_details(get_community_rule_details(first))
    assert _cli(capsys, "community", "show", first) == details
    assert _mcp_text(project, "get_community_rule_details", {"rule_id": first}) == details


def test_messages_speak_the_callers_language() -> None:
    """Messages name MCP tools for MCP and CLI commands for the CLI; a rule's YAML is never rewritten."""
    saved = {"message": "Created rule x. Run list_rules to see it.", "path": "rules/x.yml", "testPath": None,
             "testResult": None}
    assert rules.render_saved(saved).startswith("Created rule x. Run list_rules to see it.")
    assert rules.render_saved(saved, say=speak).startswith("Created rule x. Run `sgtools rule list` to see it.")
    info = {"id": "x", "language": "python", "severity": "hint", "path": "rules/x.yml", "source": "local",
            "message": "m", "note": None, "url": None, "problems": ["call test_rule"],
            "yaml": "id: x\nmessage: see list_rules\n", "examples": {"valid": [], "invalid": []}}
    text = rules.render_explanation(info, say=speak)
    assert "problem: call `sgtools rule test`" in text and "message: see list_rules" in text


def test_lists_are_capped_for_mcp_only() -> None:
    many = {"rules": [{"id": f"r{i}", "language": "python", "severity": "hint", "message": None,
                       "path": f"rules/r{i}.yml", "hasFix": False, "hasTests": False} for i in range(7)],
            "ruleErrors": []}
    capped = rules.render_rules(many, limit=5)
    assert capped.splitlines()[-1] == "... and 2 more (see the structured result)"
    assert len(rules.render_rules(many).splitlines()) == 8


def test_cli_and_present_never_import_mcp() -> None:
    """The shared renderings live in sgtools.present so that the CLI prints them without the MCP SDK."""
    import subprocess
    import sys

    code = ("import sys, sgtools.cli, sgtools.cli.rule, sgtools.cli.rule_suggest, sgtools.cli.community, "
            "sgtools.cli.doctor, sgtools.cli.init, sgtools.present.rules, sgtools.present.community, "
            "sgtools.present.doctor, sgtools.present.results; "
            "print(' '.join(m for m in ('mcp', 'mcp_types', 'pydantic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
