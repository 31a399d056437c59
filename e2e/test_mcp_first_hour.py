"""What a new user's MCP client shows: prompt arguments that say what they are for, and resource errors that are
the caller's mistake reported as such (invalid params, -32602), not as an internal error of the server."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from e2e.conftest import NO_EVAL_RULE, ok, stdio_client

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.mark.slow
async def test_prompt_arguments_have_descriptions(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        prompts = (await client.list_prompts()).prompts
    args = [(p.name, a.name, a.description) for p in prompts for a in p.arguments or []]
    assert len(args) == 6
    assert all(desc and len(desc) > 15 for _p, _a, desc in args), args


@pytest.mark.slow
async def test_resource_errors_are_invalid_params(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        with pytest.raises(MCPError) as missing:
            await client.read_resource("sgtools://project/sgconfig.yml")
        await ok(client, "initialize_ast_grep")
        (root / "rules" / "no-eval.yml").write_text(NO_EVAL_RULE)
        with pytest.raises(MCPError) as unknown:
            await client.read_resource("sgtools://rules/no-such-rule")
    assert missing.value.code == INVALID_PARAMS and missing.value.message.startswith("[config-missing]")
    assert unknown.value.code == INVALID_PARAMS and unknown.value.message.startswith("[not-found]")
