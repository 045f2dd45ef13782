"""OAuth sign-in for remote servers, end to end: the real `mcp-gateway login`, `logout`, `status`, `doctor` and the
serving gateway, against a real authorization server and an MCP server that requires its tokens
(`fixtures/oauth_mcp_server.py`: access tokens live 2 s, refresh tokens rotate, revocation is honoured).

The "browser" is an HTTP client following the URL `login` prints, as a browser would (`oauth_fixture.signing_in`).
"""

from __future__ import annotations

import json
import shlex
import stat
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_gateway import SESSION_SECONDS, gateway_session, run_cli_async, text_of
from oauth_fixture import OAuthFixture, running_oauth_fixture, signing_in
from remote_fixture import free_port, running_remote
from workspaces import write_workspace

from mcp_gateway.sign_in import TOKEN_ENDPOINT_SECONDS

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

EXPIRY_WAIT_SECONDS = 10.0
"""Bound on waiting out a 2 s access token (the wait is on the clock, past the expiry the token file records)."""
CLOCK_STEP_SECONDS = 0.1
"""Past the expiry by this much: the gateway must then renew the token, whatever its own margin."""


@pytest.fixture
def oauth_server() -> Any:
    with running_oauth_fixture(token_seconds=2.0) as fixture:
        yield fixture


def workspace_for(home: Path, fixture: OAuthFixture, transport: str = "http") -> None:
    # debug: the gateway's own log is written too, so it is among the files searched for tokens
    url = fixture.sse_url if transport == "sse" else fixture.url
    write_workspace(home, {"web": {"type": transport, "url": url, "oauth": {}}}, {"debug": True})


def stored(home: Path) -> dict[str, Any]:
    [path] = (home / "oauth").glob("*.json")
    return dict(json.loads(path.read_text()))


def sign_in_message(server: str, program: str = "mcp-gateway") -> str:
    return f"Server '{server}' needs you to sign in: run `{program} login {server}` in a terminal, then try again."


async def call_echo(client: Any, message: str) -> types.CallToolResult:
    return await client.call_tool("execute_tool", {"tool": "web.echo", "arguments": {"message": message}})


async def wait_past(epoch: float) -> None:
    """Until the wall clock is past `epoch` (a token's recorded expiry): waiting on the clock itself."""
    left = epoch - time.time()
    assert left < EXPIRY_WAIT_SECONDS
    await anyio.sleep(max(0.0, left) + CLOCK_STEP_SECONDS)


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_login_then_calls_refresh_the_expired_token_and_logout_asks_for_a_sign_in_again(
    tmp_path: Path, oauth_server: OAuthFixture, transport: str
) -> None:
    # sse: the event stream opened with the first token stays open; each POST carries the current one, and the
    # POST refused after logout must fail its call with the sign-in sentence, not an HTTP error
    home = tmp_path / "home"
    workspace_for(home, oauth_server, transport)

    signed = await signing_in(home, "web")
    assert signed.returncode == 0, signed.stderr
    assert signed.stdout.startswith("Signed in to 'web': the token expires at ")
    assert "renewed before then by the gateway" in signed.stdout
    assert "signed in" in signed.browser_saw.lower()
    [token_file] = (home / "oauth").glob("*.json")
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((home / "oauth").stat().st_mode) == 0o700
    first = stored(home)
    tokens = {first["tokens"]["access_token"], first["tokens"]["refresh_token"]}
    assert oauth_server.stats()["registrations"] == 1  # dynamic client registration

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            one = await call_echo(client, "one")
            assert (one.is_error, text_of(one)) == (False, "one")
            await wait_past(stored(home)["expiresAt"])
            refreshes = oauth_server.stats()["refreshes"]
            two = await call_echo(client, "two")
            assert (two.is_error, text_of(two)) == (False, "two")
            renewed = stored(home)
            assert oauth_server.stats()["refreshes"] > refreshes
            assert renewed["tokens"]["access_token"] not in tokens
            tokens |= {renewed["tokens"]["access_token"], renewed["tokens"]["refresh_token"]}

            status = await run_cli_async("status", home=home)
            assert status.returncode == 0, status.stderr
            assert "sign-in: signed in, token " in status.stdout
            status_json = await run_cli_async("status", "--json", home=home)
            [web] = json.loads(status_json.stdout)["servers"]
            assert web["signIn"]["state"] == "signed in"

            out = await run_cli_async("logout", "web", home=home)
            assert out.returncode == 0, out.stderr
            assert "its tokens were revoked at the server" in out.stdout
            assert not list((home / "oauth").glob("*.json"))

            three = await call_echo(client, "three")
            assert three.is_error
            assert text_of(three) == sign_in_message("web")

    status = await run_cli_async("status", home=home)
    doctor = await run_cli_async("doctor", home=home)
    assert f"sign-in: needs sign-in (run mcp-gateway --home {shlex.quote(str(home))} login web)" in status.stdout
    assert doctor.returncode == 1
    assert "needs you to sign in" in doctor.stdout
    shown = [signed.stdout, signed.stderr, status.stdout, status.stderr, doctor.stdout, doctor.stderr, out.stdout]
    leaks = {token for token in tokens for text in shown if token in text}
    files = [path for path in home.rglob("*") if path.is_file() and "oauth" not in path.relative_to(home).parts]
    assert any(path.name == "errors.json" for path in files)
    assert any(path.name == "gateway.log" for path in files)
    leaks |= {f"{token} in {path}" for path in files for token in tokens if token in path.read_text(errors="replace")}
    assert leaks == set()


async def test_a_server_never_signed_in_says_to_run_login_at_the_shell_and_to_the_model(
    tmp_path: Path, oauth_server: OAuthFixture
) -> None:
    home = tmp_path / "home"
    workspace_for(home, oauth_server)
    called = await run_cli_async("call", "web.echo", "--args", '{"message": "x"}', home=home)
    assert called.returncode == 1
    assert sign_in_message("web", f"mcp-gateway --home {shlex.quote(str(home))}").replace("`", "").replace(
        " in a terminal", ""
    ) in called.stderr.replace("`", "")
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            result = await call_echo(client, "x")
            assert result.is_error
            assert text_of(result) == sign_in_message("web")
            assert oauth_server.stats()["registrations"] == 0  # the serving gateway never starts a sign-in itself
            signed = await signing_in(home, "web")
            assert signed.returncode == 0, signed.stderr
            again = await call_echo(client, "y")  # at once: a start refused for want of a sign-in backs off not
    assert (again.is_error, text_of(again)) == (False, "y")


async def test_a_refused_sign_in_fails_clearly_and_stores_nothing(tmp_path: Path, oauth_server: OAuthFixture) -> None:
    home = tmp_path / "home"
    workspace_for(home, oauth_server)
    signed = await signing_in(home, "web", decision="deny")
    assert signed.returncode == 1
    assert "The sign-in to 'web' was refused (access_denied: the user said no); run the command again" in signed.stderr
    assert "Traceback" not in signed.stderr
    assert not list((home / "oauth").glob("*.json")) if (home / "oauth").exists() else True
    assert oauth_server.stats()["codes"] == 0


async def test_an_answer_without_the_sign_ins_state_neither_ends_it_nor_is_used(
    tmp_path: Path, oauth_server: OAuthFixture
) -> None:
    """Any local program can reach the loopback port: a refusal it forges, and a code sent back for another
    sign-in, are turned away, and the person's own sign-in, coming back after them, is the one used."""
    home = tmp_path / "home"
    workspace_for(home, oauth_server)
    signed = await signing_in(home, "web", first=["forged-refusal", "wrong-state"])
    assert signed.returncode == 0, signed.stderr
    assert signed.browser_saw.count("This is not the sign-in mcp-gateway is waiting for.") == 2
    assert "signed in" in signed.browser_saw.lower()
    assert len(list((home / "oauth").glob("*.json"))) == 1


async def test_a_server_without_oauth_metadata_has_no_sign_in_to_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_remote("streamable-http", "--require-sign-in") as port:
        write_workspace(home, {"plain": {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}})
        done = await run_cli_async("login", "plain", "--no-browser", home=home)
    assert done.returncode == 1
    assert "refused the gateway but publishes no usable OAuth metadata (RFC 9728 or RFC 8414)" in done.stderr
    assert "Traceback" not in done.stderr


async def test_login_names_a_local_or_unknown_server_as_a_usage_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_workspace(home, {"local": {"command": "true"}})
    local = await run_cli_async("login", "local", "--no-browser", home=home)
    unknown = await run_cli_async("login", "nowhere", "--no-browser", home=home)
    assert (local.returncode, unknown.returncode) == (2, 2)
    assert "is a local (stdio) server, which has no sign-in" in local.stderr
    assert "No server named 'nowhere'" in unknown.stderr


RENEWAL_SECONDS = 2.0
"""How long the fixture holds a renewal after spending its refresh token: a window in which two gateways that
found the token due together both ask, well over the skew between two processes started at once."""


async def test_two_gateways_renewing_the_same_token_at_once_both_succeed_with_one_renewal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running_oauth_fixture(token_seconds=2.0, refresh_delay=RENEWAL_SECONDS) as fixture:
        workspace_for(home, fixture)
        signed = await signing_in(home, "web")
        assert signed.returncode == 0, signed.stderr
        await wait_past(stored(home)["expiresAt"])
        done: dict[str, Any] = {}

        async def call(message: str) -> None:
            arguments = json.dumps({"message": message})
            done[message] = await run_cli_async("call", "web.echo", "--args", arguments, home=home)

        async with anyio.create_task_group() as both:
            both.start_soon(call, "left")
            both.start_soon(call, "right")
        stats = fixture.stats()
    for message, result in done.items():
        assert result.returncode == 0, result.stderr
        assert message in result.stdout
    assert stats["refreshes"] == 1  # the second gateway waited for the first one's renewal and used its token


async def test_import_brings_a_claude_code_oauth_server_marked_for_login_and_login_then_serves_it(
    tmp_path: Path, oauth_server: OAuthFixture
) -> None:
    home, person = tmp_path / "home", tmp_path / "person"
    person.mkdir()
    port = free_port()  # Claude Code's callbackPort: a fixed loopback port the sign-in must come back to
    servers = {"web": {"type": "http", "url": oauth_server.url, "oauth": {"callbackPort": port}}}
    (person / ".claude.json").write_text(json.dumps({"mcpServers": servers}))
    as_person = {"HOME": str(person), "CLAUDE_CONFIG_DIR": str(person)}

    imported = await run_cli_async("import", "--client", "claude-code", home=home, extra_env=as_person)
    assert imported.returncode == 0, imported.stderr
    assert "  web: imported (new in the gateway)\n" in imported.stdout
    assert "it signs in with OAuth in Claude Code" in imported.stdout
    assert " login web\n" in imported.stdout
    [web] = json.loads((home / "config.json").read_text())["mcpServers"].values()
    assert web == {"type": "http", "url": oauth_server.url, "oauth": {"redirectPort": port}}

    before = await run_cli_async("call", "web.echo", "--args", '{"message": "x"}', home=home)
    assert before.returncode == 1
    assert "login web" in before.stderr
    signed = await signing_in(home, "web")
    assert signed.returncode == 0, signed.stderr
    assert f"redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2F" in signed.stderr  # the port Claude Code was told
    assert oauth_server.stats()["codes"] == 1
    after = await run_cli_async("call", "web.echo", "--args", '{"message": "imported"}', home=home)
    assert after.returncode == 0, after.stderr
    assert "imported" in after.stdout


async def test_logout_stops_a_running_daemon_using_the_account_even_where_tokens_cannot_be_revoked(
    tmp_path: Path,
) -> None:
    """A long-lived token the daemon already holds is not sent again once the person signed out, though the
    authorization server, offering no revocation, would still take it."""
    with running_oauth_fixture(token_seconds=3600.0, revocation=False) as server:
        home = tmp_path / "home"
        workspace_for(home, server)
        assert (await signing_in(home, "web")).returncode == 0
        async with gateway_session(home) as client:
            assert text_of(await call_echo(client, "before")) == "before"
            done = await run_cli_async("logout", "web", home=home)
            assert done.returncode == 0, done.stderr
            after = await call_echo(client, "after")
        assert after.is_error
        assert sign_in_message("web") in text_of(after)


async def test_a_token_endpoint_that_hangs_costs_a_bounded_wait_and_says_so(tmp_path: Path) -> None:
    """The renewal is a request of its own with its own bound: a hanging token endpoint fails the call after
    TOKEN_ENDPOINT_SECONDS, naming the endpoint, not after the gateway's whole start or call timeout (60 s) with
    words about the server's entry or its arguments."""
    with running_oauth_fixture(token_seconds=8.0, refresh_delay=3600.0) as server:
        home = tmp_path / "home"
        workspace_for(home, server)
        signed = await signing_in(home, "web")
        assert signed.returncode == 0, signed.stderr
        async with gateway_session(home) as client:
            assert text_of(await call_echo(client, "before")) == "before"
            await wait_past(stored(home)["expiresAt"])
            began = time.monotonic()
            after = await call_echo(client, "after")
            waited = time.monotonic() - began
    assert after.is_error
    said = text_of(after)
    assert f"its token endpoint (http://127.0.0.1:{server.auth_port}/token) did not answer within" in said
    assert "run `mcp-gateway login web` in a terminal to sign in anew" in said
    assert waited < TOKEN_ENDPOINT_SECONDS + 20.0, "bounded by the renewal's own limit, not a 60 s timeout"
