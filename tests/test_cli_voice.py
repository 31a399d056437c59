"""Messages speak the caller's language: the CLI names its commands, the MCP server its tools; and the fix hint
of `sgtools scan` text output, followed word for word, works."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.cli.voice import COMMANDS, speak
from sgtools.core.errors import ConfigMissing
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.server.app import TOOLS

TOOL_NAMES = sorted(spec.name for spec in TOOLS)


def test_every_mcp_tool_has_a_cli_wording() -> None:
    assert set(TOOL_NAMES) <= set(COMMANDS)
    for name in TOOL_NAMES:
        said = speak(f"Run {name} first. The {name} tool helps; so does {name} (format \"pattern\").")
        assert name not in said and COMMANDS[name] in said, said


def test_speak_leaves_other_words_alone() -> None:
    text = "list_rules_x and my_scan_path_helper and scan_paths stay"
    assert speak(text) == text


def test_mcp_wording_names_the_tool_not_the_cli(ws: Workspace) -> None:
    with pytest.raises(ConfigMissing) as info:
        project.load_config(ws)
    assert "initialize_ast_grep" in info.value.message and "sgtools" not in info.value.message


@pytest.mark.parametrize(("argv", "command", "tool"), [
    (["rule", "add", "no-eval", "--file", "-"], "`sgtools init`", "initialize_ast_grep"),
    (["explain", "no-such-rule"], "`sgtools rule list`", "list_rules"),
    (["community", "show", "no-such-community-rule"], "`sgtools community search`", "search_community_rules"),
])
def test_cli_errors_name_cli_commands(argv: list[str], command: str, tool: str, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".git").mkdir()
    if argv[0] == "explain":
        project.initialize(Workspace(tmp_path))
    monkeypatch.chdir(tmp_path)
    rule = tmp_path / "rule.yml"
    rule.write_text("id: no-eval\nlanguage: python\nrule: {pattern: eval($X)}\n")
    with rule.open() as stdin:
        monkeypatch.setattr("sys.stdin", stdin)
        assert main(argv) == 2  # the project is the current directory
    err = capsys.readouterr().err
    assert err.startswith("[") and command in err and tool not in err, err


@pytest.mark.slow
def test_the_bundled_fix_hint_works_when_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """No sgconfig.yml: the hint must start with `sgtools init`, or the import it names is refused."""
    (tmp_path / ".git").mkdir()
    code = tmp_path / "app.py"
    code.write_text("try:\n    run()\nexcept:\n    pass\n")
    monkeypatch.chdir(tmp_path)
    assert main(["scan", "--fail-on", "warning", "--verify-fixits"]) == 1
    out = capsys.readouterr().out
    hint = re.search(r"\[(sgtools init, sgtools community import (\S+), then sgtools scan (--fix[^\]]*))\]", out)
    assert hint and hint.group(2) == "bare-except-python", out
    flags = re.sub(r"\s*\(.*\)$", "", hint.group(3))  # "--fix --unsafe-fixes (unsafe: ...)": the words after are prose
    steps = ["sgtools init", f"sgtools community import {hint.group(2)}", f"sgtools scan {flags}"]
    for step in steps:
        assert main(shlex.split(step)[1:]) in (0, 1), (step, capsys.readouterr())
    assert "except Exception:" in code.read_text()
