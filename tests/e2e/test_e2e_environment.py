"""What a stdio server is started with (environment, working directory) and where its stderr goes."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, gateway_session, text_of, wait_for
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def test_a_server_sees_the_gateway_environment_only_when_inherit_env_is_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_SIDE_VARIABLE", "from-the-gateway")
    inheriting = fake_server()
    isolated = {
        **fake_server(),
        "inheritEnv": False,
        "env": {"CONFIGURED": "${GATEWAY_SIDE_VARIABLE:-unset}-configured"},
    }
    home = tmp_path / "home"
    write_workspace(home, {"open": inheriting, "closed": isolated})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            seen = await client.call_tool(
                "execute_tool", {"tool": "open.env", "arguments": {"name": "GATEWAY_SIDE_VARIABLE"}}
            )
            hidden = await client.call_tool(
                "execute_tool", {"tool": "closed.env", "arguments": {"name": "GATEWAY_SIDE_VARIABLE"}}
            )
            configured = await client.call_tool(
                "execute_tool", {"tool": "closed.env", "arguments": {"name": "CONFIGURED"}}
            )
            path = await client.call_tool("execute_tool", {"tool": "closed.env", "arguments": {"name": "PATH"}})
    assert text_of(seen) == "from-the-gateway"
    assert hidden.is_error
    assert text_of(configured) == "from-the-gateway-configured"
    assert not path.is_error  # the safe minimum (PATH, HOME, …) is always passed


async def test_a_server_starts_in_its_configured_working_directory(tmp_path: Path) -> None:
    workdir = tmp_path / "work dir"
    workdir.mkdir()
    home = tmp_path / "home"
    write_workspace(home, {"fake": {**fake_server(), "cwd": str(workdir)}})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            result = await client.call_tool("execute_tool", {"tool": "fake.cwd"})
    assert text_of(result) == str(workdir)


async def test_a_server_stderr_goes_to_its_log_file_with_configured_secrets_masked(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # The server says a secret of its configured env on stderr: the log must show it masked.
    noisy = fake_server(stderr_at_start="token configured-secret-value\n", name="noisy")
    noisy["env"]["NOISY_API_TOKEN"] = "configured-secret-value"
    write_workspace(home, {"noisy": noisy})
    log_path = home / "logs" / "noisy.stderr.log"
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            await client.call_tool(
                "execute_tool", {"tool": "noisy.write_stderr", "arguments": {"text": "a line for the log\n"}}
            )
            # Written as the server says it, while it runs (the shared daemon keeps it for the next session).
            await wait_for(lambda: "a line for the log" in log_path.read_text(), SESSION_SECONDS)
    log = log_path.read_text()
    assert "configured-secret-value" not in log
    assert "***" in log
    assert (home / "logs" / "noisy.stderr.log").stat().st_mode & 0o777 == 0o600


async def test_the_negotiated_protocol_is_remembered_in_the_catalog(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_workspace(home, {"fake": fake_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            await client.call_tool("list_tools", {"server": "fake"})
    entry = json.loads((home / "cache.json").read_text())["servers"]["fake"]
    assert entry["protocolVersion"] == "2025-11-25"
