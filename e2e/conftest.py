"""Real MCP client sessions against a real server process: stdio by spawning `python -m sgtools serve`, HTTP by
starting the server on a free loopback port. Nothing is mocked; each test gets its own workspace and caches."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

REPO = Path(__file__).resolve().parent.parent
ERROR_CODE = re.compile(
    r"^\[(config-missing|rule-invalid|not-found|conflict|outside-workspace|too-large|timeout|engine-failed|network|"
    r"read-only|bad-input|io)\] \S"
)
SERVER_START_TIMEOUT = 30.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under e2e/ carries the `e2e` marker (`pytest -m e2e` runs just those, `-m "not e2e"` skips them)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a server process: no developer config, caches or community sources leak in."""
    home = tmp_path_factory.mktemp("home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGTOOLS_")}
    env.update({"XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config"),
                "HOME": str(home), "SGTOOLS_LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1"})
    return env


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def serve_command(root: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "sgtools", "serve", "--root", str(root), *extra]


@asynccontextmanager
async def stdio_client(root: Path, env: dict[str, str], *extra: str, errlog: Any = None) -> AsyncIterator[Client]:
    """A client session with a freshly spawned `python -m sgtools serve --root ROOT` (stderr to `errlog`)."""
    params = StdioServerParameters(command=sys.executable, args=serve_command(root, *extra)[1:], env=env)
    transport = sdk_stdio_client(params, errlog=errlog if errlog is not None else sys.stderr)
    async with Client(transport) as client:
        yield client


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class HttpServer:
    url: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def http_server(root: Path, env: dict[str, str], *extra: str, log: Path) -> Iterator[HttpServer]:
    port = free_port()
    with log.open("wb") as errlog:
        proc = subprocess.Popen(serve_command(root, "--transport", "http", "--port", str(port), *extra), env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"server exited with {proc.returncode}: {log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"no listener within {SERVER_START_TIMEOUT}s: {log.read_text()}") from None
                time.sleep(0.05)
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", port, proc, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def http_client(url: str, token: str | None = None, headers: dict[str, str] | None = None,
                      ) -> AsyncIterator[Client]:
    all_headers = dict(headers or {})
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    async with httpx2.AsyncClient(headers=all_headers, timeout=httpx2.Timeout(60, read=300)) as hc, \
            Client(streamable_http_client(url, http_client=hc)) as client:
        yield client


def text(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def ok(client: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured content."""
    result = await client.call_tool(tool, args or {})
    assert not result.is_error, f"{tool} failed: {text(result)}"
    assert isinstance(result.structured_content, dict), f"{tool}: no structured content"
    assert text(result).strip(), f"{tool}: no text rendering"
    return result.structured_content


async def fails(client: Client, tool: str, args: dict[str, Any], code: str | Sequence[str] | None = None) -> str:
    """Call a tool that must fail with an `isError` result whose text starts with a SPEC code; return the text."""
    result = await client.call_tool(tool, args)
    body = text(result)
    assert result.is_error, f"{tool} should have failed: {body[:500]}"
    assert ERROR_CODE.match(body), f"{tool}: error text does not start with a [code]: {body[:500]}"
    if code is not None:
        codes = (code,) if isinstance(code, str) else tuple(code)
        assert body.startswith(tuple(f"[{c}]" for c in codes)), f"{tool}: expected {codes}, got {body[:500]}"
    return body


NO_EVAL_RULE = """\
id: no-eval
language: javascript
severity: error
message: eval($CODE) runs arbitrary code
note: Parse the data with JSON.parse instead.
rule:
  pattern: eval($CODE)
fix: JSON.parse($CODE)
"""
EVAL_CODE = "const config = eval(input);\n"


async def whole_story(client: Client, root: Path) -> None:
    """The SPEC's round trip: refused before init, init, add a rule, scan with a verified fix, remove, scan clean,
    then find, read and import a community rule and see it fire."""
    body = await fails(client, "add_or_update_rule", {"rule_id": "no-eval", "rule_yaml": NO_EVAL_RULE},
                       "config-missing")
    assert "initialize_ast_grep" in body
    assert not (root / "rules").exists()

    init = await ok(client, "initialize_ast_grep")
    assert init["success"] is True and "sgconfig.yml" in init["created"]
    assert (root / "sgconfig.yml").is_file()

    added = await ok(client, "add_or_update_rule", {
        "rule_id": "no-eval", "rule_yaml": NO_EVAL_RULE,
        "invalid_examples": ["eval(data)"], "valid_examples": ["JSON.parse(data)", "obj.evaluate(data)"]})
    assert added["success"] is True and added["path"] == "rules/no-eval.yml"
    assert (root / "rules" / "no-eval.yml").is_file()

    scan_args = {"code": EVAL_CODE, "language": "javascript"}
    found = await ok(client, "scan_code", scan_args)  # an error-severity finding is a result, not an error
    assert found["success"] is False
    assert [d["ruleId"] for d in found["issues"]] == ["no-eval"]
    issue = found["issues"][0]
    assert issue["severity"] == "error" and issue["line"] == 1 and issue["column"] == 16
    assert found["counts"]["error"] == 1
    fixes = issue["fixits"]
    assert fixes and fixes[0]["verified"] is True
    assert fixes[0]["edits"][0]["newText"] == "JSON.parse(input)"

    removed = await ok(client, "remove_rule", {"rule_id": "no-eval"})
    assert "rules/no-eval.yml" in removed["removed"]
    clean = await ok(client, "scan_code", scan_args)
    # No rule is left to run: that is not a success (issue 28), and the answer says why.
    assert clean["success"] is False and clean["issues"] == [] and clean["rulesRun"] == 0

    search = await ok(client, "search_community_rules", {"query": "unchecked error", "language": "go"})
    assert search["matches"], search["results"]
    rule_id = search["matches"][0]["id"]
    assert rule_id in search["results"]
    details = await ok(client, "get_community_rule_details", {"rule_id": rule_id})
    rule = details["rule"]
    assert rule["id"] == rule_id and rule["language"].lower() == "go" and rule["tests"]["invalid"]
    imported = await ok(client, "import_community_rule", {"rule_id": rule_id})
    assert imported["success"] is True and (root / imported["path"]).is_file()
    flagged = await ok(client, "scan_code", {"code": rule["tests"]["invalid"][0], "language": "go"})
    assert rule_id in {d["ruleId"] for d in flagged["issues"]}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


def clone_with_changes(dest: Path) -> Path:
    """A plain `git clone` of this repository at `dest`, as a user would have, with the working tree's changes (every
    file git does not ignore) committed on top: an uncommitted change is what the clone holds. Only what differs
    from HEAD is copied (tracked files changed or deleted, staged or not, and untracked ones): the clone already
    holds the rest, and copying all ~900 files then `git add -A` cost ~6 s per clone on a loaded VM."""
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(dest)], check=True, timeout=300)
    changed = git(REPO, "diff", "--name-only", "--no-renames", "-z", "HEAD").split("\0")
    untracked = git(REPO, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, [*changed, *untracked]):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
        elif not src.exists():
            (dest / rel).unlink(missing_ok=True)
    git(dest, "add", "-A")
    if git(dest, "status", "--porcelain").strip():
        git(dest, "commit", "-q", "-m", "the working tree's changes, for the tests")
    return dest
