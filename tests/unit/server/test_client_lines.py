"""The client's lines before and after the front's pipe takes over: answered early, kept in order, none lost.

Over two pipes, as the process's stdin and stdout would be; every wait is bounded by STEP_SECONDS.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from mcp_gateway.front.client_lines import ClientLines
from mcp_gateway.front.early_answers import EarlyAnswers, Handshake
from mcp_gateway.service.surface import meta_tool_definitions

STEP_SECONDS = 10.0
"""Generous bound for the reader thread to get to a line."""
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
)
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
TOOLS_LIST = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
PING = b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n'


class Taken:
    """What the session was given after taking over, as the reader thread gives it."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.ended = threading.Event()
        self._arrived = threading.Condition()

    def take(self, line: bytes) -> None:
        with self._arrived:
            self.lines.append(line)
            self._arrived.notify_all()

    def wait_for(self, count: int) -> list[bytes]:
        with self._arrived:
            assert self._arrived.wait_for(lambda: len(self.lines) >= count, STEP_SECONDS)
            return list(self.lines)


def wait_for_backlog(lines: ClientLines, count: int) -> list[bytes]:
    """The reader's backlog once it holds `count` lines (read without taking over)."""
    deadline = time.monotonic() + STEP_SECONDS
    while len(lines._backlog) < count:  # pyright: ignore[reportPrivateUsage]  # the reader's own state, watched
        assert time.monotonic() < deadline, "the reader never got to the lines"
        time.sleep(0.01)
    return list(lines._backlog)  # pyright: ignore[reportPrivateUsage]


@contextmanager
def client_lines(*, early: bool = True, max_line_bytes: int = 4096) -> Generator[tuple[int, Any, ClientLines]]:
    gateway_reads, client_writes = os.pipe()
    client_reads, gateway_writes = os.pipe()
    answers = EarlyAnswers(Handshake("instructions", meta_tool_definitions())) if early else None
    reads = os.fdopen(client_reads, "rb")
    lines = ClientLines(gateway_reads, gateway_writes, answers, max_line_bytes)
    try:
        yield client_writes, reads, lines
    finally:
        for fd in (client_writes, gateway_writes):
            with contextlib.suppress(OSError):  # closed by the test
                os.close(fd)
        reads.close()


def test_the_handshake_is_answered_before_the_session_takes_over_and_every_line_is_kept_in_order() -> None:
    with client_lines() as (writes, reads, lines):
        os.write(writes, INITIALIZE)
        assert json.loads(reads.readline())["id"] == 1
        assert lines.early is not None
        assert not lines.early.over, "tools/list is still to come"
        os.write(writes, INITIALIZED + TOOLS_LIST)
        assert json.loads(reads.readline())["id"] == 2
        assert lines.early.over
        os.write(writes, PING)
        taken = Taken()
        backlog, ended = lines.hand_over(taken.take, taken.ended.set)
        assert not ended
        assert backlog[:3] == [INITIALIZE, INITIALIZED, TOOLS_LIST], "every line, answered early or not"
        rest = taken.wait_for(4 - len(backlog))  # the ping may have reached the reader after the handover
        assert [*backlog, *rest] == [INITIALIZE, INITIALIZED, TOOLS_LIST, PING]


def test_lines_after_the_handover_go_to_the_session_in_order_and_so_does_the_end() -> None:
    with client_lines() as (writes, _reads, lines):
        taken = Taken()
        assert lines.hand_over(taken.take, taken.ended.set) == ([], False)
        os.write(writes, INITIALIZE + PING)
        assert taken.wait_for(2) == [INITIALIZE, PING], "after the handover the pipe answers, not the reader"
        os.close(writes)
        assert taken.ended.wait(STEP_SECONDS)


def test_stdin_ending_before_the_handover_is_told_with_the_backlog() -> None:
    with client_lines() as (writes, _reads, lines):
        os.write(writes, INITIALIZED)
        os.close(writes)
        deadline = time.monotonic() + STEP_SECONDS
        while not lines._ended:  # pyright: ignore[reportPrivateUsage]  # the reader's own state, watched
            assert time.monotonic() < deadline, "stdin's end never reached the reader"
            time.sleep(0.01)
        taken = Taken()
        assert lines.hand_over(taken.take, taken.ended.set) == ([INITIALIZED], True)
        assert not taken.ended.is_set(), "the end was told once, by the handover"


def test_a_request_other_than_the_handshake_ends_early_answering() -> None:
    with client_lines() as (writes, reads, lines):
        os.write(writes, PING + INITIALIZE)
        taken = Taken()
        backlog = wait_for_backlog(lines, 2)
        assert backlog == [PING, INITIALIZE]
        assert lines.early is not None
        assert lines.early.over
        lines.hand_over(taken.take, taken.ended.set)
        os.close(lines.wire_out)
        assert reads.read() == b"", "a session that began otherwise is the daemon's to answer"


def test_without_early_answers_nothing_is_written() -> None:
    with client_lines(early=False) as (writes, reads, lines):
        os.write(writes, INITIALIZE)
        os.close(writes)
        taken = Taken()
        backlog, _ = lines.hand_over(taken.take, taken.ended.set)
        assert [*backlog, *taken.wait_for(1 - len(backlog))] == [INITIALIZE]
        os.close(lines.wire_out)
        assert reads.read() == b"", "no early answer was written"


def test_a_client_that_reads_nothing_more_stops_early_answering_but_not_reading() -> None:
    with client_lines() as (writes, reads, lines):
        reads.close()  # the client's end of our stdout: writing to it now fails
        os.write(writes, INITIALIZE)
        wait_for_backlog(lines, 1)
        assert lines.early is not None
        assert lines.early.over, "nothing more can be answered early"
        os.write(writes, PING)
        os.close(writes)
        taken = Taken()
        backlog, ended = lines.hand_over(taken.take, taken.ended.set)
        assert [*backlog, *taken.wait_for(2 - len(backlog))] == [INITIALIZE, PING]
        assert ended or taken.ended.wait(STEP_SECONDS)


def test_a_line_past_the_bound_is_answered_here_under_its_id_and_never_given_to_the_session() -> None:
    with client_lines(early=False, max_line_bytes=1000) as (writes, reads, lines):
        taken = Taken()
        lines.hand_over(taken.take, taken.ended.set)
        first_id = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"text":"' + b"x" * 5000
        last_id = b'{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"text":"' + b"y" * 5000

        def send() -> None:  # bigger than a pipe holds: written while the reader reads past it
            os.write(writes, first_id + b'"}}}\n' + last_id + b'"}},"id":"late"}\n' + PING)

        writer = threading.Thread(target=send)
        writer.start()
        refusals = [json.loads(reads.readline()) for _ in range(2)]
        writer.join(STEP_SECONDS)
        assert [refused["id"] for refused in refusals] == [7, "late"]
        assert refusals[0]["error"]["code"] == -32600
        assert "more than the 1000 the gateway reads in one" in refusals[0]["error"]["message"]
        assert f"this message is {len(first_id) + 4} bytes" in refusals[0]["error"]["message"]
        assert taken.wait_for(1) == [PING], "the lines around them go on, the long ones never do"
