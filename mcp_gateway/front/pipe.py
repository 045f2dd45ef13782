"""The session front: what a client starts as `mcp-gateway`, a byte pipe between its stdio and the daemon.

Standard library only. With the workspace's daemon running, a client's connect costs this module, the
rendezvous and one hello: no MCP SDK, no pydantic, no catalog. The front says hello (its environment and
working directory), reads the daemon's answer, and then copies whole lines, stdin to the socket and the
socket to stdout, until the client leaves: the daemon speaks MCP to the client through it. The client's
`initialize` and `tools/list` are answered by the front itself from the handshake it has (`early_answers`)
and still passed on: the daemon's session sees the whole handshake, and its own answers to those two are
dropped (`settle`). The same holds whether the daemon is the workspace's shared one or a private one.

- The client closing stdin shuts the socket's writing half; the daemon ends the session and closes (a
  private daemon once it has stopped its servers), and the front exits 0. A stop signal ends the front at
  once: the socket closes and the daemon cancels the session's calls (a private one stops every server
  urgently).
- The daemon going away mid-session (a crash, a kill) is seen as the socket's end while the client is still
  there. Every request the client has in flight is answered with a JSON-RPC error saying so, and the front
  reaches a daemon again (starting a fresh one) and replays the client's handshake to it, swallowing the
  answer: the client's next request is served as if nothing had happened.
- A daemon that stops answering (stopped, deadlocked, its machine swapping) is found out by a ping sent once
  a request has waited `QUIET_SECONDS` with nothing from it: unanswered for `PING_SECONDS`, it is left as a
  lost one is, and the session goes on through another daemon.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, cast

from mcp_gateway.front.client_lines import ClientLines
from mcp_gateway.front.early_answers import EarlyAnswers
from mcp_gateway.front.hello import HELLO_SECONDS, MAX_HELLO_BYTES, Answer, BadHello, Hello
from mcp_gateway.front.private_files import write_all
from mcp_gateway.front.rendezvous import POLL_SECONDS, START_SECONDS, NoRendezvous

CHUNK_BYTES = 64 * 1024
DAEMON_LOST = -32000
"""The JSON-RPC server-error code for requests the daemon took with it: the request itself was fine."""
DAEMON_LOST_MESSAGE = (
    "The gateway daemon stopped before answering this request (it crashed or was killed); the gateway has "
    "started again, so send the request again."
)
DAEMON_WEDGED_MESSAGE = (
    "The gateway daemon stopped answering (it did not answer a ping within its deadline); this session now goes "
    "on through a gateway started for it, so send the request again."
)
QUIET_SECONDS = 10.0
"""How long a request may wait with nothing at all from the daemon before the front pings it: a tool call may
run for minutes, so silence alone says nothing; an unanswered ping does."""
PING_SECONDS = 10.0
"""How long the front's ping may go unanswered before the daemon is taken as wedged (stopped, deadlocked): its
requests get an error and the session moves to another daemon. A loaded machine answers in milliseconds."""
POLL_QUIET_SECONDS = 1.0
"""How often a quiet connection is looked at."""
PROBE_ID_PREFIX = "mcp-gateway-front:ping-"
MAX_TRACKED_LINE_BYTES = 1024 * 1024
"""Client lines longer than this are not parsed for their request id: such a request, if unanswered when the
daemon goes, gets no error from the front (the client's own timeout ends it)."""
REPLAYED_ID = "mcp-gateway-front:replayed-initialize"
"""The id of the handshake replayed to a fresh daemon, whose answer the front keeps from the client."""
HANDSHAKE_METHODS = ("initialize", "notifications/initialized")


class Front:
    """One session's pipe over a daemon connection; `reconnect` reaches a daemon again after one is lost (or
    stopped answering)."""

    def __init__(
        self,
        sock: socket.socket,
        reconnect: Callable[[], socket.socket],
        hello: Hello,
        lines: ClientLines,
        answer: Answer,
    ) -> None:
        """`sock`: a connection whose daemon accepted `hello` with `answer`. `reconnect`: a new daemon
        connection, greeted and accepted. `lines`: the client's lines, read from the start (the handshake may
        have been answered early from what `lines.early` knew; otherwise from the daemon's handshake)."""
        self._sock = sock
        self._reconnect = reconnect
        self._hello = hello
        self._lines = lines
        self._early = (
            lines.early if lines.early is not None or answer.handshake is None else EarlyAnswers(answer.handshake)
        )
        self._stdout = lines.wire_out
        self._lock = threading.Lock()
        self._pending: dict[str, Any] = {}
        """Requests sent to the daemon and not yet answered, by their id's JSON text."""
        self._handshake: dict[str, bytes] = {}
        """The client's `initialize` and `notifications/initialized` lines, to replay to a fresh daemon."""
        self._client_gone = threading.Event()
        self._sending = threading.Lock()
        """Held while lines are noted and sent, so a send is either pending at the lost daemon or not sent."""
        self._writing = lines.writing
        """Held while writing to the client: the daemon's lines and the front's own errors never interleave."""
        self._reconnected = threading.Condition(self._lock)
        self._heard = time.monotonic()
        """When the daemon last sent anything."""
        self._probe: tuple[str, float] | None = None
        """The front's own ping in flight (its id as JSON text) and when it was sent."""
        self._probes = 0

    def run(self) -> int:
        with self._sending:  # the backlog goes first: a line `take` is given waits for it
            backlog, ended = self._lines.hand_over(self._take, self._end)
            for line in backlog:
                self._answer_early(line)
                self._send_now(line)
        if ended:
            self._end()
        while True:
            wedged = self._daemon_to_client()
            if self._client_gone.is_set() and not wedged:
                return 0
            with self._sending:  # a send under way either reached the lost daemon or will go to the next
                self._answer_pending(DAEMON_WEDGED_MESSAGE if wedged else DAEMON_LOST_MESSAGE)
            if self._client_gone.is_set():
                return 0
            try:
                self._reach_again()
            except (NoRendezvous, OSError) as exc:
                if self._client_gone.is_set():
                    return 0  # the client left while the front was reaching a daemon: nobody to serve
                reason = f"mcp-gateway: the gateway daemon stopped and none could be reached again: {exc}"
                print(reason, file=sys.stderr)
                return 1

    # The client's side: the lines `ClientLines` reads, in its thread.

    def _take(self, line: bytes) -> None:
        self._answer_early(line)
        self._send(line)

    def _answer_early(self, line: bytes) -> None:
        """Answer `line` now if it is the handshake's `initialize` or `tools/list`; it goes to the daemon all the
        same, before the client can send its next line."""
        if self._early is None or self._early.over:
            return
        reply = self._early.answer(line)
        if reply is not None:
            with self._writing, contextlib.suppress(OSError):  # a client gone: its stdin ends the front
                write_all(self._stdout, reply)

    def _was_answered_early(self, request_id: object) -> bool:
        return self._early is not None and self._early.answered_early(request_id)

    def _settled(self, request_id: int | str, line: bytes) -> bool:
        """Whether `line`, the daemon's answer to `request_id`, was given early (then it is not sent again)."""
        return self._early is not None and self._early.settle(request_id, line)

    def _end(self) -> None:
        self._client_gone.set()
        with self._lock:
            self._reconnected.notify_all()
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_WR)

    def _send(self, lines: bytes) -> None:
        """Send `lines` to the daemon; if it is gone before it could read them, to the next one."""
        while True:
            with self._sending:
                lost = self._send_now(lines)
            if lost is None or not self._await_next_daemon(lost):
                return  # sent; or the client is gone and no daemon came back: nothing to send them to

    def _send_now(self, lines: bytes) -> socket.socket | None:
        """Under `_sending`: None once sent, else the lost connection they could not be sent on."""
        with self._lock:
            sock = self._sock
        sent = self._note_requests(lines)
        try:
            sock.sendall(lines)
        except OSError:
            with self._lock:  # never read by the lost daemon: not among its unanswered requests
                for key in sent:
                    self._pending.pop(key, None)
            return sock
        return None

    def _await_next_daemon(self, lost: socket.socket) -> bool:
        with self._lock:
            self._reconnected.wait_for(lambda: self._sock is not lost or self._client_gone.is_set())
            return self._sock is not lost

    def _note_requests(self, lines: bytes) -> list[str]:
        """Keep the handshake and note the requests of `lines` as pending; their keys."""
        keys: list[str] = []
        for line in lines.split(b"\n"):
            message = _message(line)
            if message is None:
                continue
            method = message.get("method")
            with self._lock:
                if method in HANDSHAKE_METHODS:
                    self._handshake[cast(str, method)] = line
                if "id" in message and isinstance(method, str) and not self._was_answered_early(message["id"]):
                    key = json.dumps(message["id"])
                    self._pending[key] = message["id"]
                    keys.append(key)
        return keys

    # The daemon's side, in the main thread.

    def _daemon_to_client(self) -> bool:
        """Copy the daemon's lines to the client until the daemon closes; True when it stopped answering instead
        (wedged: a request waited `QUIET_SECONDS` with nothing from the daemon, and then its ping `PING_SECONDS`).
        """
        buffer = b""
        with self._lock:
            sock = self._sock
        self._heard = time.monotonic()
        try:
            while True:
                # Waited for with select, never with a socket timeout: the client's thread sends on this socket
                # too, and a timeout would bound each of its sends (a large call to a busy daemon was cut short).
                if not select.select([sock], [], [], POLL_QUIET_SECONDS)[0]:
                    if self._wedged(sock):
                        with contextlib.suppress(OSError):
                            sock.shutdown(socket.SHUT_RDWR)  # wakes a send the daemon never took: it goes to the next
                        sock.close()
                        return True
                    continue
                chunk = sock.recv(CHUNK_BYTES)
                if not chunk:
                    return False
                self._heard = time.monotonic()
                whole, newline, buffer = (buffer + chunk).rpartition(b"\n")
                if newline:
                    kept = self._answered(whole + newline)
                    with self._writing:
                        write_all(self._stdout, kept)
        except OSError:
            return False

    def _wedged(self, sock: socket.socket) -> bool:
        """Whether the daemon has stopped answering: called when it has been quiet for a while."""
        now = time.monotonic()
        with self._lock:
            waiting = bool(self._pending) or self._sending.locked()  # a send under way: a call too large to track
        if self._probe is not None:
            return now - self._probe[1] > PING_SECONDS
        if not waiting or now - self._heard < QUIET_SECONDS:
            return False
        # A send the daemon does not take (a large call, a full socket) holds the way a ping would go: waiting
        # the ping's allowance for it says as much as an unanswered ping.
        if not self._sending.acquire(timeout=PING_SECONDS):
            return True
        try:
            self._probes += 1
            probe_id = f"{PROBE_ID_PREFIX}{self._probes}"
            ping = json.dumps({"jsonrpc": "2.0", "id": probe_id, "method": "ping"}).encode() + b"\n"
            sock.sendall(ping)
        except OSError:
            return False  # the daemon is gone: its end will be seen
        finally:
            self._sending.release()
        self._probe = (json.dumps(probe_id), now)
        return False

    def _answered(self, lines: bytes) -> bytes:
        """`lines` without the answer to a replayed handshake; the requests they answer are no longer pending."""
        kept: list[bytes] = []
        for line in lines.split(b"\n")[:-1]:
            answered = _answered_id(line)
            if answered == json.dumps(REPLAYED_ID):
                continue
            if self._probe is not None and answered == self._probe[0]:
                self._probe = None  # the daemon answers: not wedged
                continue
            if answered is not None and self._settled(json.loads(answered), line + b"\n"):
                continue  # answered early, by the front
            if answered is not None:
                with self._lock:
                    self._pending.pop(answered, None)
            kept.append(line + b"\n")
        return b"".join(kept)

    def _answer_pending(self, message: str) -> None:
        """Answer the requests the lost daemon took with it, each with the error `message`."""
        with self._lock:
            ids = list(self._pending.values())
            self._pending.clear()
        self._probe = None
        with self._writing:
            for request_id in ids:
                error = {"code": DAEMON_LOST, "message": message}
                with contextlib.suppress(OSError):
                    write_all(
                        self._stdout, json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode() + b"\n"
                    )

    def _reach_again(self) -> None:
        """A fresh daemon, greeted and handed the client's handshake, becomes the session's connection.

        A daemon killed a moment ago may still hold its listening socket while it dies, so a connection can be
        accepted and then reset: that is tried again, until `START_SECONDS` have passed or the client has left.
        """
        deadline = time.monotonic() + START_SECONDS
        while True:
            sock: socket.socket | None = None
            try:
                sock = self._reconnect()
                self._hand_over(sock)
            except (OSError, NoRendezvous):
                if sock is not None:
                    sock.close()
                if time.monotonic() > deadline or self._client_gone.is_set():
                    raise
                time.sleep(POLL_SECONDS)
            else:
                return

    def _hand_over(self, sock: socket.socket) -> None:
        """`sock`, greeted and accepted, gets the client's handshake replayed and becomes the session's."""
        with self._lock:
            replay = [self._handshake[method] for method in HANDSHAKE_METHODS if method in self._handshake]
        for line in replay:
            message = cast(dict[str, Any], json.loads(line))
            if "id" in message:
                message["id"] = REPLAYED_ID
            sock.sendall(json.dumps(message).encode() + b"\n")
        with self._lock:
            old, self._sock = self._sock, sock
            self._reconnected.notify_all()
        old.close()


def greeted(sock: socket.socket, hello: Hello) -> Answer:
    """The daemon's answer once it has accepted `hello` on `sock`; NoRendezvous (and `sock` closed) when not."""
    try:
        sock.settimeout(HELLO_SECONDS)
        sock.sendall(hello.encode())
        answer = Answer.decode(_read_line(sock, MAX_HELLO_BYTES))
        sock.settimeout(None)
    except (OSError, BadHello) as exc:
        sock.close()
        raise NoRendezvous(f"the gateway daemon did not answer its hello ({exc})") from exc
    if not answer.accepted:
        sock.close()
        raise NoRendezvous(f"the gateway daemon refused the session: {answer.reason}")
    return answer


def _read_line(sock: socket.socket, limit: int) -> bytes:
    """One line and not a byte more: what follows it is the session's. Each chunk is peeked at first and only
    as much taken as ends the line (an answer carries a handshake of a few kilobytes: no byte-wise reads)."""
    data = b""
    while not data.endswith(b"\n"):
        peeked = sock.recv(min(CHUNK_BYTES, limit + 1 - len(data)), socket.MSG_PEEK)
        if not peeked:
            raise BadHello("the daemon closed before answering")
        end = peeked.find(b"\n")
        data += sock.recv(len(peeked) if end < 0 else end + 1)
        if len(data) > limit:
            raise BadHello("the daemon's answer is too long")
    return data


def _message(line: bytes) -> dict[str, Any] | None:
    if not line.strip() or len(line) > MAX_TRACKED_LINE_BYTES:
        return None
    try:
        parsed: Any = json.loads(line)
    except (ValueError, RecursionError):  # a line nested too deeply: the daemon answers it with its error
        return None
    return cast(dict[str, Any], parsed) if isinstance(parsed, dict) else None


_RESPONSE_PREFIX = b'{"jsonrpc":"2.0","id":'
"""How the daemon writes every response (`wire.encode`: the SDK's field order), so a response of any size is
known by its first bytes without parsing the rest."""
_DECODER = json.JSONDecoder()


def _answered_id(line: bytes) -> str | None:
    """The id (as JSON text) of the response `line`; None for a request or notification from the daemon."""
    if not line.startswith(_RESPONSE_PREFIX):
        return None
    head = line[len(_RESPONSE_PREFIX) : len(_RESPONSE_PREFIX) + 512].decode("utf-8", "replace")
    try:
        request_id, _end = _DECODER.raw_decode(head)
    except ValueError:
        return None
    return json.dumps(request_id)
