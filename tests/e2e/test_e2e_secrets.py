"""A secret the gateway knows never leaves it: not to the model, not to a file, not to a terminal.

Real downstream servers echo their own secrets (in a JSON-RPC error, in a tool error, on stderr, in a crash at
start), configured in every way a secret can be: an env value, `--api-key X`, `--token=X`, a `?key=` URL, a
header and a bearer token. Then everything the real gateway wrote or printed is searched for them: what the
model received, errors.json, logs/ (gateway.log included, which must be private), `status`, `doctor`, `config
check` and the serving gateway's stderr. Ordinary values (`NODE_ENV=production`, a path) must stay readable.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, client_environment, execute, gateway_command, notes_of, run_cli_async, search
from e2e_gateway import text_of as text_of_result
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from remote_fixture import free_port, running_remote
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SECRET_MARK = "hush"
"""Every secret below contains it and nothing else in the test does: no fragment of a secret may show."""
ENV_SECRET = "hush-env-value"
ARG_SECRET = "hush-api-key-arg"
FLAG_SECRET = "hush-token-flag"
URL_SECRET = "hush-url-key"
HEADER_SECRET = "hush-header-value"
BEARER_SECRET = "hush-bearer-value"
BEARER_VARIABLE = "E2E_SECRETS_BEARER"
ORDINARY = "NODE_ENV=production in /home/me/project"
STDERR_AT_START = f"fake-mcp: starting with {ENV_SECRET} {ARG_SECRET} {FLAG_SECRET} {URL_SECRET}\n{ORDINARY}\n"


def echoing_server(**knobs: str) -> dict[str, Any]:
    """The fake server with a secret in its env, in `--api-key X` and in `--token=X`, saying them on stderr."""
    entry = fake_server(stderr_at_start=STDERR_AT_START, **knobs)
    entry["args"] += ["--api-key", ARG_SECRET, f"--token={FLAG_SECRET}"]
    entry["env"] |= {"API_TOKEN": ENV_SECRET, "NODE_ENV": "production", "PROJECT_DIR": "/home/me/project"}
    return entry


def remote_server(port: int) -> dict[str, Any]:
    return {
        "type": "http",
        "url": f"http://127.0.0.1:{port}/mcp?key={URL_SECRET}",
        "headers": {"X-API-Key": HEADER_SECRET},
        "bearerTokenEnv": BEARER_VARIABLE,
    }


async def model_session(home: Path, stderr: Path) -> list[str]:
    """Drive the serving gateway as a model would, through every way a server can echo its secret; return the
    texts the model received (the gateway's stderr goes to `stderr`)."""
    received: list[str] = []

    async def call(tool: str, arguments: Mapping[str, Any]) -> None:
        result = await execute(client, tool, arguments)
        assert result.is_error, text_of_result(result)
        received.append(text_of_result(result))

    command, *args = gateway_command(home)
    parameters = StdioServerParameters(command=command, args=args, env=client_environment())
    with stderr.open("w") as errlog, anyio.fail_after(SESSION_SECONDS):
        async with Client(stdio_client(parameters, errlog=errlog), mode="legacy", cache=None) as client:
            await call("local.rpc_error", {"code": -32603, "message": "bad token: ", "env": "NODE_ENV"})
            # The gateway quotes the first 2000 characters of a server's message: the secret straddles that cut.
            await call("local.rpc_error", {"code": -32603, "message": "x", "repeat": 1990, "env": "API_TOKEN"})
            await call("local.rpc_error", {"code": -32603, "message": "bad token: ", "env": "API_TOKEN"})
            await call("local.fail", {"message": "denied: ", "env": "API_TOKEN"})
            for server in ("crashing", "failing_remote", "absent_remote"):
                await call(f"{server}.echo", {"message": "x"})
                received += notes_of(await search(client, "echo", server=server))
    return received


def assert_no_secret(where: str, text: str) -> None:
    assert SECRET_MARK not in text, f"a secret leaked into {where}:\n{text}"


async def test_no_secret_reaches_the_model_a_file_or_a_terminal_and_ordinary_values_stay_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BEARER_VARIABLE, BEARER_SECRET)
    home = tmp_path / "home"
    with running_remote("streamable-http", "--fail-with-500") as failing_port:
        servers = {
            "local": echoing_server(),
            "crashing": echoing_server(exit_at_start="3"),
            "failing_remote": remote_server(failing_port),
            "absent_remote": remote_server(free_port()),  # nothing listens there
        }
        write_workspace(home, servers, {"debug": True, "failureBackoffMs": 0})
        received = await model_session(home, tmp_path / "serve.stderr")
        printed = {
            " ".join(command): await run_cli_async(*command, home=home)
            for command in (["status"], ["status", "--json"], ["doctor"], ["doctor", "--json"], ["config", "check"])
        }

    for text in received:
        assert_no_secret("what the model received", text)
    assert "bad token: production" in received[0]
    assert "x" * 1990 + "***" in received[1]
    assert "bad token: ***" in received[2]
    assert "denied: ***" in received[3]
    assert_no_secret("errors.json", (home / "errors.json").read_text())
    assert "bad token: ***" in (home / "errors.json").read_text()
    logs = {path.name: path.read_text() for path in (home / "logs").iterdir()}
    for name, text in logs.items():
        assert_no_secret(f"logs/{name}", text)
    assert ORDINARY in logs["local.stderr.log"]
    assert ORDINARY in logs["crashing.stderr.log"]
    assert "?key=***" in logs["gateway.log"]  # the HTTP client logged the URL, masked
    assert stat.S_IMODE((home / "logs" / "gateway.log").stat().st_mode) == 0o600
    assert_no_secret("the serving gateway's stderr", (tmp_path / "serve.stderr").read_text())
    for command, done in printed.items():
        assert_no_secret(f"`mcp-gateway {command}` (stdout)", done.stdout)
        assert_no_secret(f"`mcp-gateway {command}` (stderr)", done.stderr)
    assert "bad token: ***" in printed["status"].stdout
