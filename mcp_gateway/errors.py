"""The gateway's one exception hierarchy.

Foreign exceptions (the SDK's `MCPError`, `pydantic.ValidationError`, `OSError`, HTTP errors) are
translated into these at one boundary in `downstream/`; everything above that boundary sees only
`GatewayError` subclasses.

    GatewayError                     exit code 1 at the command line, unless a class below says otherwise
    ├── ConfigError                  the config file as a whole cannot be used (unreadable, not JSON); exit 2
    ├── CatalogError                 the tool catalog cannot be read or written at all
    ├── UnusableFileError            a workspace file is a link, a FIFO, a device or too large to read
    ├── UsageError                   the command line asked for what cannot be (a bad option value); exit 2
    │   └── ImportUsageError         an import asked for what cannot be (an unknown client, scope or backup)
    ├── CommandFailedError           a command did what it could and failed (a server that did not list)
    │   └── ImportFailedError        an import could not be done (a backup missing or not restorable)
    ├── RequestError                 a client's prompt or resource request cannot be served: a JSON-RPC error
    └── ToolCallError                something the model can fix: becomes an `isError` tool result
        ├── UnknownServerError       no server or alias by that name
        ├── UnknownToolError         no tool by that name
        ├── AmbiguousToolError       a bare tool name that several servers expose
        ├── ToolNotAllowedError      excluded by a filter, or its server is disabled
        ├── InvalidArgumentsError    arguments do not match the tool's input schema
        ├── StillLoadingError        the server's tools are still being listed, past the wait for them
        ├── QuestionNotRelayedError  a tool's question (elicitation, sampling) cannot reach this client
        ├── SessionBusyError         a session has `maxCallsPerSession` requests in flight, past the wait for one
        ├── CallRefusedError         the user's rules keep the call from its server (`settings.policy`, a pin)
        └── DownstreamError          the downstream server failed us
            ├── ServerStartError     it could not be started or connected (or its listing failed)
            │   └── SignInRequiredError  it needs an OAuth sign-in (`mcp-gateway login`)
            ├── BackoffError         it failed recently; calls fail fast until the window ends
            ├── CallTimeoutError     the call ran past its timeout and was cancelled downstream
            ├── ConnectionLostError  the connection dropped while the call was in flight
            ├── DownstreamRpcError   it answered the call with a JSON-RPC error (code and text kept)
            └── ShuttingDownError    the gateway is stopping and takes no new work

Every `ToolCallError` message is one sentence: what happened and what to do next. Its next step is data
(`wording.Message`, kept as `said`): `message` words it for a model (the meta-tool to call), and the command line
words it for a person (the command to type). Gateway bugs are not caught here; they surface as JSON-RPC
internal errors. Each class carries the exit code a command ends with when it stops the command (`exit_code`,
as click does), so no raise site passes one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

from mcp_gateway.wording import Message, said

Phase = Literal["startup", "list_tools", "tool_call"]


class GatewayError(Exception):
    """Root of every error the gateway raises on purpose."""

    exit_code: ClassVar[int] = 1
    """What `mcp-gateway` exits with when this error ends a command: an operation failed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def redact(self, mask: Callable[[str], str]) -> None:
        """Pass the message through `mask` (secrets out), in place: whoever already holds this error sees it too."""
        self.message = mask(self.message)
        self.args = (self.message,)


class ConfigError(GatewayError):
    """The config file as a whole is unusable; per-server problems are diagnostics instead."""

    exit_code: ClassVar[int] = 2


class CatalogError(GatewayError):
    """The catalog file could not be written (a corrupt file is set aside, never raised)."""


class UnusableFileError(GatewayError):
    """What sits at a workspace path is not a file the gateway may use; the caller decides what that costs.

    `tag` names the problem in a file name (`link`, `not-a-file`, `oversize`), for files set aside.
    """

    def __init__(self, path: str, problem: str, tag: str) -> None:
        super().__init__(f"{path} {problem}")
        self.path = path
        self.problem = problem
        self.tag = tag


class UsageError(GatewayError):
    """The command line asked for what cannot be: the request must change (`main` prints it on one line)."""

    exit_code: ClassVar[int] = 2


class CommandFailedError(GatewayError):
    """A command did what it could and failed (`main` prints the message on one line)."""


class ImportUsageError(UsageError):
    """An import or restore asked for something that does not exist: the request must change, not the files."""


class ImportFailedError(CommandFailedError):
    """An import or restore could not be done as asked: a file it needs is missing or cannot be written."""


INVALID_PARAMS = -32602
"""JSON-RPC's code for a request naming what does not exist (an unknown prompt or resource URI, a bad cursor)."""
INTERNAL_ERROR = -32603
"""JSON-RPC's code for a request the gateway could not serve for its own reasons (a server that did not start)."""


class RequestError(GatewayError):
    """A `prompts/get`, `resources/read`, … that cannot be served: not a tool call, so no `isError` result but a
    JSON-RPC error with `code`, its message one sentence saying what to do next."""

    def __init__(self, message: str, code: int = INVALID_PARAMS) -> None:
        super().__init__(message)
        self.code = code


class ToolCallError(GatewayError):
    """A failure the model can act on; returned to it as a `CallToolResult` with `isError: true`.

    `message` is worded for the model; `said` keeps its next steps as data, for a person's words.
    """

    def __init__(self, message: str | Message) -> None:
        self.said = said(message)
        super().__init__(self.said.for_model())

    def redact(self, mask: Callable[[str], str]) -> None:
        self.said = self.said.masked(mask)
        super().redact(mask)

    def add(self, text: str) -> None:
        """Say `text` too, after what was said."""
        self.said = Message.of(*self.said.parts, text)
        self.message = self.said.for_model()
        self.args = (self.message,)


class UnknownServerError(ToolCallError):
    pass


class UnknownToolError(ToolCallError):
    pass


class AmbiguousToolError(ToolCallError):
    def __init__(self, message: str | Message, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class ToolNotAllowedError(ToolCallError):
    pass


class InvalidArgumentsError(ToolCallError):
    def __init__(self, message: str | Message, problems: list[str]) -> None:
        super().__init__(message)
        self.problems = problems


class QuestionNotRelayedError(ToolCallError):
    """A tool asked its caller something (elicitation, sampling) that cannot be put to this client or answered."""


class StillLoadingError(ToolCallError):
    """The server's tools are still being listed (it is starting), and the wait for them has passed."""

    def __init__(self, message: str | Message, *, server: str) -> None:
        super().__init__(message)
        self.server = server


class SessionBusyError(ToolCallError):
    """One client session has as many requests in flight as it may (`maxCallsPerSession`), past the wait for one."""


class CallRefusedError(ToolCallError):
    """The call was kept from its server by what the user set (a policy's deny, a confirmation not given) or has
    yet to approve (a tool definition held for review)."""


class DownstreamError(ToolCallError):
    """The downstream server failed; `server` names it and `phase` says where it failed."""

    def __init__(self, message: str | Message, *, server: str, phase: Phase, retryable: bool) -> None:
        super().__init__(message)
        self.server = server
        self.phase: Phase = phase
        self.retryable = retryable


class ServerStartError(DownstreamError):
    pass


class BackoffError(DownstreamError):
    def __init__(self, message: str, *, server: str, seconds_left: float, retryable: bool = True) -> None:
        super().__init__(message, server=server, phase="startup", retryable=retryable)
        self.seconds_left = seconds_left


class CallTimeoutError(DownstreamError):
    pass


class ConnectionLostError(DownstreamError):
    pass


class DownstreamRpcError(DownstreamError):
    def __init__(self, message: str, *, server: str, code: int, phase: Phase = "tool_call") -> None:
        super().__init__(message, server=server, phase=phase, retryable=False)
        self.code = code


class ShuttingDownError(DownstreamError):
    pass


class SignInRequiredError(ServerStartError):
    """A remote server refused the gateway for want of an OAuth sign-in: a person must run `mcp-gateway login`."""
