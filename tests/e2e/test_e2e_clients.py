"""The real client CLIs with the gateway, as a user moves in: Claude Code, OpenCode, Codex and Gemini CLI.

Each client starts with `@modelcontextprotocol/server-everything` in its own config file in a scratch HOME;
the real `mcp-gateway import --client <c> --write-client-config` moves it into a gateway workspace and
rewrites the client's entry; the real CLI then runs one prompt against the mock model API on 127.0.0.1
(`clients/`), which speaks the client's own wire protocol, streaming included, and plays the model: search
"add two numbers", execute the top hit with 2 and 3, execute `get-tiny-image`, execute the top hit with a
wrong argument, answer. Every check reads what the client really sent to the model, and compares it with
what the gateway answers the same calls directly (an SDK client), so nothing expected is written here.

Offline: each client gets a proxy that refuses everything but 127.0.0.1; what it tried to reach is kept.
"""

from __future__ import annotations

import base64
import functools
import sys
from dataclasses import dataclass
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from clients.clis import CLIENTS, ClaudeCode, UserServer
from clients.conversation import ModelRequest, ToolCall, ToolResult
from clients.script import (
    FINAL_TEXT,
    IMAGE_TOOL,
    SUM_ARGUMENTS,
    WRONG_SUM_ARGUMENTS,
    ExecuteOnce,
    GatewayTour,
    top_hit_of,
)
from clients.sessions import run_client
from clients.tour import EVERYTHING, FirstRequests, Tour, everything, first_requests, run_session, run_tour
from e2e_gateway import SESSION_SECONDS, gateway_session, text_of
from gateway_testing import FAKE_SERVER
from workspaces import cached_everything

pytestmark = [pytest.mark.e2e]

META_TOOLS = ("search_tools", "list_tools", "describe_tool", "execute_tool")
FIRST_REQUEST_RUNS = 3
"""Sessions per client whose first request must offer the gateway's tools: the race it guards against (a
client that does not wait for the gateway) lost about 1 run in 3 on a busy machine."""
FIRST_REQUEST_RUNS_BY_CLIENT = {"claude-code": 5}
"""Issue 11 is checked with 5 of 5 Claude Code runs (and a Claude Code run takes 3 s)."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SUM_TOOL = "get-sum"
SLOW_TO_EXIT = "slow-to-exit"
STUBBORN = "stubborn"
SLOW_START_SECONDS = 3
"""How late server-everything starts in the empty-catalog session: far more than the model's first turn
takes to come back (well under a second), far less than any bound a search may wait for a listing."""
CLIENT_NAMES = sorted(CLIENTS)


@dataclass(frozen=True)
class DirectAnswers:
    """What the gateway itself answers the tour's calls, asked by an SDK client."""

    sum_text: str
    image: types.ImageContent
    wrong_arguments_text: str


@pytest.fixture(scope="session")
def direct(tmp_path_factory: pytest.TempPathFactory, everything_cache: Path) -> DirectAnswers:
    home = tmp_path_factory.mktemp("direct-answers")
    cached_everything(home, everything_cache)

    async def ask() -> DirectAnswers:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                tool = f"{EVERYTHING}.{SUM_TOOL}"
                added = await client.call_tool("execute_tool", {"tool": tool, "arguments": SUM_ARGUMENTS})
                image_tool = f"{EVERYTHING}.{IMAGE_TOOL}"
                shown = await client.call_tool("execute_tool", {"tool": image_tool, "arguments": {}})
                wrong = await client.call_tool("execute_tool", {"tool": tool, "arguments": WRONG_SUM_ARGUMENTS})
        assert not added.is_error, added
        assert not shown.is_error, shown
        assert wrong.is_error, wrong
        (image,) = [item for item in shown.content if isinstance(item, types.ImageContent)]
        return DirectAnswers(text_of(added), image, text_of(wrong))

    return anyio.run(ask, backend="asyncio")


@pytest.fixture(scope="module", params=CLIENT_NAMES)
def tour(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Tour:
    client = CLIENTS[str(request.param)]
    root = tmp_path_factory.mktemp(f"tour-{client.name}")
    return anyio.run(run_tour, client, root, backend="asyncio")


def call_and_answer(tour: Tour, step: int) -> tuple[ToolCall, ToolResult]:
    """The tour's tool call number `step` (1-based) and the result the client sent back to the model."""
    calls = tour.mock.calls_made()
    assert len(calls) >= step, f"{tour.client.name} stopped early: {tour.mock.summary()}\n{tour.run.output()}"
    call = calls[step - 1]
    answering = tour.mock.requests_after(call.call_id)
    assert answering, f"the result of {call} never reached the model: {tour.mock.summary()}"
    result = answering[0].result_of(call)
    assert result is not None
    return call, result


def first_line(text: str) -> str:
    return text.strip().splitlines()[0]


@pytest.mark.parametrize(
    "client_name",
    CLIENT_NAMES,
)
def test_the_gateways_four_tools_are_in_every_first_request(
    client_name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    client = CLIENTS[client_name]
    root = tmp_path_factory.mktemp(f"first-{client.name}")
    runs = FIRST_REQUEST_RUNS_BY_CLIENT.get(client.name, FIRST_REQUEST_RUNS)
    seen: FirstRequests = anyio.run(first_requests, client, root, runs, backend="asyncio")

    def missing(request: ModelRequest) -> list[str]:
        return [tool for tool in META_TOOLS if request.tool_named(tool) is None]

    assert [missing(request) for request in seen.requests] == [[]] * runs, [
        (f"asked {asked:.1f} s after the start", sorted(request.tools))
        for asked, request in zip(seen.asked_after, seen.requests, strict=True)
    ]
    assert [run.leftovers for run in seen.runs] == [[]] * runs


def test_a_search_then_execute_of_get_sum_returns_5_to_the_model(tour: Tour, direct: DirectAnswers) -> None:
    search, hits = call_and_answer(tour, 1)
    execute, added = call_and_answer(tour, 2)

    assert search.name == tour.mock.first_request().tool_named("search_tools")
    assert execute.arguments["tool"] == f"{EVERYTHING}.{SUM_TOOL}", hits.text  # the top hit, read from the result
    assert execute.arguments["arguments"] == SUM_ARGUMENTS
    assert direct.sum_text in added.text
    assert added.is_error in (False, None)


def test_the_image_of_get_tiny_image_reaches_the_model(tour: Tour, direct: DirectAnswers) -> None:
    call, shown = call_and_answer(tour, 3)

    assert call.arguments["tool"] == f"{EVERYTHING}.{IMAGE_TOOL}"
    if not tour.client.passes_images:
        assert shown.images == ()
        return
    assert [(image.mime_type, image.data) for image in shown.images] == [(direct.image.mime_type, direct.image.data)]
    assert base64.b64decode(shown.images[0].data).startswith(PNG_SIGNATURE)


def test_wrong_arguments_come_back_to_the_model_as_an_error_result(tour: Tour, direct: DirectAnswers) -> None:
    call, refused = call_and_answer(tour, 4)

    assert call.arguments["arguments"] == WRONG_SUM_ARGUMENTS
    assert first_line(direct.wrong_arguments_text) in refused.text
    # A wire with an error flag must carry it; chat completions and Codex's Responses items have none.
    assert refused.is_error is (True if tour.client.flags_tool_errors else None)


def test_the_session_ends_with_the_final_answer_and_leaves_nothing_running(tour: Tour) -> None:
    assert tour.run.returncode == 0, tour.run.output()
    assert FINAL_TEXT in tour.run.stdout, tour.run.output()
    assert tour.run.leftovers == []


@pytest.mark.parametrize("tour", ["claude-code"], indirect=True)
def test_claude_mcp_list_shows_the_gateway_connected(tour: Tour) -> None:
    claude = tour.client
    assert isinstance(claude, ClaudeCode)

    async def listed() -> tuple[str, list[str], int]:
        argv = claude.list_servers_command()
        run = await run_client(claude, tour.place, argv, tour.mock, label="mcp-list")
        return run.stdout, run.leftovers, run.returncode

    stdout, leftovers, returncode = anyio.run(listed, backend="asyncio")

    assert returncode == 0, stdout
    (line,) = [line for line in stdout.splitlines() if line.startswith(f"{claude.gateway_name}:")]
    assert "Connected" in line, stdout
    assert leftovers == []


def test_claude_code_ends_a_session_with_a_running_server_without_escalating_to_sigterm(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A server still running when the session ends (used, not idle long enough to be reaped) that takes a
    second to wind down, as servers that flush or close connections do. With server-everything alone the
    gateway exits 90-110 ms after SIGINT here: Claude Code escalates in some sessions and not in others."""
    claude = CLIENTS["claude-code"]
    assert isinstance(claude, ClaudeCode)
    root = tmp_path_factory.mktemp("claude-code-shutdown")
    slow = UserServer(SLOW_TO_EXIT, sys.executable, [str(FAKE_SERVER)], {"FAKE_MCP_EXIT_DELAY": "1"})
    script = ExecuteOnce(f"{SLOW_TO_EXIT}.echo", {"message": "still running at the end"})
    session: Tour = anyio.run(run_session, claude, root, [slow], script, backend="asyncio")
    log = claude.debug_log(session.place).read_text()

    assert session.mock.calls_made(), session.run.output()
    assert claude.shutdown_sigint in log  # how Claude Code writes a stop down; without it this proves nothing
    assert claude.shutdown_escalation not in log
    assert session.run.leftovers == []


def test_a_server_that_ignores_eof_and_sigterm_is_gone_when_a_claude_code_session_ends(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The README's own fault model: some servers ignore a closed stdin and SIGTERM, and the gateway stops them
    with SIGKILL to their process group. Claude Code 2.1.x gives the gateway SIGINT, SIGTERM 100 ms later and
    SIGKILL about 400 ms after that; a SIGKILLed gateway can stop nothing."""
    claude = CLIENTS["claude-code"]
    assert isinstance(claude, ClaudeCode)
    root = tmp_path_factory.mktemp("claude-code-stubborn")
    stubborn = UserServer(STUBBORN, sys.executable, [str(FAKE_SERVER)], {"FAKE_MCP_STUBBORN": "1"})
    script = ExecuteOnce(f"{STUBBORN}.echo", {"message": "still running at the end"})
    session: Tour = anyio.run(run_session, claude, root, [stubborn], script, backend="asyncio")

    assert session.mock.calls_made(), session.run.output()
    assert session.run.leftovers == []


def test_on_an_empty_catalog_the_first_search_through_claude_code_finds_get_sum(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The user's first session after `import`, before any `refresh`: server-everything starts
    SLOW_START_SECONDS late, as a server fetched by npx on first use does, so that the first search always
    comes while its listing is in progress (with an instant start the race goes either way)."""
    claude = CLIENTS["claude-code"]
    root = tmp_path_factory.mktemp("empty-catalog-claude-code")
    slow = root / "slow-everything"
    slow.write_text(f'#!/bin/sh\nsleep {SLOW_START_SECONDS}\nexec "{everything().command}" "$@"\n')
    slow.chmod(0o755)
    server = UserServer(EVERYTHING, str(slow))
    first_day: Tour = anyio.run(
        functools.partial(run_session, claude, root, [server], GatewayTour(), refresh=False), backend="asyncio"
    )

    _, hits = call_and_answer(first_day, 1)
    assert top_hit_of(hits) == f"{EVERYTHING}.{SUM_TOOL}", hits.text
