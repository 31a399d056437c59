"""The MCP server over streamable HTTP at /mcp: the same story as stdio, the bearer token, Host/Origin checks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx2
import pytest

from e2e.conftest import (
    free_port,
    http_client,
    http_server,
    ok,
    serve_command,
    whole_story,
)

pytestmark = pytest.mark.anyio

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.slow
async def test_whole_story_over_http(root: Path, server_env: dict[str, str], tmp_path: Path) -> None:
    with http_server(root, server_env, log=tmp_path / "server.log") as server:
        async with http_client(server.url) as client:
            await whole_story(client, root)


@pytest.mark.slow
async def test_bearer_token_is_required_when_configured(root: Path, server_env: dict[str, str],
                                                        tmp_path: Path) -> None:
    env = {**server_env, "SGTOOLS_HTTP_TOKEN": "from-env-token"}
    with http_server(root, env, log=tmp_path / "server.log") as server:
        async with httpx2.AsyncClient() as raw:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic from-env-token"},
                            {"Authorization": "Bearer"}):
                response = await raw.post(server.url, json=INIT, headers={**MCP_HEADERS, **headers})
                assert response.status_code == 401, headers
                assert response.headers["www-authenticate"].startswith("Bearer")
            response = await raw.post(server.url, json=INIT,
                                      headers={**MCP_HEADERS, "Authorization": "Bearer from-env-token"})
            assert response.status_code == 200
        async with http_client(server.url, token="from-env-token") as client:
            info = await ok(client, "server_info")
            assert info["root"] == str(root.resolve())
    assert "without a valid bearer token" in server.stderr()


@pytest.mark.slow
async def test_token_flag_overrides_env(root: Path, server_env: dict[str, str], tmp_path: Path) -> None:
    env = {**server_env, "SGTOOLS_HTTP_TOKEN": "env-token"}
    with http_server(root, env, "--token", "flag-token", log=tmp_path / "server.log") as server:
        async with httpx2.AsyncClient() as raw:
            refused = await raw.post(server.url, json=INIT,
                                     headers={**MCP_HEADERS, "Authorization": "Bearer env-token"})
            accepted = await raw.post(server.url, json=INIT,
                                      headers={**MCP_HEADERS, "Authorization": "Bearer flag-token"})
    assert (refused.status_code, accepted.status_code) == (401, 200)


@pytest.mark.slow
async def test_origin_and_host_checks(root: Path, server_env: dict[str, str], tmp_path: Path) -> None:
    with http_server(root, server_env, "--allow-origin", "https://app.example.com",
                     log=tmp_path / "server.log") as server:
        async with httpx2.AsyncClient() as raw:
            async def status(**headers: str) -> int:
                response = await raw.post(server.url, json=INIT, headers={**MCP_HEADERS, **headers})
                return response.status_code

            # A DNS-rebinding page: foreign Origin, or its own name as Host.
            assert await status(Origin="http://evil.example") == 403
            assert await status(Origin="http://localhost.evil.example:8080") == 403
            assert await status(Origin="null") == 403
            assert await status(Host=f"evil.example:{server.port}") == 421
            # Local tools and browsers on localhost, and the configured origin.
            assert await status() == 200
            assert await status(Origin=f"http://localhost:{server.port}") == 200
            assert await status(Origin="http://127.0.0.1:3000") == 200
            assert await status(Origin="https://app.example.com") == 200
            assert await status(Host=f"localhost:{server.port}") == 200
    assert "refused a request with Origin" in server.stderr()


@pytest.mark.slow
async def test_sdk_client_with_localhost_origin_works(root: Path, server_env: dict[str, str],
                                                      tmp_path: Path) -> None:
    with http_server(root, server_env, log=tmp_path / "server.log") as server:
        async with http_client(server.url, headers={"Origin": "http://localhost:5173"}) as client:
            assert len((await client.list_tools()).tools) == 14


@pytest.mark.slow
async def test_read_only_over_http(root: Path, server_env: dict[str, str], tmp_path: Path) -> None:
    with http_server(root, server_env, "--read-only", log=tmp_path / "server.log") as server:
        async with http_client(server.url) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "initialize_ast_grep" not in names and "scan_code" in names
            result = await client.call_tool("initialize_ast_grep", {})
            assert result.is_error and getattr(result.content[0], "text", "").startswith("[read-only]")
    assert not (root / "sgconfig.yml").exists()


@pytest.mark.slow
def test_refuses_other_interfaces_without_a_token(root: Path, server_env: dict[str, str]) -> None:
    proc = subprocess.run(serve_command(root, "--transport", "http", "--host", "0.0.0.0", "--port", str(free_port())),
                          capture_output=True, text=True, env=server_env, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("[bad-input]") and "--token" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.slow
def test_an_empty_token_is_refused(root: Path, server_env: dict[str, str]) -> None:
    """`--token "$TOKEN"` with $TOKEN unset, or an empty SGTOOLS_HTTP_TOKEN: one [bad-input] line naming where the
    empty token came from, exit 2, and no server without authentication."""
    port = str(free_port())
    for extra, env, named in ((("--token", ""), server_env, "--token"), (("--token", "  "), server_env, "--token"),
                              ((), {**server_env, "SGTOOLS_HTTP_TOKEN": ""}, "SGTOOLS_HTTP_TOKEN")):
        proc = subprocess.run(serve_command(root, "--transport", "http", "--port", port, *extra),
                              capture_output=True, text=True, env=env, timeout=60)
        last = proc.stderr.strip().splitlines()[-1]
        assert proc.returncode == 2 and last.startswith(f"[bad-input] {named} is empty"), proc.stderr
        assert "context-sherpa MCP server on" not in proc.stderr and proc.stdout == ""


def test_configured_and_received_origins_are_compared_alike() -> None:
    from sgtools.server.http import OriginGuard

    configured = [" https://App.Example.com/ ", " "]
    guard = OriginGuard(app=None, host="127.0.0.1", allowed_origins=configured)  # type: ignore[arg-type]
    assert guard.origin_ok("https://app.example.com")
    assert guard.origin_ok("HTTPS://APP.EXAMPLE.COM/")
    assert not guard.origin_ok("https://app.example.com.evil")
    assert guard.origins == {"https://app.example.com"}


@pytest.mark.slow
def test_a_busy_port_is_one_clear_error(root: Path, server_env: dict[str, str]) -> None:
    """Another program holds the port: one [bad-input] line naming it, exit 2, no banner and no traceback."""
    import socket as socket_mod

    with socket_mod.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        proc = subprocess.run(serve_command(root, "--transport", "http", "--port", str(port)), env=server_env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"[bad-input] Port {port} on 127.0.0.1 is already in use. Pass another --port, or stop the program that "
        "uses it."]
