"""`sgtools setup claude|cursor|vscode`: the printed and written configurations name this installation's commands by
absolute path, and they work: the MCP server entry starts a real server, the Claude hook command checks a file."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client

from sgtools.cli import main

pytestmark = [pytest.mark.e2e]


def _written(root: Path, client: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["setup", client, "--root", str(root), "--write"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(("client", "file", "key"), [
    ("vscode", ".vscode/mcp.json", "servers"), ("cursor", ".cursor/mcp.json", "mcpServers"),
    ("claude", ".mcp.json", "mcpServers")])
def test_printed_configuration_has_absolute_commands(root: Path, client: str, file: str, key: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["setup", client, "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"# {root.resolve() / file}" in out
    assert not (root / file).exists()  # printing writes nothing
    _written(root, client, capsys)
    entry = json.loads((root / file).read_text())[key]["context-sherpa"]
    command = Path(entry["command"])
    assert command.is_absolute() and os.access(command, os.X_OK), command
    assert entry["args"][-2:] == ["--root", str(root.resolve())]


def test_write_merges_and_is_idempotent(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir()
    other = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}
    settings.write_text(json.dumps({"model": "x", "hooks": {"PostToolUse": [other]}}))
    _written(root, "claude", capsys)
    first = settings.read_bytes()
    data = json.loads(first)
    assert data["model"] == "x" and data["hooks"]["PostToolUse"][0] == other
    assert len(data["hooks"]["PostToolUse"]) == 2
    _written(root, "claude", capsys)
    assert settings.read_bytes() == first  # a second run adds nothing


def test_a_broken_file_is_refused_and_kept(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = root / ".vscode" / "mcp.json"
    target.parent.mkdir()
    target.write_text("{not json")
    assert main(["setup", "vscode", "--root", str(root), "--write"]) == 2
    assert capsys.readouterr().err.startswith("[bad-input] .vscode/mcp.json is not valid JSON")
    assert target.read_text() == "{not json"


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_written_server_entry_starts_the_server(root: Path, server_env: dict[str, str],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    _written(root, "vscode", capsys)
    entry = json.loads((root / ".vscode" / "mcp.json").read_text())["servers"]["context-sherpa"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=server_env, cwd="/")
    async with Client(sdk_stdio_client(params)) as client:
        info = await client.call_tool("server_info", {})
    assert not info.is_error and info.structured_content is not None
    assert info.structured_content["root"] == str(root.resolve())


@pytest.mark.slow
def test_the_written_claude_hook_checks_a_file(root: Path, server_env: dict[str, str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _written(root, "claude", capsys)
    hooks = json.loads((root / ".claude" / "settings.json").read_text())["hooks"]["PostToolUse"]
    command = hooks[-1]["hooks"][0]["command"]
    (root / "app.py").write_text("value = eval(data)\n")
    payload = json.dumps({"tool_name": "Write", "tool_input": {"file_path": str(root / "app.py")},
                          "cwd": str(root)})
    env = {**server_env, "PATH": "/usr/bin:/bin"}  # the venv is not on PATH: the absolute path must do
    proc = subprocess.run(shlex.split(command), input=payload, capture_output=True, text=True, env=env, cwd="/",
                          timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "no-eval-python" in proc.stderr
