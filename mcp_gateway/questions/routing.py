"""Questions a handshake-era server asks while it serves a call, routed to the caller that made the call.

A server speaking a handshake-era protocol (≤ 2025-11-25) asks its client with requests of its own,
`elicitation/create` and `sampling/createMessage`, while a `tools/call` is in flight. One connection is shared
by every call to its server, and on stdio nothing in such a request names the call it belongs to, so each
call registers its `Asker` (the client session that made it, `Askers.asking`) for its duration, and a
question goes to:
- the one client session with calls in flight on the connection (a gateway serving one client, as today,
  always has exactly one);
- nobody when calls of several sessions are in flight (a daemon serving many clients, issue 15, or a
  command-line call beside a client's): the question is refused with an error saying why, since an answer
  from the wrong person is worse than none;
- nobody when no call is in flight (a server asking outside any call), or when the only caller cannot take
  questions (the command line): refused likewise, and the server decides what its call returns.

While a question waits for its answer, the deadline of each of that session's calls on the connection is
paused (a person may be reading and typing), and the question itself is bounded by `MAX_ANSWER_SECONDS`;
once it is answered each call gets back the time it had left. A call that ends (answered, failed or
cancelled) takes its unanswered questions with it: they are cancelled towards the client and refused
towards the server.

Every connection declares `elicitation` and `sampling` (`connect.py`), whoever opened it: the catalog must
list what a server offers a client that can answer (some servers list their asking tools only then), and
one connection outlives and serves many callers, so whether a question can be answered is decided per call.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

import anyio
import mcp_types as types
from mcp.client.session import ClientRequestContext

MAX_ANSWER_SECONDS = 600.0
"""How long one question may wait for its answer: a person reading a form, perhaps looking something up.
Past it the server is told no answer came, so a forgotten dialog cannot hold a call (and its server) forever."""

Answer = types.InputResponse | types.ErrorData


class Asker(Protocol):
    """Who answers a server's questions during one call: in practice the client session that made the call."""

    @property
    def session(self) -> object:
        """Identifies the client session: questions are routed per session, never across sessions."""
        ...

    async def ask(self, request: types.InputRequest) -> Answer:
        """The answer to `request`, as the client gave it, or an error saying why there is none."""
        ...


@dataclass(frozen=True)
class Asking:
    """What one call brings for questions: who answers them, and the answers to a modern server's last round."""

    asker: Asker | None = None
    input_responses: types.InputResponses | None = None
    request_state: str | None = None


class CallDeadline:
    """A call's deadline that stops running while the call's questions wait for a person."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.scope = anyio.CancelScope(deadline=anyio.current_time() + seconds)
        self._pauses = 0
        self._left = seconds

    def pause(self) -> None:
        if self._pauses == 0:
            self._left = max(0.0, self.scope.deadline - anyio.current_time())
            self.scope.deadline = math.inf
        self._pauses += 1

    def resume(self) -> None:
        self._pauses -= 1
        if self._pauses == 0:
            self.scope.deadline = anyio.current_time() + self._left


@dataclass(eq=False)
class _Call:
    asker: Asker | None
    deadline: CallDeadline
    ended: anyio.Event = field(default_factory=anyio.Event)


def refusal(message: str) -> types.ErrorData:
    """What a server hears when its question cannot be put to anyone (the SDK's own code for it)."""
    return types.ErrorData(code=types.INVALID_REQUEST, message=message)


class Askers:
    """The calls in flight on one connection, who answers their questions, and the callbacks its client runs."""

    def __init__(self, server: str) -> None:
        self._server = server
        self._calls: list[_Call] = []

    @contextmanager
    def asking(self, asker: Asker | None, seconds: float) -> Generator[CallDeadline]:
        """The deadline of one call; its questions go to `asker` while it runs (None: nobody can answer them)."""
        call = _Call(asker, CallDeadline(seconds))
        self._calls.append(call)
        try:
            yield call.deadline
        finally:
            self._calls.remove(call)
            call.ended.set()

    async def on_elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        answer = await self.route(types.ElicitRequest(params=params))
        return answer if isinstance(answer, types.ElicitResult | types.ErrorData) else _mismatch("elicitation")

    async def on_sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
        answer = await self.route(types.CreateMessageRequest(params=params))
        if isinstance(answer, types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData):
            return answer
        return _mismatch("sampling")

    async def route(self, request: types.InputRequest) -> Answer:
        """Put `request` to the session whose calls are in flight, pausing their deadlines meanwhile."""
        calls = list(self._calls)
        askers = [call.asker for call in calls if call.asker is not None]
        if not calls:
            return refusal(
                f"mcp-gateway has no call in flight to server '{self._server}' that this request could belong "
                "to; send it only while serving a tool call."
            )
        if (len(askers) < len(calls) and len(calls) > 1) or len({id(asker.session) for asker in askers}) > 1:
            return refusal(
                f"mcp-gateway has calls of several callers in flight to server '{self._server}' and cannot tell "
                "which one this request belongs to; send it again when only one caller's call is in flight."
            )
        if not askers:
            return refusal(
                "The caller of this tool call (mcp-gateway's command line, or a client request that cannot take "
                "questions) has nobody to put this request to; carry on without it or fail the call saying what "
                "argument is needed."
            )
        for call in calls:
            call.deadline.pause()
        try:
            return await self._ask_until_calls_end(calls, askers[-1], request)
        finally:
            for call in calls:
                call.deadline.resume()

    async def _ask_until_calls_end(self, calls: list[_Call], asker: Asker, request: types.InputRequest) -> Answer:
        answer: Answer = refusal(
            f"The tool call to server '{self._server}' that this request belongs to ended before its caller "
            "answered; the request was withdrawn."
        )
        async with anyio.create_task_group() as group:

            async def withdraw_when_calls_end() -> None:
                for call in calls:
                    await call.ended.wait()
                group.cancel_scope.cancel()

            group.start_soon(withdraw_when_calls_end)
            with anyio.move_on_after(MAX_ANSWER_SECONDS) as bounded:
                answer = await asker.ask(request)
            if bounded.cancelled_caught:
                answer = refusal(
                    f"The caller gave no answer within {MAX_ANSWER_SECONDS:g}s, mcp-gateway's limit for one "
                    "request; it was withdrawn."
                )
            group.cancel_scope.cancel()
        return answer


def _mismatch(kind: str) -> types.ErrorData:
    return types.ErrorData(code=types.INTERNAL_ERROR, message=f"The client answered a {kind} request with another kind")
