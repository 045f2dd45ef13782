"""A tool's questions reach the client that called it, through the real gateway, in both protocol eras.

The SDK client drives the real `mcp-gateway` process in each era (`legacy`: the initialize handshake;
`auto`: 2026-07-28), in front of real servers that ask in each era: the asking fixture (the SDK's own
server, spoken to with `protocol: legacy` or left on `auto`), the fake server (hand-written, handshake-era,
which returns the client's reply verbatim) and `@modelcontextprotocol/server-everything`. Each pairing:
the answer reaches the tool (the tool's result holds it), a decline or cancel flows through (the three in
one session), a client that did not declare the capability gets one clear sentence, and the call's deadline
does not run while a person answers.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
from e2e_gateway import SESSION_SECONDS, client_environment, gateway_params, run_cli_async, text_of
from gateway_testing import ROOT
from mcp import Client
from mcp.client.session import ClientRequestContext, ElicitationFnT
from workspaces import everything_server, fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ASKING_SERVER = ROOT / "fixtures" / "asking_server.py"
CLIENT_ERAS = ["legacy", "auto"]
"""The gateway's client: a handshake-era one, and a 2026-07-28 one."""
SERVER_ERAS = ["legacy", "auto"]
"""The asking fixture's `protocol` setting: a handshake-era server, and a 2026-07-28 one."""
MODEL_SAYS = "forty-two, said the model"
SHORT_TIMEOUT_MS = 1000
"""A call deadline far shorter than the answer below takes: only a paused deadline lets the call finish."""
SLOW_ANSWER_SECONDS = 2.5


def asking_server(protocol: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(ASKING_SERVER)], "protocol": protocol, "env": client_environment()}


def answering(
    name: str = "Ada", seat: str = "12A", actions: Sequence[str] = (), delay: float = 0.0
) -> tuple[ElicitationFnT, list[str]]:
    """An elicitation callback and what it was asked: it answers the n-th question with `actions[n]` (every one
    accepted when there are none), with `name`, or `seat` when asked for one."""
    asked: list[str] = []

    async def answer(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if delay:
            await anyio.sleep(delay)  # a person taking their time, not a synchronisation
        assert not actions or len(asked) <= len(actions), f"asked more than the {len(actions)} questions expected"
        action = actions[len(asked) - 1] if actions else "accept"
        if action != "accept":
            return types.ElicitResult(action=action)  # pyright: ignore[reportArgumentType]
        schema: dict[str, Any] = params.requested_schema if isinstance(params, types.ElicitRequestFormParams) else {}
        properties = cast(dict[str, Any], schema.get("properties") or {})
        if "seat" in properties:
            return types.ElicitResult(action="accept", content={"seat": seat})
        if "answer" in properties:
            return types.ElicitResult(action="accept", content={"answer": name})
        return types.ElicitResult(action="accept", content={"name": name})

    return answer, asked


async def sampled(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", content=types.TextContent(text=MODEL_SAYS), model="test-model")


async def execute(
    home: Path, client_era: str, calls: list[tuple[str, dict[str, Any]]], **callbacks: Any
) -> list[types.CallToolResult]:
    with anyio.fail_after(SESSION_SECONDS):
        async with Client(gateway_params(home), mode=client_era, cache=None, **callbacks) as client:
            return [
                await client.call_tool("execute_tool", {"tool": tool, "arguments": arguments})
                for tool, arguments in calls
            ]


@pytest.mark.parametrize("server_era", SERVER_ERAS)
@pytest.mark.parametrize("client_era", CLIENT_ERAS)
async def test_an_answer_a_decline_and_a_cancel_reach_the_tool_as_such_in_every_pairing_of_eras(
    tmp_path: Path, client_era: str, server_era: str
) -> None:
    # One session per pairing: each call asks afresh, so what one answer did cannot shape the next one's result.
    write_workspace(tmp_path, {"ask": asking_server(server_era)})
    answer, asked = answering(name="Ada", seat="12A", actions=["accept", "accept", "accept", "decline", "cancel"])
    greeted, registered, consulted, declined, cancelled = await execute(
        tmp_path,
        client_era,
        [
            ("ask.greet", {"greeting": "Hello"}),
            ("ask.register", {"event": "PyCon"}),
            ("ask.consult", {"question": "?"}),
            ("ask.greet", {"greeting": "Hi"}),
            ("ask.greet", {"greeting": "Hi"}),
        ],
        elicitation_callback=answer,
        sampling_callback=sampled,
    )
    assert (greeted.is_error, text_of(greeted)) == (False, "Hello, Ada!")
    assert (registered.is_error, text_of(registered)) == (False, "Ada sits in 12A at PyCon")
    assert (consulted.is_error, text_of(consulted)) == (False, f"The model said: {MODEL_SAYS}")
    assert (declined.is_error, text_of(declined)) == (False, "No name given: the question was declined.")
    assert (cancelled.is_error, text_of(cancelled)) == (False, "No name given: the question was cancelled.")
    assert asked == [
        "Whom should I say 'Hello' to?",
        "Who is registering?",
        "Which seat would Ada like?",
        "Whom should I say 'Hi' to?",
        "Whom should I say 'Hi' to?",
    ]


@pytest.mark.parametrize("server_era", SERVER_ERAS)
@pytest.mark.parametrize("client_era", CLIENT_ERAS)
async def test_a_client_that_cannot_answer_gets_one_clear_sentence_naming_what_was_asked(
    tmp_path: Path, client_era: str, server_era: str
) -> None:
    write_workspace(tmp_path, {"ask": asking_server(server_era)})
    greeted, consulted = await execute(
        tmp_path, client_era, [("ask.greet", {"greeting": "Hi"}), ("ask.consult", {"question": "?"})]
    )
    assert greeted.is_error
    assert "'ask.greet' asked the user a question (elicitation), which this client does not support" in text_of(greeted)
    assert consulted.is_error
    assert "'ask.consult' asked the client's model for a completion (sampling)" in text_of(consulted)
    assert "call it with every needed value in its arguments" in text_of(consulted)


@pytest.mark.parametrize("client_era", CLIENT_ERAS)
async def test_the_client_reply_reaches_a_handshake_era_tool_unchanged(tmp_path: Path, client_era: str) -> None:
    write_workspace(tmp_path, {"fake": fake_server()})
    answer, asked = answering(name="Grace")
    elicited, sampled_reply = await execute(
        tmp_path,
        client_era,
        [("fake.elicit", {"message": "Your name?"}), ("fake.sample", {"prompt": "Say it"})],
        elicitation_callback=answer,
        sampling_callback=sampled,
    )
    assert json.loads(text_of(elicited)) == {"result": {"action": "accept", "content": {"answer": "Grace"}}}
    reply = json.loads(text_of(sampled_reply))["result"]
    assert (reply["content"], reply["model"]) == ({"type": "text", "text": MODEL_SAYS}, "test-model")
    assert asked == ["Your name?"]


@pytest.mark.parametrize("client_era", CLIENT_ERAS)
async def test_the_call_deadline_waits_while_a_person_answers(tmp_path: Path, client_era: str) -> None:
    write_workspace(tmp_path, {"fake": fake_server() | {"requestTimeoutMs": SHORT_TIMEOUT_MS}})
    answer, _ = answering(name="Slow", delay=SLOW_ANSWER_SECONDS)
    (elicited,) = await execute(tmp_path, client_era, [("fake.elicit", {"message": "?"})], elicitation_callback=answer)
    assert not elicited.is_error, text_of(elicited)
    assert json.loads(text_of(elicited)) == {"result": {"action": "accept", "content": {"answer": "Slow"}}}


async def test_a_call_cancelled_while_its_question_waits_withdraws_the_question_from_the_client(
    tmp_path: Path,
) -> None:
    cancel_log = tmp_path / "cancelled.log"
    write_workspace(tmp_path, {"fake": fake_server(cancel_log=str(cancel_log))})
    asked, withdrawn = anyio.Event(), anyio.Event()

    async def wait_for_ever(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.set()
        try:
            await anyio.sleep_forever()
        finally:
            withdrawn.set()
        raise AssertionError("unreachable")

    with anyio.fail_after(SESSION_SECONDS):
        async with Client(
            gateway_params(tmp_path), mode="legacy", cache=None, elicitation_callback=wait_for_ever
        ) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(
                    client.call_tool, "execute_tool", {"tool": "fake.elicit", "arguments": {"message": "?"}}
                )
                await asked.wait()
                group.cancel_scope.cancel()
            await withdrawn.wait()
            still = await client.call_tool("execute_tool", {"tool": "fake.echo", "arguments": {"message": "alive"}})
    assert text_of(still) == "alive"
    assert cancel_log.read_text().strip(), "the cancellation never reached the server"


@pytest.mark.parametrize("client_era", CLIENT_ERAS)
async def test_server_everything_elicitation_and_sampling_reach_the_client_and_back(
    tmp_path: Path, client_era: str
) -> None:
    write_workspace(tmp_path, {"everything": everything_server()})
    answer, asked = answering(name="Ada Lovelace")
    elicited, sampled_reply = await execute(
        tmp_path,
        client_era,
        [
            ("everything.trigger-elicitation-request", {}),
            ("everything.trigger-sampling-request", {"prompt": "Say it", "maxTokens": 20}),
        ],
        elicitation_callback=answer,
        sampling_callback=sampled,
    )
    assert not elicited.is_error, text_of(elicited)
    assert "Ada Lovelace" in json.dumps(elicited.model_dump(mode="json"))
    assert asked == ["Please provide inputs for the following fields:"]
    assert not sampled_reply.is_error, text_of(sampled_reply)
    assert MODEL_SAYS in text_of(sampled_reply)


@pytest.mark.parametrize("client_era", CLIENT_ERAS)
async def test_server_everything_question_to_a_client_without_elicitation_is_refused_clearly(
    tmp_path: Path, client_era: str
) -> None:
    write_workspace(tmp_path, {"everything": everything_server()})
    (elicited,) = await execute(tmp_path, client_era, [("everything.trigger-elicitation-request", {})])
    assert elicited.is_error
    assert "asked the user a question (elicitation), which this client does not support" in text_of(elicited)


@pytest.mark.parametrize("server_era", SERVER_ERAS)
async def test_a_question_at_the_command_line_is_refused_in_one_sentence(tmp_path: Path, server_era: str) -> None:
    write_workspace(tmp_path, {"ask": asking_server(server_era)})
    done = await run_cli_async("call", "ask.greet", "--args", '{"greeting": "Hi"}', home=tmp_path)
    assert done.returncode != 0, done.stdout
    assert "'ask.greet' asked the user a question (elicitation), which this client does not support" in (
        done.stdout + done.stderr
    )
