"""`sgtools setup claude|cursor|vscode`: print (or, with --write, merge into the project) the client's MCP
configuration, and for Claude Code the PostToolUse hook, with the absolute paths of this installation."""

from __future__ import annotations

import argparse
from typing import Any

from sgtools.cli.common import add_root, workspace
from sgtools.cli.exit_codes import EXIT_OK
from sgtools.project.clients import CLIENTS, client_setup, render, write_setup


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser(
        "setup", help="configure an MCP client (claude, cursor, vscode) for this project",
        description="Print the client's configuration for this project, with the absolute paths of this "
        "installation's commands: claude = .mcp.json (the MCP server) and .claude/settings.json (the "
        "PostToolUse hook); cursor = .cursor/mcp.json; vscode = .vscode/mcp.json. --write merges it into those "
        "files (other entries are kept).")
    p.add_argument("client", choices=CLIENTS)
    add_root(p)
    p.add_argument("--write", action="store_true", help="merge the configuration into the project's files")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ws = workspace(args)
    setup = client_setup(args.client, ws.root)
    if args.write:
        for rel in write_setup(ws, setup):
            print(f"wrote {ws.root / rel}")
        return EXIT_OK
    for command in setup.commands:
        print(f"# or, with Claude Code's own CLI (same server entry):\n{command}\n")
    for file in setup.files:
        print(f"# {ws.root / file.path}")
        print(render(file))
    print("# Run again with --write to merge this into the files above.")
    return EXIT_OK
