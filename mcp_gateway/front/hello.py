"""The first line each way between a session front and the daemon, before the session's MCP lines.

The front says who the session is: the protocol and gateway version it speaks, its working directory and
its environment (a server's `${VAR}`s and an `inheritEnv` server's whole environment come from the session
that uses it, as they would in a gateway the client started itself), and the instructions it answers the
client's `initialize` with if it already has them (a cold start's remembered handshake). The daemon answers
whether it serves the session and, if not, why, in words the front prints for the person; when it does,
with the `Handshake` the session's MCP server is built from (with the front's instructions, when it said
some), so the front answers the client's `initialize` and `tools/list` at once (`early_answers`) instead of
waiting for the daemon's event loop, and says exactly what the daemon's session would.
Both lines are JSON objects on one line, bounded by `MAX_HELLO_BYTES`; standard library only, as the front is.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple, cast

from mcp_gateway import __version__
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.rendezvous import FRONT_PROTOCOL

MAX_HELLO_BYTES = 1024 * 1024
"""An environment is a few kilobytes, a handshake's instructions a few hundred bytes per server; a megabyte
leaves room for large ones and bounds a hostile one."""
HELLO_SECONDS = 10.0
"""How long either side waits for the other's line: the daemon answers at once, unless it is overloaded."""


class BadHello(ValueError):  # noqa: N818  # a fact about a line, like `json.JSONDecodeError`'s kin
    """A line that is no hello of this protocol."""


class Hello(NamedTuple):
    protocol: int
    version: str
    cwd: str
    environ: dict[str, str]
    instructions: str | None = None
    """The instructions the front answers the client's `initialize` with, when it has them before the daemon's
    answer: the session is then built with them, whatever the daemon would say now."""

    @classmethod
    def of_this_process(cls, cwd: str, environ: dict[str, str], handshake: Handshake | None = None) -> Hello:
        return cls(FRONT_PROTOCOL, __version__, cwd, environ, None if handshake is None else handshake.instructions)

    def encode(self) -> bytes:
        body: dict[str, Any] = {"protocol": self.protocol, "version": self.version, "cwd": self.cwd}
        body["environ"] = self.environ
        if self.instructions is not None:
            body["instructions"] = self.instructions
        return json.dumps({"mcpGatewayHello": body}).encode() + b"\n"

    @classmethod
    def decode(cls, line: bytes) -> Hello:
        body = _object(line, "mcpGatewayHello")
        protocol, version, cwd, environ = (body.get(key) for key in ("protocol", "version", "cwd", "environ"))
        if not isinstance(protocol, int) or not isinstance(version, str) or not isinstance(cwd, str):
            raise BadHello("a hello needs a protocol, a version and a working directory")
        if not isinstance(environ, dict):
            raise BadHello("a hello's environment must be an object")
        pairs = cast(dict[str, Any], environ)
        if not all(isinstance(value, str) for value in pairs.values()):
            raise BadHello("a hello's environment values must be strings")
        instructions = body.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise BadHello("a hello's instructions must be a string")
        return cls(protocol, version, cwd, cast(dict[str, str], pairs), instructions)


class Answer(NamedTuple):
    accepted: bool
    version: str
    reason: str | None = None
    handshake: Handshake | None = None
    """What the session's MCP server says at its handshake (an accepted session's answer only)."""

    def encode(self) -> bytes:
        body: dict[str, Any] = {"accepted": self.accepted, "version": self.version}
        if self.reason is not None:
            body["reason"] = self.reason
        if self.handshake is not None:
            body["handshake"] = {"instructions": self.handshake.instructions, "tools": self.handshake.tools}
        return json.dumps({"mcpGatewayAnswer": body}).encode() + b"\n"

    @classmethod
    def decode(cls, line: bytes) -> Answer:
        body = _object(line, "mcpGatewayAnswer")
        accepted, version, reason = body.get("accepted"), body.get("version"), body.get("reason")
        if not isinstance(accepted, bool) or not isinstance(version, str):
            raise BadHello("an answer needs 'accepted' and a version")
        return cls(accepted, version, reason if isinstance(reason, str) else None, _handshake(body, version))


def _handshake(body: dict[str, Any], version: str) -> Handshake | None:
    """The answer's handshake; None without one, or with one of another shape: then the daemon's session
    answers the handshake itself, which is slower and never different."""
    said = body.get("handshake")
    if not isinstance(said, dict):
        return None
    instructions, tools = cast(dict[str, Any], said).get("instructions"), cast(dict[str, Any], said).get("tools")
    if not isinstance(instructions, str) or not isinstance(tools, list):
        return None
    listed = cast(list[Any], tools)
    if not all(isinstance(tool, dict) for tool in listed):
        return None
    return Handshake(instructions, cast(list[dict[str, Any]], listed), version)


def _object(line: bytes, key: str) -> dict[str, Any]:
    if len(line) > MAX_HELLO_BYTES:
        raise BadHello(f"a hello line is at most {MAX_HELLO_BYTES} bytes")
    try:
        outer: Any = json.loads(line)
    except ValueError as exc:
        raise BadHello(f"not JSON: {exc}") from exc
    body = cast(dict[str, Any], outer).get(key) if isinstance(outer, dict) else None
    if not isinstance(body, dict):
        raise BadHello(f"no '{key}' object")
    return cast(dict[str, Any], body)
