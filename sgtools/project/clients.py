"""MCP client set-up (`sgtools setup claude|cursor|vscode`): each client's configuration with the absolute paths of
the commands this installation provides, so nothing depends on a venv being on PATH.

Writing merges our entry into the client's existing JSON file (other servers and hooks are kept) atomically; a
file that is not a JSON object is refused, never replaced.
"""

from __future__ import annotations

import json
import shlex
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sgtools.core.errors import BadInput
from sgtools.project.workspace import Workspace

SERVER_NAME = "context-sherpa"
CLIENTS = ("claude", "cursor", "vscode")
HOOK_MATCHER = "Write|Edit|MultiEdit"
HOOK_TIMEOUT = 60


@dataclass
class ClientFile:
    path: str  # relative to the project root
    entry: dict[str, Any]  # merged into the file's existing JSON object


@dataclass
class ClientSetup:
    client: str
    files: list[ClientFile] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)  # shell commands that do the same (Claude Code's CLI)


def installed_command(name: str) -> list[str]:
    """`name` as an absolute path in this installation's scripts directory, else `python -m sgtools` (a source
    checkout run without installing)."""
    for folder in (Path(sysconfig.get_path("scripts")), Path(sys.executable).parent):
        candidate = folder / name
        if candidate.is_file():
            return [str(candidate.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "sgtools", *(["serve"] if name == SERVER_NAME else [])]


def client_setup(client: str, root: Path) -> ClientSetup:
    if client not in CLIENTS:
        raise BadInput(f"Unknown client {client!r}. Use one of: {', '.join(CLIENTS)}.")
    server = installed_command(SERVER_NAME)
    args = [*server[1:], "--root", str(root)]
    stdio = {"command": server[0], "args": args}
    if client == "vscode":
        return ClientSetup(client, [ClientFile(".vscode/mcp.json", {"servers": {SERVER_NAME: {"type": "stdio",
                                                                                                 **stdio}}})])
    if client == "cursor":
        return ClientSetup(client, [ClientFile(".cursor/mcp.json", {"mcpServers": {SERVER_NAME: stdio}})])
    hook = shlex.join([*installed_command("sgtools"), "hook", "claude"])
    hooks = {"hooks": {"PostToolUse": [{"matcher": HOOK_MATCHER, "hooks": [
        {"type": "command", "command": hook, "timeout": HOOK_TIMEOUT}]}]}}
    return ClientSetup(client, [ClientFile(".mcp.json", {"mcpServers": {SERVER_NAME: {"type": "stdio", **stdio}}}),
                                ClientFile(".claude/settings.json", hooks)],
                       [shlex.join(["claude", "mcp", "add", "--scope", "project", SERVER_NAME, "--", *server, *args[
                           len(server) - 1:]])])


def merge(existing: Any, entry: Any) -> Any:
    """`entry` merged into `existing`: objects key by key; our PostToolUse hook replaces an older one of ours and
    keeps everyone else's; any other value is ours."""
    if isinstance(existing, dict) and isinstance(entry, dict):
        out = dict(existing)
        for key, value in entry.items():
            out[key] = merge(existing.get(key), value) if key in existing else value
        return out
    if isinstance(existing, list) and isinstance(entry, list):
        ours = {json.dumps(e, sort_keys=True) for e in entry}
        keep = [e for e in existing if not _is_our_hook(e) and json.dumps(e, sort_keys=True) not in ours]
        return [*keep, *entry]
    return entry


def _is_our_hook(item: Any) -> bool:
    hooks = item.get("hooks") if isinstance(item, dict) else None
    return isinstance(hooks, list) and any(isinstance(h, dict) and str(h.get("command", "")).endswith(
        "hook claude") for h in hooks)


def render(file: ClientFile, existing: Any = None) -> str:
    return json.dumps(merge(existing if existing is not None else {}, file.entry), indent=2) + "\n"


def _read_existing(ws: Workspace, rel: str) -> Any:
    path = ws.resolve(rel)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadInput(f"{rel} is not valid JSON ({exc}); nothing was written. Fix or move it, then retry.") from None
    if not isinstance(data, dict):
        raise BadInput(f"{rel} does not hold a JSON object; nothing was written. Fix or move it, then retry.")
    return data


def write_setup(ws: Workspace, setup: ClientSetup) -> list[str]:
    """Merge every file of `setup` into the project, all checked before any is written; the paths written."""
    with ws.lock():
        texts = [(f.path, render(f, _read_existing(ws, f.path))) for f in setup.files]
        for rel, text in texts:
            ws.write_text(rel, text)
    return [rel for rel, _ in texts]
