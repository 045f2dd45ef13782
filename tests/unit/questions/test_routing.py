"""Routing a server's question to the caller of the call in flight, and the call deadline that pauses meanwhile."""

from __future__ import annotations

import math

import anyio
import mcp_types as types
import pytest

from mcp_gateway.questions import Answer, Askers, CallDeadline

pytestmark = pytest.mark.anyio

QUESTION = types.ElicitRequest(params=types.ElicitRequestFormParams(message="Name?", requested_schema={}))
ACCEPTED = types.ElicitResult(action="accept", content={"name": "Ada"})
WAIT_SECONDS = 10.0
"""Upper bound for any wait below: every one ends on an event long before."""


class Person:
    """An asker for one session that answers at once, or when `release` is set."""

    def __init__(self, session: object, release: anyio.Event | None = None) -> None:
        self._session = session
        self._release = release
        self.asked: list[types.InputRequest] = []
        self.waiting = anyio.Event()

    @property
    def session(self) -> object:
        return self._session

    async def ask(self, request: types.InputRequest) -> Answer:
        self.asked.append(request)
        self.waiting.set()
        if self._release is not None:
            await self._release.wait()
        return ACCEPTED


async def test_a_question_goes_to_the_one_caller_in_flight_and_its_answer_comes_back_unchanged() -> None:
    askers = Askers("srv")
    person = Person(session=object())
    with askers.asking(person, 5.0):
        assert await askers.route(QUESTION) == ACCEPTED
    assert person.asked == [QUESTION]


async def test_calls_of_one_session_share_it_and_calls_of_two_sessions_are_refused_as_ambiguous() -> None:
    askers = Askers("srv")
    session = object()
    first, second, stranger = Person(session), Person(session), Person(object())
    with askers.asking(first, 5.0), askers.asking(second, 5.0):
        assert await askers.route(QUESTION) == ACCEPTED
        with askers.asking(stranger, 5.0):
            refused = await askers.route(QUESTION)
    assert isinstance(refused, types.ErrorData)
    assert "several callers" in refused.message
    assert stranger.asked == []


async def test_no_call_in_flight_or_a_caller_that_cannot_be_asked_is_refused_with_a_reason() -> None:
    askers = Askers("srv")
    outside = await askers.route(QUESTION)
    with askers.asking(None, 5.0):
        nobody = await askers.route(QUESTION)
    assert isinstance(outside, types.ErrorData)
    assert "no call in flight to server 'srv'" in outside.message
    assert isinstance(nobody, types.ErrorData)
    assert "has nobody to put this request to" in nobody.message


async def test_the_deadline_stops_running_while_the_question_waits_and_resumes_with_the_time_left() -> None:
    askers = Askers("srv")
    release = anyio.Event()
    person = Person(object(), release)
    with anyio.fail_after(WAIT_SECONDS), askers.asking(person, 5.0) as deadline:
        left_before = deadline.scope.deadline - anyio.current_time()
        async with anyio.create_task_group() as group:
            group.start_soon(askers.route, QUESTION)
            await person.waiting.wait()
            assert deadline.scope.deadline == math.inf
            release.set()
        left_after = deadline.scope.deadline - anyio.current_time()
    assert 0 < left_after <= left_before <= 5.0


async def test_a_call_that_ends_withdraws_its_unanswered_question() -> None:
    askers = Askers("srv")
    person = Person(object(), release=anyio.Event())  # never released: only the call's end can stop it
    answers: list[Answer] = []

    async def route() -> None:
        answers.append(await askers.route(QUESTION))

    with anyio.fail_after(WAIT_SECONDS):
        async with anyio.create_task_group() as group:
            with askers.asking(person, 5.0):
                group.start_soon(route)
                await person.waiting.wait()
    assert isinstance(answers[0], types.ErrorData)
    assert "ended before its caller answered" in answers[0].message


async def test_nested_pauses_resume_only_when_the_last_question_is_answered() -> None:
    deadline = CallDeadline(5.0)
    deadline.pause()
    deadline.pause()
    deadline.resume()
    assert deadline.scope.deadline == math.inf
    deadline.resume()
    assert deadline.scope.deadline < math.inf
