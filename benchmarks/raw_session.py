"""A session with a real gateway front driven by hand-written JSON-RPC lines over its stdio, in blocking I/O on
the caller's thread, every wait bounded.

For benchmarks that send or receive lines no SDK client should have to build or parse on the measuring side: a
50 MB request is written as the bytes it is (built once, never encoded by `json`), and a 10 MB answer is read
whole but only looked at where its id and its error flag are (`summarize`), so that one session's load does not
hold the interpreter while another session's thread takes its timings. Reads and writes go through `select`
with a deadline; a session is closed by closing its stdin, and killed when it does not leave in time.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, cast

PROTOCOL_VERSION = "2025-11-25"
CHUNK_BYTES = 1024 * 1024
PARSED_BYTES = 1024 * 1024
"""A line up to this long is parsed whole; a longer one only where its id and error flag are."""
EDGE_BYTES = 64 * 1024
"""How much of each end of a long line is searched for its id and error flag."""
CLOSE_SECONDS = 15.0
_ID = re.compile(rb'"id"\s*:\s*(-?\d+)')
_TEXT_HEAD_CHARS = 200


class RawSessionError(Exception):
    """The session could not go on: the front left, or a deadline passed."""


@dataclass(frozen=True)
class Reply:
    """What one response line said, as far as a benchmark needs to know."""

    request_id: int | None
    size: int
    """The line's length in bytes, newline included."""
    error: bool
    """A JSON-RPC error, or a tool result flagged `isError`."""
    head: str
    """The error's message or the result's first text, clipped; for a long line, its first characters."""


def summarize(line: bytes) -> Reply:
    """The id, size and error flag of a response line, without parsing a long one."""
    if len(line) <= PARSED_BYTES:
        try:
            message = cast(dict[str, Any], json.loads(line))
        except ValueError:
            return Reply(None, len(line), True, line[:_TEXT_HEAD_CHARS].decode(errors="replace"))
        raw_id = message.get("id")
        request_id = raw_id if isinstance(raw_id, int) else None
        if isinstance(error := message.get("error"), dict):
            return Reply(request_id, len(line), True, str(cast(dict[str, Any], error).get("message", ""))[:200])
        result = cast(dict[str, Any], message.get("result") or {})
        content = cast(list[dict[str, Any]], result.get("content") or [])
        text = next((str(item.get("text", "")) for item in content if item.get("type") == "text"), "")
        return Reply(request_id, len(line), bool(result.get("isError")), text[:_TEXT_HEAD_CHARS])
    head, tail = line[:EDGE_BYTES], line[-EDGE_BYTES:]
    found = _ID.search(head) or _ID.search(tail)
    error = b'"error":' in head.replace(b" ", b"") or b'"isError":true' in tail.replace(b" ", b"")
    return Reply(
        int(found.group(1)) if found else None, len(line), error, head[:_TEXT_HEAD_CHARS].decode(errors="replace")
    )


def request_line(request_id: int, method: str, params: Mapping[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = dict(params)
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def tool_call_with_text(request_id: int, tool: str, argument: str, body: bytes) -> list[bytes]:
    """`execute_tool` of `tool` whose one string argument is `body` (plain letters: nothing to escape), as the
    parts of one line, to be sent in turn; id first (as clients write it, so that a gateway refusing the line
    unread can still answer its id). `body` is sent as it is: one large bytes object serves every request."""
    head = request_line(request_id, "tools/call", {"name": "execute_tool", "arguments": {"tool": tool}})
    opening = head.rstrip(b"\n")[: -len(b"}}}")]  # ...,"arguments":{"tool":"x"  -- then the arguments
    return [opening + b',"arguments":{' + json.dumps(argument).encode() + b':"', body, b'"}}}}\n']


class RawSession:
    """One front, started as `argv` with `env`, its stderr to `stderr`."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], stderr: IO[str]) -> None:
        self.process = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=dict(env), bufsize=0
        )
        self._in = cast(IO[bytes], self.process.stdin).fileno()
        self._out = cast(IO[bytes], self.process.stdout).fileno()
        os.set_blocking(self._in, False)
        self._buffer = bytearray()
        self._next_id = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def initialize(self, seconds: float) -> Reply:
        client = {"name": "mcp-gateway-benchmark", "version": "1"}
        params = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": client}
        reply = self.call("initialize", params, seconds=seconds)
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n", seconds)
        return reply

    def call(self, method: str, params: Mapping[str, Any] | None = None, *, seconds: float) -> Reply:
        request_id = self.next_id()
        return self.exchange([request_line(request_id, method, params)], request_id, seconds)

    def execute(self, tool: str, arguments: Mapping[str, Any], *, seconds: float) -> Reply:
        return self.call(
            "tools/call", {"name": "execute_tool", "arguments": {"tool": tool, "arguments": arguments}}, seconds=seconds
        )

    def exchange(self, parts: Sequence[bytes], request_id: int, seconds: float) -> Reply:
        """Send the line made of `parts` (a request with `request_id`) and read until its response; other lines
        (notifications, requests of the gateway) are skipped."""
        deadline = time.monotonic() + seconds
        for part in parts:
            self.send(part, deadline - time.monotonic())
        while True:
            reply = summarize(self.read_line(deadline - time.monotonic()))
            if reply.request_id == request_id:
                return reply

    def send(self, data: bytes, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        view = memoryview(data)
        while view:
            _, writable, _ = select.select([], [self._in], [], max(0.0, deadline - time.monotonic()))
            if not writable:
                raise RawSessionError(f"the front (pid {self.pid}) took no input for {seconds:g} s")
            try:
                view = view[os.write(self._in, view[:CHUNK_BYTES]) :]
            except BlockingIOError:
                continue
            except BrokenPipeError as error:
                raise RawSessionError(f"the front (pid {self.pid}) closed its stdin") from error

    def read_line(self, seconds: float) -> bytes:
        deadline = time.monotonic() + seconds
        searched = 0  # only new bytes are searched for the newline: a 10 MB line is scanned once
        while (end := self._buffer.find(b"\n", searched)) < 0:
            searched = len(self._buffer)
            readable, _, _ = select.select([self._out], [], [], max(0.0, deadline - time.monotonic()))
            if not readable:
                raise RawSessionError(f"the front (pid {self.pid}) said nothing for {seconds:g} s")
            chunk = os.read(self._out, CHUNK_BYTES)
            if not chunk:
                raise RawSessionError(f"the front (pid {self.pid}) exited (status {self.process.poll()})")
            self._buffer += chunk
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    def close(self) -> None:
        """Close stdin (the client leaves) and wait for the front to exit; kill it when it does not."""
        with contextlib.suppress(OSError):
            cast(IO[bytes], self.process.stdin).close()
        try:
            self.process.wait(timeout=CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        with contextlib.suppress(OSError):
            cast(IO[bytes], self.process.stdout).close()
