"""The question relay across eras, with a stand-in for the gateway that asks as a downstream server would."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp_gateway.downstream.connection import ProgressCallback
from mcp_gateway.errors import QuestionNotRelayedError
from mcp_gateway.json_object import JsonObject
from mcp_gateway.origin import Origin
from mcp_gateway.questions import HELD_STATE_PREFIX, MAX_INPUT_ROUNDS, Answer, Asking, QuestionRelay, unanswerable

pytestmark = pytest.mark.anyio

FORM = types.ElicitRequest(params=types.ElicitRequestFormParams(message="Name?", requested_schema={}))
URL = types.ElicitRequest(params=types.ElicitRequestURLParams(message="Sign in", url="https://x", elicitation_id="1"))
SAMPLING = types.CreateMessageRequest(
    params=types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(text="hi"))], max_tokens=5
    )
)
SAMPLING_WITH_TOOLS = types.CreateMessageRequest(
    params=SAMPLING.params.model_copy(update={"tools": [types.Tool(name="t", input_schema={"type": "object"})]})
)
ACCEPTED = types.ElicitResult(action="accept", content={"name": "Ada"})
EVERYTHING = types.ClientCapabilities(
    elicitation=types.ElicitationCapability(
        form=types.FormElicitationCapability(), url=types.UrlElicitationCapability()
    ),
    sampling=types.SamplingCapability(tools=types.SamplingToolsCapability()),
)
WAIT_SECONDS = 10.0
"""Upper bound for any wait below: each ends on an event long before."""

Run = Callable[[Asking], Awaitable[JsonObject]]


class Caller:
    def __init__(self, *, modern: bool, capabilities: types.ClientCapabilities | None, retry: Asking | None = None):
        self.modern = modern
        self.capabilities = capabilities
        self.retry = retry or Asking()
        self.asked: list[types.InputRequest] = []

    @property
    def session(self) -> object:
        return self

    async def ask(self, request: types.InputRequest) -> Answer:
        self.asked.append(request)
        return ACCEPTED


class StandIn:
    """The gateway's `execute`, running `run` with the call's `Asking` as a downstream call would."""

    def __init__(self, run: Run) -> None:
        self._run = run
        self.calls: list[Asking] = []
        self.cancelled = anyio.Event()

    async def execute(
        self,
        tool: str,
        arguments: JsonObject,
        *,
        server: str | None = None,
        on_progress: ProgressCallback | None = None,
        asking: Asking | None = None,
        origin: Origin | None = None,
    ) -> JsonObject:
        self.calls.append(asking or Asking())
        try:
            return await self._run(asking or Asking())
        except anyio.get_cancelled_exc_class():
            self.cancelled.set()
            raise


def text(value: str) -> JsonObject:
    return {"content": [{"type": "text", "text": value}]}


def asking_for(state: str) -> JsonObject:
    """A modern server's `input_required`: one form question, keyed "who"."""
    return {
        "resultType": "input_required",
        "inputRequests": {"who": FORM.model_dump(by_alias=True)},
        "requestState": state,
    }


async def asks_like_a_handshake_era_server(asking: Asking) -> JsonObject:
    assert asking.asker is not None
    answer = await asking.asker.ask(FORM)
    return text(answer.model_dump_json(by_alias=True, exclude_none=True))


def test_what_a_client_did_not_declare_is_never_asked_of_it() -> None:
    bare = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    url_only = types.ClientCapabilities(elicitation=types.ElicitationCapability(url=types.UrlElicitationCapability()))
    plain_sampling = types.ClientCapabilities(sampling=types.SamplingCapability())
    assert unanswerable(EVERYTHING, FORM, "t") is None
    assert unanswerable(bare, FORM, "t") is None  # before modes existed, `elicitation: {}` meant forms
    assert unanswerable(url_only, FORM, "t") is not None
    assert unanswerable(bare, URL, "t") is not None
    assert unanswerable(url_only, URL, "t") is None
    assert unanswerable(plain_sampling, SAMPLING, "t") is None
    assert unanswerable(plain_sampling, SAMPLING_WITH_TOOLS, "t") is not None
    assert unanswerable(None, SAMPLING, "s.t") == (
        "'s.t' asked the client's model for a completion (sampling), which this client does not support; "
        "call it with every needed value in its arguments, or from a client that supports it."
    )
    roots = unanswerable(EVERYTHING, types.ListRootsRequest(), "t")
    assert roots is not None
    assert "which mcp-gateway does not support" in roots


async def test_a_held_call_asks_a_modern_client_through_input_required_and_its_retry_answers_it() -> None:
    stand_in = StandIn(asks_like_a_handshake_era_server)
    relay = QuestionRelay(stand_in)
    with anyio.fail_after(WAIT_SECONDS):
        async with relay.running():
            first = await relay.execute("s.t", {}, Caller(modern=True, capabilities=EVERYTHING))
            assert first["resultType"] == "input_required"
            state = first["requestState"]
            assert isinstance(state, str)
            assert state.startswith(HELD_STATE_PREFIX)
            (key,) = first["inputRequests"]
            assert first["inputRequests"][key] == FORM.model_dump(by_alias=True, mode="json", exclude_none=True)
            retry = Asking(None, {key: ACCEPTED}, state)
            final = await relay.execute("s.t", {}, Caller(modern=True, capabilities=EVERYTHING, retry=retry))
    assert final == text(ACCEPTED.model_dump_json(by_alias=True, exclude_none=True))
    assert len(stand_in.calls) == 1  # the one downstream call was held, not made again


async def test_a_held_call_whose_client_never_comes_back_is_cancelled_after_the_hold() -> None:
    stand_in = StandIn(asks_like_a_handshake_era_server)
    relay = QuestionRelay(stand_in, hold_seconds=0.05)
    with anyio.fail_after(WAIT_SECONDS):
        async with relay.running():
            first = await relay.execute("s.t", {}, Caller(modern=True, capabilities=EVERYTHING))
            await stand_in.cancelled.wait()
            retry = Asking(None, {"q1": ACCEPTED}, first["requestState"])  # pyright: ignore[reportArgumentType]
            # Right after the cancellation it says why; once its outcome is dropped too, that it is gone.
            with pytest.raises(QuestionNotRelayedError, match=r"was cancelled; call|no longer holds the call"):
                await relay.execute("s.t", {}, Caller(modern=True, capabilities=EVERYTHING, retry=retry))


async def test_a_held_call_that_ends_while_its_client_is_away_hands_its_result_to_the_retry() -> None:
    gave_up = anyio.Event()

    async def stops_waiting_for_the_answer(asking: Asking) -> JsonObject:
        assert asking.asker is not None
        with anyio.move_on_after(0.01):
            await asking.asker.ask(FORM)
        gave_up.set()
        return text("went ahead without an answer")

    relay = QuestionRelay(StandIn(stops_waiting_for_the_answer))
    with anyio.fail_after(WAIT_SECONDS):
        async with relay.running():
            first = await relay.execute("s.t", {}, Caller(modern=True, capabilities=EVERYTHING))
            await gave_up.wait()
            retry = Asking(None, {"q1": ACCEPTED}, first["requestState"])  # pyright: ignore[reportArgumentType]
            final = await relay.execute("s.t", {}, Caller(modern=True, capabilities=EVERYTHING, retry=retry))
    assert final == text("went ahead without an answer")


async def test_a_cancelled_request_cancels_the_held_call_it_waits_for() -> None:
    started = anyio.Event()

    async def runs_until_cancelled(asking: Asking) -> JsonObject:
        started.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    stand_in = StandIn(runs_until_cancelled)
    relay = QuestionRelay(stand_in)
    with anyio.fail_after(WAIT_SECONDS):
        async with relay.running():
            async with anyio.create_task_group() as group:
                no_arguments: JsonObject = {}
                group.start_soon(relay.execute, "s.t", no_arguments, Caller(modern=True, capabilities=EVERYTHING))
                await started.wait()
                group.cancel_scope.cancel()
            await stand_in.cancelled.wait()


async def test_a_modern_client_without_the_capability_is_refused_towards_the_server() -> None:
    relay = QuestionRelay(StandIn(asks_like_a_handshake_era_server))
    with anyio.fail_after(WAIT_SECONDS):
        async with relay.running():
            result = await relay.execute("s.t", {}, Caller(modern=True, capabilities=None))
    said: Any = result["content"]
    assert "asked the user a question (elicitation), which this client does not support" in said[0]["text"]


async def test_a_modern_servers_questions_are_put_to_a_handshake_era_client_and_sent_back_with_its_state() -> None:
    async def asks_once_then_answers(asking: Asking) -> JsonObject:
        if asking.input_responses is None:
            return {
                "resultType": "input_required",
                "inputRequests": {"who": FORM.model_dump(by_alias=True)},
                "requestState": "s1",
            }
        assert asking.request_state == "s1"
        return text(asking.input_responses["who"].model_dump_json(by_alias=True, exclude_none=True))

    caller = Caller(modern=False, capabilities=EVERYTHING)
    result = await QuestionRelay(StandIn(asks_once_then_answers)).execute("s.t", {}, caller)
    assert result == text(ACCEPTED.model_dump_json(by_alias=True, exclude_none=True))
    assert caller.asked == [FORM]


async def test_a_server_that_keeps_asking_is_stopped_after_the_round_limit() -> None:
    async def always_asks(asking: Asking) -> JsonObject:
        return {
            "resultType": "input_required",
            "inputRequests": {"who": FORM.model_dump(by_alias=True)},
            "requestState": "s",
        }

    stand_in = StandIn(always_asks)
    with pytest.raises(QuestionNotRelayedError, match=f"after {MAX_INPUT_ROUNDS} rounds"):
        await QuestionRelay(stand_in).execute("s.t", {}, Caller(modern=False, capabilities=EVERYTHING))
    assert len(stand_in.calls) == MAX_INPUT_ROUNDS + 1
