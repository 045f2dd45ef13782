"""A tool's questions to its caller (elicitation, sampling), relayed across both protocol eras.

A server asks during a call in one of two ways: a handshake-era one (≤ 2025-11-25) sends its own request
(`elicitation/create`, `sampling/createMessage`) while the call runs; a 2026-07-28 one answers the call with
an `input_required` result (`inputRequests`, `requestState`) and expects the call again with `inputResponses`.
The gateway's client speaks one era or the other too, so `QuestionRelay.execute` covers the four pairings:

- both handshake-era: the client session is the call's `Asker` (`routing.py`), so the server's
  request reaches it during the call and its answer goes back unchanged;
- modern server, handshake-era client: the gateway puts each input request to the client as a request of
  its own, then calls again with the answers and the server's `requestState`, at most `MAX_INPUT_ROUNDS`;
- both modern: the `input_required` result passes through `execute_tool` as the server sent it, and the
  client's retry of `execute_tool` brings `inputResponses` and `requestState` that go to the server unchanged;
- handshake-era server, modern client: the server's request is pending inside a running call, and the
  client can only answer through a retry. The call is *held*: it runs on in the relay's task group, the
  client gets `input_required` with the question and a `requestState` naming the held call
  (`HELD_STATE_PREFIX`), and its retry hands the answers to the waiting request. A held call waits for
  its client at most `MAX_ANSWER_SECONDS` (then it is cancelled on the server); a retry that is cancelled
  cancels it too. Holding is sound because the call's own deadline is paused while its question waits
  (`asking.CallDeadline`) and every wait is bounded; a relay that is not running (no task group) refuses
  the question instead.

A client that did not declare what a question needs (`elicitation`, its form or url mode, `sampling`, its
tools) is never sent it: the server hears a refusal, or the call ends with a `QuestionNotRelayedError`.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT as ProgressCallback
from pydantic import ValidationError

from mcp_gateway.bounds import MAX_DOWNSTREAM_MESSAGE_CHARS, MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.errors import QuestionNotRelayedError
from mcp_gateway.json_object import JsonObject
from mcp_gateway.origin import Origin
from mcp_gateway.questions.routing import MAX_ANSWER_SECONDS, Answer, Asker, Asking, refusal

INPUT_REQUIRED = "input_required"
MAX_INPUT_ROUNDS = 10
"""Rounds of `input_required` one call may take: the SDK's (and the TypeScript SDK's) default cap."""
HELD_STATE_PREFIX = "mcp-gateway.held."
"""Starts the `requestState` of a held call, telling a retry that continues it from a server's own state."""


class Executor(Protocol):
    """What runs the calls: the `Gateway` (a seam for tests, which hold calls without starting servers)."""

    async def execute(
        self,
        tool: str,
        arguments: JsonObject,
        *,
        server: str | None = None,
        on_progress: ProgressCallback | None = None,
        asking: Asking | None = None,
        origin: Origin | None = None,
    ) -> JsonObject: ...


class Caller(Asker, Protocol):
    """The client session behind one `execute_tool` request, as the relay needs it."""

    @property
    def modern(self) -> bool:
        """It speaks 2026-07-28 or later: questions reach it only as `input_required` results."""
        ...

    @property
    def capabilities(self) -> types.ClientCapabilities | None: ...

    @property
    def retry(self) -> Asking:
        """The `inputResponses` and `requestState` its request carried (a modern client's retry)."""
        ...


def unanswerable(capabilities: types.ClientCapabilities | None, request: types.InputRequest, tool: str) -> str | None:
    """Why a client with `capabilities` cannot be asked `request`, in one sentence; None when it can."""
    missing = _missing(capabilities, request)
    if missing is None:
        return None
    what, who = missing
    return (
        f"'{clip(tool, MAX_ECHOED_NAME_CHARS)}' asked {what}, which {who} does not support; "
        "call it with every needed value in its arguments, or from a client that supports it."
    )


def _missing(capabilities: types.ClientCapabilities | None, request: types.InputRequest) -> tuple[str, str] | None:
    """What `request` asks for and who lacks it, when the client cannot be asked it."""
    if isinstance(request, types.ElicitRequest):
        elicitation = capabilities.elicitation if capabilities is not None else None
        if isinstance(request.params, types.ElicitRequestURLParams):
            url_ok = elicitation is not None and elicitation.url is not None
            return None if url_ok else ("to send the user to a web page (url elicitation)", "this client")
        # A bare `elicitation: {}` (the only shape before modes existed) means form support.
        form_ok = elicitation is not None and (elicitation.form is not None or elicitation.url is None)
        return None if form_ok else ("the user a question (elicitation)", "this client")
    if isinstance(request, types.CreateMessageRequest):
        sampling = capabilities.sampling if capabilities is not None else None
        wants_tools = request.params.tools is not None or request.params.tool_choice is not None
        sampling_ok = sampling is not None and (not wants_tools or sampling.tools is not None)
        return None if sampling_ok else ("the client's model for a completion (sampling)", "this client")
    return ("for the client's roots", "mcp-gateway")


@dataclass(frozen=True)
class _Checked:
    """A handshake-era client as a call's asker: never sent what it did not declare it can answer."""

    caller: Caller
    tool: str

    @property
    def session(self) -> object:
        return self.caller.session

    async def ask(self, request: types.InputRequest) -> Answer:
        reason = unanswerable(self.caller.capabilities, request, self.tool)
        return refusal(reason) if reason is not None else await self.caller.ask(request)


@dataclass(eq=False)
class _Parked:
    request: types.InputRequest
    answer: Answer | None = None
    answered: anyio.Event = field(default_factory=anyio.Event)


@dataclass(eq=False)
class _Held:
    """A call kept running across its modern client's `input_required` rounds."""

    token: str
    tool: str
    caller: Caller
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    parked: dict[str, _Parked] = field(default_factory=dict[str, _Parked])
    news: anyio.Event = field(default_factory=anyio.Event)
    finished: bool = False
    result: JsonObject | None = None
    error: Exception | None = None
    progress: ProgressCallback | None = None
    """The progress callback of the client request now waiting for it; None between requests."""
    asked: int = 0
    collected: anyio.Event = field(default_factory=anyio.Event)
    """Set once a client request has taken its outcome."""

    @property
    def session(self) -> object:
        return self.caller.session

    async def ask(self, request: types.InputRequest) -> Answer:
        """Park `request` until the client's retry answers it (`deliver`)."""
        reason = unanswerable(self.caller.capabilities, request, self.tool)
        if reason is not None:
            return refusal(reason)
        self.asked += 1
        key = f"q{self.asked}"
        parked = self.parked[key] = _Parked(request)
        self.news.set()
        try:
            await parked.answered.wait()
        finally:
            del self.parked[key]
        return parked.answer or refusal("The client's answer was lost.")

    def deliver(self, responses: types.InputResponses) -> None:
        for key, response in responses.items():
            parked = self.parked.get(key)
            if parked is not None and not parked.answered.is_set():
                parked.answer = response
                parked.answered.set()

    async def forward_progress(self, progress: float, total: float | None, message: str | None) -> None:
        if self.progress is not None:
            await self.progress(progress, total, message)


class Nobody:
    """The caller at the command line: a person running one call, with no way to be asked during it."""

    modern = False
    capabilities = None
    retry = Asking()

    @property
    def session(self) -> object:
        return self

    async def ask(self, request: types.InputRequest) -> Answer:
        return refusal("mcp-gateway's command line cannot answer questions during a call.")


class QuestionRelay:
    """`execute_tool` with its tool's questions relayed to the client that called it (see the module)."""

    def __init__(
        self, gateway: Executor, origin: Origin | None = None, *, hold_seconds: float = MAX_ANSWER_SECONDS
    ) -> None:
        """Every call runs for `origin`, the session's (None: the gateway's own; a daemon serves every session
        over one gateway and the origin decides which process serves a call, so it is passed on every call,
        never read from anything shared). `hold_seconds`: how long a held call waits for its client's retry (a
        seam for tests)."""
        self._gateway = gateway
        self._origin = origin
        self._hold_seconds = hold_seconds
        self._held: dict[str, _Held] = {}
        self._group: anyio.abc.TaskGroup | None = None

    @asynccontextmanager
    async def running(self) -> AsyncGenerator[dict[str, Any]]:
        """While entered, calls can be held; leaving cancels every held call (the client has gone)."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield {}
            finally:
                self._group = None
                group.cancel_scope.cancel()

    async def execute(
        self,
        tool: str,
        arguments: JsonObject,
        caller: Caller,
        *,
        server: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> JsonObject:
        if not caller.modern:
            return await self._for_handshake_era(tool, arguments, caller, server, on_progress)
        state = caller.retry.request_state
        if state is not None and state.startswith(HELD_STATE_PREFIX):
            held = self._held.get(state)
            if held is None:
                raise QuestionNotRelayedError(
                    f"mcp-gateway no longer holds the call to '{clip(tool, MAX_ECHOED_NAME_CHARS)}' this answer "
                    f"belongs to (it ended, or waited more than {self._hold_seconds:g}s for it); call the tool again."
                )
            held.deliver(caller.retry.input_responses or {})
            return await self._next(held, on_progress)
        if self._group is None:
            result = await self._gateway.execute(
                tool,
                arguments,
                server=server,
                on_progress=on_progress,
                asking=_without_asker(caller.retry),
                origin=self._origin,
            )
            return self._passed_through(result, caller, tool)
        held = _Held(f"{HELD_STATE_PREFIX}{uuid.uuid4().hex}", tool, caller)
        self._held[held.token] = held
        asking = Asking(held, caller.retry.input_responses, caller.retry.request_state)
        self._group.start_soon(self._run, held, arguments, server, asking)
        return await self._next(held, on_progress)

    async def _for_handshake_era(
        self, tool: str, arguments: JsonObject, caller: Caller, server: str | None, on_progress: ProgressCallback | None
    ) -> JsonObject:
        asking = Asking(_Checked(caller, tool))
        for _ in range(MAX_INPUT_ROUNDS + 1):
            result = await self._gateway.execute(
                tool, arguments, server=server, on_progress=on_progress, asking=asking, origin=self._origin
            )
            if result.get("resultType") != INPUT_REQUIRED:
                return result
            wanted = _input_required(result, tool)
            answers: types.InputResponses = {}
            for key, request in (wanted.input_requests or {}).items():
                answers[key] = await self._answer(caller, request, tool)
            asking = Asking(_Checked(caller, tool), answers or None, wanted.request_state)
        raise QuestionNotRelayedError(
            f"'{clip(tool, MAX_ECHOED_NAME_CHARS)}' kept asking for input after {MAX_INPUT_ROUNDS} rounds of answers, "
            "so mcp-gateway stopped it; call it with every needed value in its arguments."
        )

    async def _answer(self, caller: Caller, request: types.InputRequest, tool: str) -> types.InputResponse:
        reason = unanswerable(caller.capabilities, request, tool)
        if reason is not None:
            raise QuestionNotRelayedError(reason)
        with anyio.move_on_after(MAX_ANSWER_SECONDS):
            answer = await caller.ask(request)
            if isinstance(answer, types.ErrorData):
                said = clip(answer.message, MAX_DOWNSTREAM_MESSAGE_CHARS)
                raise QuestionNotRelayedError(
                    f"The client refused the question of '{clip(tool, MAX_ECHOED_NAME_CHARS)}' ({said}); "
                    "call the tool with every needed value in its arguments."
                )
            return answer
        raise QuestionNotRelayedError(
            f"The client gave no answer to the question of '{clip(tool, MAX_ECHOED_NAME_CHARS)}' within "
            f"{MAX_ANSWER_SECONDS:g}s; call the tool again when someone can answer."
        )

    async def _run(self, held: _Held, arguments: JsonObject, server: str | None, asking: Asking) -> None:
        try:
            with held.scope:
                held.result = await self._gateway.execute(
                    held.tool,
                    arguments,
                    server=server,
                    on_progress=held.forward_progress,
                    asking=asking,
                    origin=self._origin,
                )
        except Exception as exc:  # handed to the request waiting for it, which raises it there
            held.error = exc
        finally:
            held.finished = True
            held.news.set()
        if held.progress is None:
            # Its client was handed a question and is not back yet: its retry still gets the outcome, for a while.
            with anyio.move_on_after(self._hold_seconds):
                await held.collected.wait()
        self._held.pop(held.token, None)

    async def _next(self, held: _Held, on_progress: ProgressCallback | None) -> JsonObject:
        """What the client hears next from a held call: its result, or its questions as `input_required`."""
        held.scope.deadline = math.inf  # a client request is waiting: the hold's bound no longer runs
        held.progress = on_progress or _no_progress
        try:
            while True:
                if held.finished:
                    held.collected.set()
                    self._held.pop(held.token, None)
                    if held.error is not None:
                        raise held.error
                    if held.result is None:
                        raise QuestionNotRelayedError(
                            f"The call to '{clip(held.tool, MAX_ECHOED_NAME_CHARS)}' waited more than "
                            f"{self._hold_seconds:g}s for its answer and was cancelled; call the tool again."
                        )
                    return self._passed_through(held.result, held.caller, held.tool)
                waiting = {key: parked for key, parked in held.parked.items() if not parked.answered.is_set()}
                if waiting:
                    held.scope.deadline = anyio.current_time() + self._hold_seconds
                    return _asking_for(waiting, held.token)
                held.news = anyio.Event()
                await held.news.wait()
        except anyio.get_cancelled_exc_class():
            held.scope.cancel()  # the client cancelled its request: the call it continues goes too
            self._held.pop(held.token, None)
            raise
        finally:
            held.progress = None

    def _passed_through(self, result: JsonObject, caller: Caller, tool: str) -> JsonObject:
        """A modern server's `input_required` goes to a modern client as sent, if it can answer every request."""
        if result.get("resultType") == INPUT_REQUIRED:
            for request in (_input_required(result, tool).input_requests or {}).values():
                reason = unanswerable(caller.capabilities, request, tool)
                if reason is not None:
                    raise QuestionNotRelayedError(reason)
        return result


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    """A waiting request whose client asked for no progress."""


def _without_asker(retry: Asking) -> Asking:
    return Asking(None, retry.input_responses, retry.request_state)


def _input_required(result: JsonObject, tool: str) -> types.InputRequiredResult:
    try:
        return types.InputRequiredResult.model_validate(result)
    except ValidationError as exc:
        raise QuestionNotRelayedError(
            f"'{clip(tool, MAX_ECHOED_NAME_CHARS)}' asked for input in a form mcp-gateway cannot read "
            f"({exc.error_count()} problems); call it with every needed value in its arguments."
        ) from exc


def _asking_for(waiting: dict[str, _Parked], token: str) -> JsonObject:
    requests = {
        key: parked.request.model_dump(by_alias=True, mode="json", exclude_none=True) for key, parked in waiting.items()
    }
    return {"resultType": INPUT_REQUIRED, "inputRequests": requests, "requestState": token}
