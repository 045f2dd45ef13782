"""Remote servers without credentials are asked once whether they need a sign-in; the answer decides."""

from __future__ import annotations

from pathlib import Path

import pytest
from importer_testing import Answers

from mcp_gateway.importing.clients import ClientReading, ImportedServer
from mcp_gateway.importing.sign_in import needs_login, screen_sign_ins

pytestmark = pytest.mark.anyio

NO_CREDENTIALS = "it sends no credentials; if it signs in (OAuth) in Claude Code, the gateway cannot reuse that"


def remote(name: str, url: str, **fields: object) -> ImportedServer:
    return ImportedServer(name, entry={"type": "http", "url": url, **fields}, warnings=(NO_CREDENTIALS,))


def reading_of(*servers: ImportedServer) -> ClientReading:
    return ClientReading("claude-code", Path("/tmp/.claude.json"), "user", "{}", ("mcpServers",), servers)


async def test_a_server_that_answers_401_is_imported_marked_as_needing_a_sign_in() -> None:
    probe = Answers({"https://oauth.example/mcp": 401})
    screened = await screen_sign_ins(
        reading_of(remote("linear", "https://oauth.example/mcp")), "Claude Code", probe=probe, environ={}
    )
    [server] = screened.servers
    assert server.imported
    assert server.entry is not None
    assert server.entry["oauth"] == {}
    assert needs_login(server.entry)
    [note] = [warning for warning in server.warnings if "OAuth" in warning]
    assert "signs in with OAuth (without credentials it answered HTTP 401)" in note
    assert "cannot reuse Claude Code's sign-in" in note
    assert "`login`" in note
    assert not any(warning.startswith("it sends no credentials") for warning in server.warnings)


async def test_a_server_that_answers_without_credentials_is_imported_without_the_oauth_warning() -> None:
    probe = Answers({"https://open.example/mcp": 200})
    screened = await screen_sign_ins(
        reading_of(remote("docs", "https://open.example/mcp")), "Claude Code", probe=probe, environ={}
    )
    [server] = screened.servers
    assert server.imported
    assert server.warnings == ("it sends no credentials and answered without them: no sign-in needed",)


@pytest.mark.parametrize(
    ("answer", "note"),
    [
        (404, "without them it answered HTTP 404; check its url"),
        ("Name or service not known", "asking whether it needs a sign-in failed (Name or service not known)"),
    ],
)
async def test_an_unclear_answer_imports_the_server_with_a_note(answer: int | str, note: str) -> None:
    probe = Answers({"https://unclear.example/mcp": answer})
    screened = await screen_sign_ins(
        reading_of(remote("x", "https://unclear.example/mcp")), "Claude Code", probe=probe, environ={}
    )
    [server] = screened.servers
    assert server.imported
    [warning] = server.warnings
    assert note in warning


async def test_servers_with_credentials_and_local_ones_are_not_asked() -> None:
    servers = (
        remote("with-headers", "https://a.example/mcp", headers={"Authorization": "Bearer x"}),
        remote("with-token", "https://b.example/mcp", bearerTokenEnv="TOKEN"),
        ImportedServer("local", entry={"type": "stdio", "command": "server"}),
        ImportedServer("skipped", skipped="an unknown type"),
    )
    probe = Answers({})
    screened = await screen_sign_ins(reading_of(*servers), "Claude Code", probe=probe, environ={})
    assert screened.servers == servers
    assert probe.asked == []


async def test_a_url_variable_is_expanded_for_the_question_and_an_unset_one_is_not_asked() -> None:
    servers = (remote("set", "https://${HOST}/mcp"), remote("unset", "https://${MISSING_HOST}/mcp"))
    probe = Answers({"https://set.example/mcp": 403})
    screened = await screen_sign_ins(reading_of(*servers), "Claude Code", probe=probe, environ={"HOST": "set.example"})
    assert probe.asked == [("http", "https://set.example/mcp")]
    set_server, unset_server = screened.servers
    assert set_server.entry is not None
    assert set_server.entry["oauth"] == {}  # answered 403: imported as needing a sign-in
    assert unset_server.imported
    assert unset_server.entry is not None
    assert "oauth" not in unset_server.entry
    assert "MISSING_HOST, which is not set here" in unset_server.warnings[-1]
