"""The server's first two answers, `initialize` and `tools/list`, made before the MCP SDK is imported.

Why: from spawn to an answered `tools/list` is what a client waits for at the start of every session
(Claude Code gives an `alwaysLoad` server 5 s, and a busy machine eats into that), and importing the SDK
is most of a start: about 0.7 s of 1.1 s on a quiet machine, more than twice that on a busy one. Yet what
the gateway says at its handshake is fixed once its config is read: its name, its instructions, its
capabilities and four tool definitions. So these two answers are made here with the standard library, and
the SDK, imported right after them, takes the session over with everything that follows.

Contract:
- Answered early: `initialize` as the client's first message, with params of a shape every SDK version
  accepts (`INITIALIZE_PARAMS`, stricter than the SDK: unknown members, nulls and anything in doubt do not
  fit), then `tools/list` without params (absent, null or empty). The first line that is anything else (a
  different first message, another request, a response, a line that is not plain JSON) ends early
  answering: from it on, every answer comes from the SDK. In doubt an answer comes later, never differently.
- The answers are the SDK's own: the same strings and values the SDK's `Server` is built with
  (`Handshake`), the same version negotiation (the handshake version the client asks for, else the
  latest). Every line is still replayed to the SDK when it takes over, so its session is initialized as if
  it had answered; its own answer to a request answered here is then compared and dropped (`settle`), and
  a difference is logged as a gateway bug. `tests/protocol/test_early_answers_parity.py` holds the parity
  with the SDK for every handshake version.
- Bounded: a line over `MAX_EARLY_LINE_BYTES` is not read here, only passed on.

Standard library only, in the session front's package: a front answers early too, from the `Handshake` its
daemon sends in its hello answer (the one that daemon's session is built from), so a session whose daemon
runs is answered without waiting for the daemon's event loop.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple, cast

from mcp_gateway import __version__
from mcp_gateway.front.quiet_log import DEBUG, ERROR, log

SERVER_NAME = "mcp-gateway"
SERVER_TITLE = "MCP gateway"
CAPABILITIES: Mapping[str, Any] = {
    "prompts": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "tools": {"listChanged": False},
    "completions": {},
}
"""What the SDK's `Server` declares (`app.initialization_options`) for a server whose tool list never changes
and whose prompts and resources (its servers') do, with subscriptions and completions passed through."""
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The SDK's `mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS`, oldest first (a test keeps them equal)."""
MAX_EARLY_LINE_BYTES = 64 * 1024
"""Longest line judged here. A real `initialize` is a few hundred bytes (Claude Code's, the SDK's)."""

STRING, BOOLEAN, OBJECT, OBJECTS = "string", "boolean", "object", "object of objects"
"""Leaf shapes: `OBJECT` is any JSON object (a capability model that ignores what it does not know)."""


class Fields(NamedTuple):
    """A JSON object with only these members, each of its shape, the `required` ones present."""

    members: Mapping[str, Shape]
    required: frozenset[str] = frozenset()


Shape = str | Fields

CLIENT_CAPABILITIES = Fields(
    {
        "roots": Fields({"listChanged": BOOLEAN}),
        "sampling": Fields({"context": OBJECT, "tools": OBJECT}),
        "elicitation": Fields({"form": OBJECT, "url": OBJECT}),
        "experimental": OBJECTS,
        "extensions": OBJECTS,
    }
)
"""`ClientCapabilities` as far as it can be judged simply; `tasks` (one protocol version only) is left to the SDK."""
CLIENT_INFO = Fields(
    {"name": STRING, "version": STRING, "title": STRING, "description": STRING, "websiteUrl": STRING},
    frozenset({"name", "version"}),
)
INITIALIZE_PARAMS = Fields(
    {"protocolVersion": STRING, "capabilities": CLIENT_CAPABILITIES, "clientInfo": CLIENT_INFO},
    frozenset({"protocolVersion", "capabilities", "clientInfo"}),
)
REQUEST_MEMBERS = frozenset({"jsonrpc", "id", "method", "params"})


def fits(value: object, shape: Shape) -> bool:
    if shape == STRING:
        return isinstance(value, str)
    if shape == BOOLEAN:
        return isinstance(value, bool)
    if not isinstance(value, dict):
        return False
    members = cast(dict[str, object], value)
    if shape == OBJECT:
        return True
    if shape == OBJECTS:
        return all(isinstance(item, dict) for item in members.values())
    assert isinstance(shape, Fields)
    return shape.required <= members.keys() and all(
        name in shape.members and fits(item, shape.members[name]) for name, item in members.items()
    )


class Handshake(NamedTuple):
    """What the server says at its handshake; the SDK's `Server` is built from the same values.

    Made once per process, before anything but the config is read: the instructions must stay cheap to
    make. A digest of the servers in them comes from the config, or from a small bounded file kept next to
    cache.json, never from reading and parsing the catalog itself on this path. `instructions`:
    `service.surface.handshake_instructions` (before the gateway runs) or `Gateway.instructions()`; `tools`:
    `service.surface.meta_tool_definitions()`.
    """

    instructions: str
    tools: list[dict[str, Any]]
    version: str = __version__

    def initialize_result(self, requested: str) -> dict[str, Any]:
        negotiated = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        return {
            "protocolVersion": negotiated,
            "capabilities": dict(CAPABILITIES),
            "serverInfo": {"name": SERVER_NAME, "title": SERVER_TITLE, "version": self.version},
            "instructions": self.instructions,
        }

    def tools_list_result(self) -> dict[str, Any]:
        return {"tools": self.tools}


Phase = Literal["opening", "initialized", "over"]
RequestKey = tuple[bool, int | str]
"""A JSON-RPC id told apart by type: the request 1 is not the request "1"."""


class EarlyAnswers:
    """Judges the client's lines until the SDK takes over: which to answer now, and with what."""

    def __init__(self, handshake: Handshake) -> None:
        self.handshake = handshake
        self._phase: Phase = "opening"
        self._sent: dict[RequestKey, dict[str, Any]] = {}
        self._lock = threading.Lock()

    @property
    def over(self) -> bool:
        """Nothing more will be answered early: the handshake is done, or the client asked for something else."""
        return self._phase == "over"

    def stop(self) -> None:
        """Answer nothing more early (the client cannot be written to, or the SDK has taken over)."""
        self._phase = "over"

    def answer(self, line: bytes) -> bytes | None:
        """The line to send the client now for `line`, or None when the SDK is to answer it (if it needs one).

        Every line, answered or not, is to be replayed to the SDK in order when it takes over.
        """
        if self._phase == "over" or not line.strip():
            return None
        message = _plain_json(line)
        if message is not None and _is_notification(message):
            return None  # never answered, and `notifications/initialized` comes between the two answers
        result = None if message is None else self._early_result(message)
        if message is None or result is None:
            self._phase = "over"
            return None
        request_id = cast(int | str, message["id"])
        reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
        try:
            encoded = json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        except (ValueError, UnicodeEncodeError):  # a lone surrogate in the config: the SDK's writer decides
            self._phase = "over"
            return None
        with self._lock:
            self._sent[_key(request_id)] = result
        self._phase = "over" if self._phase == "initialized" else "initialized"
        return encoded

    def _early_result(self, message: dict[str, object]) -> dict[str, Any] | None:
        """The result to send for the request `message` now; None when it is not one to answer early."""
        if not (message.keys() <= REQUEST_MEMBERS and message.get("jsonrpc") == "2.0" and "id" in message):
            return None
        request_id, method = message["id"], message.get("method")
        if type(request_id) not in (int, str):  # JSON-RPC ids the SDK takes; never a bool, a float, a null
            return None
        params = message.get("params")
        if self._phase == "opening" and method == "initialize" and fits(params, INITIALIZE_PARAMS):
            return self.handshake.initialize_result(cast(dict[str, str], params)["protocolVersion"])
        if self._phase == "initialized" and method == "tools/list" and params in (None, {}):  # absent, null or {}
            return self.handshake.tools_list_result()
        return None

    def answered_early(self, request_id: object) -> bool:
        """Whether the request `request_id` was answered here and its later answer is still to be settled."""
        if type(request_id) not in (int, str):
            return False
        with self._lock:
            return _key(cast(int | str, request_id)) in self._sent

    def settle(self, request_id: int | str, sent: bytes) -> bool:
        """Whether `request_id` was answered early, so the SDK's own answer `sent` must not go out again.

        That answer is compared with the early one first: they must be the same, and a difference is a bug.
        """
        with self._lock:
            early = self._sent.pop(_key(request_id), None)
        if early is None:
            return False
        try:
            theirs = cast(dict[str, Any], json.loads(sent)).get("result")
        except ValueError:
            theirs = None
        if theirs == early:
            log(__name__, DEBUG, "the SDK's answer to request %r, answered early, is the same", request_id)
        else:
            log(
                __name__,
                ERROR,
                "gateway bug: request %r was answered early with %s, but the SDK answers %s; "
                "please report it (the client keeps the early answer)",
                request_id,
                json.dumps(early, ensure_ascii=False)[:300],
                sent.decode(errors="replace")[:300],
            )
        return True


def _is_notification(message: Mapping[str, object]) -> bool:
    return "id" not in message and message.get("jsonrpc") == "2.0" and isinstance(message.get("method"), str)


def _key(request_id: int | str) -> RequestKey:
    return (isinstance(request_id, str), request_id)


def _plain_json(line: bytes) -> dict[str, object] | None:
    """The JSON object on `line`, if it is plain: short, UTF-8, no duplicate member, no NaN or Infinity."""
    if len(line) > MAX_EARLY_LINE_BYTES:
        return None
    try:
        value: object = json.loads(line.decode(), parse_constant=_refuse_constant, object_pairs_hook=_unique)
    except (ValueError, RecursionError):
        return None
    return cast(dict[str, object], value) if isinstance(value, dict) else None


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    members = dict(pairs)
    if len(members) != len(pairs):
        raise ValueError("a member is repeated")
    return members
