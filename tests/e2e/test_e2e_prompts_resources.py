"""Prompts, resources, templates and completions through the real gateway, in both protocol eras.

server-everything (prompts with arguments, static and dynamic resources, a binary template, completions) and
the fake server with `FAKE_MCP_SURFACE` (the same prompt name, URI and template as everything's, other
contents) stand behind a real `mcp-gateway` process, driven by the SDK client. Starts are counted with spawn
logs, as in `test_e2e_lazy_start.py`; parity is judged against a direct SDK connection to the same server.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    client_environment,
    downstream_pid,
    gateway_params,
    gateway_session,
    read_lines,
    spawn_logging_wrapper,
    started_after,
)
from gateway_testing import peer
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from workspaces import cached_everything, fake_server, refreshed_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ERAS = ["legacy", "2026-07-28"]
SHARED_DOCUMENT = "demo://resource/static/document/architecture.md"
FAKE_BLOB = bytes(range(256))
ORIGIN = "io.github.mcp-gateway/origin"
CLOCK_TIME = re.compile(r"\b\d{1,2}:\d{2}:\d{2}\s?[AP]M\b")


def comparable(result: Any) -> Any:
    """A result as both ends mean it: without what each session stamps on it (its `_meta`, era fields), and with
    the clock time server-everything writes into its dynamic resources made one placeholder."""
    dumped: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    for key in ("_meta", "resultType", "ttlMs", "cacheScope"):
        dumped.pop(key, None)
    for item in dumped.get("contents", []):
        if "blob" in item:  # its bytes hold the clock time too
            item["blob"] = base64.b64decode(item["blob"]).decode("latin-1")
    return json.loads(CLOCK_TIME.sub("<time>", json.dumps(dumped)))


async def everything_directly() -> tuple[list[Any], list[Any], Any]:
    """What a direct connection to server-everything returns for the requests `test_…_parity` sends."""
    direct = StdioServerParameters(command=str(peer("mcp-server-everything")), env=client_environment())
    async with Client(direct, mode="legacy", cache=None) as client:
        prompts = [
            await client.get_prompt("simple-prompt"),
            await client.get_prompt("args-prompt", {"city": "Oslo", "state": "Viken"}),
            await client.get_prompt("resource-prompt", {"resourceType": "Text", "resourceId": "2"}),
        ]
        reads = [
            await client.read_resource(SHARED_DOCUMENT),
            await client.read_resource("demo://resource/dynamic/text/7"),
            await client.read_resource("demo://resource/dynamic/blob/5"),
        ]
        completion = await client.complete(
            types.PromptReference(name="completable-prompt"), {"name": "department", "value": "En"}
        )
    return prompts, reads, completion


@pytest.mark.parametrize("era", ERAS)
async def test_listing_prompts_resources_and_templates_from_a_valid_cache_starts_no_server(
    tmp_path: Path, era: str
) -> None:
    everything_log, fake_log = tmp_path / "everything-spawns.log", tmp_path / "fake-spawns.log"
    wrapper = spawn_logging_wrapper(tmp_path, peer("mcp-server-everything"), everything_log)
    home = tmp_path / "home"
    servers = {"everything": {"command": str(wrapper)}, "fake": fake_server(spawn_log=str(fake_log), surface="serve")}
    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(home, servers)
    before = read_lines(everything_log), read_lines(fake_log)
    assert (len(before[0]), len(before[1])) == (1, 1), "refresh lists each server once"

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home, mode=era) as client:
            prompts = await client.list_prompts()
            resources = await client.list_resources()
            templates = await client.list_resource_templates()
            idle = read_lines(everything_log), read_lines(fake_log)
            got = await client.get_prompt("everything__args-prompt", {"city": "Oslo"})
            after_get = read_lines(everything_log), read_lines(fake_log)

    assert idle == before, "listing prompts, resources and templates must start nothing"
    assert [prompt.name for prompt in prompts.prompts] == [
        "everything__simple-prompt",
        "everything__args-prompt",
        "everything__completable-prompt",
        "everything__resource-prompt",
        "fake__simple-prompt",
        "fake__args-prompt",
    ]
    assert prompts.prompts[1].meta is not None
    assert prompts.prompts[1].meta[ORIGIN] == {"server": "everything", "name": "args-prompt"}
    # Both servers use the demo: scheme, so each one's URIs say whose they are; fake: is the fake server's alone.
    uris = [resource.uri for resource in resources.resources]
    assert f"mcp-gateway://everything/{SHARED_DOCUMENT}" in uris
    assert f"mcp-gateway://fake/{SHARED_DOCUMENT}" in uris
    assert "fake://blob/bytes" in uris
    assert [template.uri_template for template in templates.resource_templates] == [
        "mcp-gateway://everything/demo://resource/dynamic/text/{resourceId}",
        "mcp-gateway://everything/demo://resource/dynamic/blob/{resourceId}",
        "mcp-gateway://fake/demo://resource/dynamic/text/{resourceId}",
    ]
    assert "Oslo" in str(got.messages[0].content)
    assert len(started_after(before[0], after_get[0])) == 1, "prompts/get starts its server"
    assert after_get[1] == before[1], "and only its server"


@pytest.mark.parametrize("era", ERAS)
async def test_prompts_get_resources_read_and_complete_return_what_a_direct_connection_returns(
    tmp_path: Path, everything_cache: Path, era: str
) -> None:
    home = tmp_path / "home"
    cached_everything(home, everything_cache)
    with anyio.fail_after(SESSION_SECONDS):
        expected_prompts, expected_reads, expected_completion = await everything_directly()
        async with gateway_session(home, mode=era) as client:
            assert (client.protocol_version == "2026-07-28") == (era == "2026-07-28")
            prompts = [
                await client.get_prompt("everything__simple-prompt"),
                await client.get_prompt("everything__args-prompt", {"city": "Oslo", "state": "Viken"}),
                await client.get_prompt("everything__resource-prompt", {"resourceType": "Text", "resourceId": "2"}),
            ]
            reads = [
                await client.read_resource(SHARED_DOCUMENT),  # one server: its URIs pass unchanged
                await client.read_resource("demo://resource/dynamic/text/7"),  # expanded from its template
                await client.read_resource("demo://resource/dynamic/blob/5"),
            ]
            completion = await client.complete(
                types.PromptReference(name="everything__completable-prompt"), {"name": "department", "value": "En"}
            )

    assert [comparable(result) for result in prompts] == [comparable(result) for result in expected_prompts]
    assert [comparable(result) for result in reads] == [comparable(result) for result in expected_reads]
    assert isinstance(reads[2].contents[0], types.BlobResourceContents), "a blob stays a blob"
    assert comparable(completion) == comparable(expected_completion)
    assert completion.completion.values == ["Engineering"]


@pytest.mark.parametrize("era", ERAS)
async def test_two_servers_with_the_same_prompt_name_uri_and_template_each_answer_for_their_own(
    tmp_path: Path, everything_cache: Path, era: str
) -> None:
    home = tmp_path / "home"
    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(
            home, {"everything": {"command": str(peer("mcp-server-everything"))}, "fake": fake_server(surface="serve")}
        )
        async with gateway_session(home, mode=era) as client:
            everything_prompt = await client.get_prompt("everything__args-prompt", {"city": "Oslo"})
            fake_prompt = await client.get_prompt("fake__args-prompt", {"city": "Oslo"})
            everything_document = await client.read_resource(f"mcp-gateway://everything/{SHARED_DOCUMENT}")
            fake_document = await client.read_resource(f"mcp-gateway://fake/{SHARED_DOCUMENT}")
            fake_expanded = await client.read_resource("mcp-gateway://fake/demo://resource/dynamic/text/42")
            everything_expanded = await client.read_resource("mcp-gateway://everything/demo://resource/dynamic/text/42")
            blob = await client.read_resource("fake://blob/bytes")
            fake_completion = await client.complete(
                types.ResourceTemplateReference(uri="mcp-gateway://fake/demo://resource/dynamic/text/{resourceId}"),
                {"name": "resourceId", "value": "4"},
            )
            with pytest.raises(MCPError) as ambiguous:
                await client.read_resource(SHARED_DOCUMENT)  # listed by both: which one is meant cannot be known

    assert "What's weather in Oslo?" in str(everything_prompt.messages[0].content)
    assert "fake weather in Oslo" in str(fake_prompt.messages[0].content)
    fake_text = fake_document.contents[0]
    assert isinstance(fake_text, types.TextResourceContents)
    assert fake_text.text == "the fake server's architecture"
    assert fake_text.uri == f"mcp-gateway://fake/{SHARED_DOCUMENT}", "the content names the URI the client read"
    everything_text = everything_document.contents[0]
    assert isinstance(everything_text, types.TextResourceContents)
    assert everything_text.text != fake_text.text
    assert str(fake_expanded.contents[0]).count("fake text 42") == 1
    assert "fake text" not in str(everything_expanded.contents[0])
    only = blob.contents[0]
    assert isinstance(only, types.BlobResourceContents)
    assert base64.b64decode(only.blob) == FAKE_BLOB
    assert fake_completion.completion.values == ["4-fake"]
    assert ambiguous.value.error.code == types.INVALID_PARAMS
    assert "'everything'" in ambiguous.value.error.message
    assert "'fake'" in ambiguous.value.error.message


async def test_a_subscription_is_forwarded_and_the_update_reaches_the_client_under_its_own_uri(tmp_path: Path) -> None:
    home = tmp_path / "home"
    updates: list[str] = []
    heard = anyio.Event()

    async def on_message(message: types.ServerNotification | Exception) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(message.params.uri)
            heard.set()

    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(
            home, {"everything": {"command": str(peer("mcp-server-everything"))}, "fake": fake_server(surface="serve")}
        )
        async with Client(gateway_params(home), mode="legacy", cache=None, message_handler=on_message) as client:
            # Deprecated by the SDK for 2026-07-28 sessions; this one is handshake-era, where it is the way.
            await client.subscribe_resource(f"mcp-gateway://fake/{SHARED_DOCUMENT}")  # pyright: ignore[reportDeprecated]
            await heard.wait()  # the fake server says at once that it changed
            await client.unsubscribe_resource(f"mcp-gateway://fake/{SHARED_DOCUMENT}")  # pyright: ignore[reportDeprecated]

    assert updates == [f"mcp-gateway://fake/{SHARED_DOCUMENT}"]


async def test_unknown_prompt_unknown_uri_disabled_server_and_failed_start_are_json_rpc_errors(
    tmp_path: Path,
) -> None:
    flag = tmp_path / "refuse-to-start"
    launcher = tmp_path / "fake-or-fail"
    fake = fake_server(surface="serve")
    launcher.write_text(
        f'#!/bin/sh\nif [ -e "{flag}" ]; then echo "refusing to start" >&2; exit 4; fi\n'
        f'exec "{fake["command"]}" "{fake["args"][0]}"\n'
    )
    launcher.chmod(0o755)
    home = tmp_path / "home"
    servers = {
        "flaky": {"command": str(launcher), "env": fake["env"]},
        "off": {**fake_server(surface="serve"), "disabled": True},
    }
    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(home, servers)
        flag.touch()
        async with gateway_session(home) as client:
            listed = await client.list_prompts()
            errors: dict[str, MCPError] = {}
            for case, request in {
                "unknown prompt": client.get_prompt("flaky__no-such-prompt"),
                "disabled": client.get_prompt("off__args-prompt", {"city": "x"}),
                "unknown uri": client.read_resource("nowhere://at/all"),
                "failed start": client.get_prompt("flaky__args-prompt", {"city": "x"}),
            }.items():
                with pytest.raises(MCPError) as caught:
                    await request
                errors[case] = caught.value

    assert [prompt.name for prompt in listed.prompts] == ["flaky__simple-prompt", "flaky__args-prompt"]
    assert errors["unknown prompt"].error.code == types.INVALID_PARAMS
    assert "'flaky__no-such-prompt'" in errors["unknown prompt"].error.message
    assert errors["disabled"].error.code == types.INVALID_PARAMS
    assert "disabled" in errors["disabled"].error.message
    assert errors["unknown uri"].error.code == types.INVALID_PARAMS
    assert "'nowhere://at/all'" in errors["unknown uri"].error.message
    assert errors["failed start"].error.code == types.INTERNAL_ERROR
    assert "'flaky'" in errors["failed start"].error.message
    assert "refusing to start" in errors["failed start"].error.message
    assert errors["failed start"].error.message.endswith("then try again."), "the pool's start failure, as for a tool"
    for case in ("unknown prompt", "disabled", "unknown uri"):
        assert ". " not in errors[case].error.message, "one sentence"


async def test_a_subscription_outlives_its_servers_crash_and_is_made_again_on_the_next_process(tmp_path: Path) -> None:
    home = tmp_path / "home"
    updates: list[str] = []
    second = anyio.Event()

    async def on_message(message: types.ServerNotification | Exception) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(message.params.uri)
            if len(updates) == 2:
                second.set()

    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(home, {"fake": fake_server(surface="serve")})
        async with Client(gateway_params(home), mode="legacy", cache=None, message_handler=on_message) as client:
            first_pid = await downstream_pid(client, "fake")  # a call answered: its crash is not a failed start
            await client.subscribe_resource(SHARED_DOCUMENT)  # pyright: ignore[reportDeprecated]
            crashed = await client.call_tool("execute_tool", {"tool": "fake.crash", "arguments": {}})
            await second.wait()  # made again on a new process, which says at once that it changed
            second_pid = await downstream_pid(client, "fake")

    assert crashed.is_error
    assert second_pid != first_pid
    assert updates == [SHARED_DOCUMENT, SHARED_DOCUMENT], "the fake server's URIs pass unchanged: it is alone"
