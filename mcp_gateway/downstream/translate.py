"""The one boundary where foreign exceptions become gateway errors.

The SDK raises `MCPError` (with JSON-RPC codes), pydantic raises `ValidationError` for results that do not
fit the protocol, the OS raises `OSError` for a command that cannot be spawned, httpx raises its own
hierarchy, and anyio task groups wrap any of these in exception groups. A request on a live connection fails
with one of the facts `connection.py` establishes locally (timed out, answered with an error, link lost).
Callers above `downstream/` see only `DownstreamError` subclasses, classified by what happened and by type,
never by a wire code alone or by message text; the downstream's own message is kept (bounded) in what the
model reads, masked (`mask`, the gateway's `SecretMask`) before it is cut, so that a secret straddling the cut
cannot leave its beginning behind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import httpx2
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from mcp_gateway.bounds import MAX_DOWNSTREAM_MESSAGE_CHARS, clip
from mcp_gateway.downstream.connection import ErrorReply, LinkLost, RequestTimedOut
from mcp_gateway.downstream.link import ServerError
from mcp_gateway.errors import (
    CallTimeoutError,
    ConnectionLostError,
    DownstreamError,
    DownstreamRpcError,
    Phase,
    ServerStartError,
)


def innermost(exc: BaseException) -> BaseException:
    """The first non-group exception inside (possibly nested) exception groups."""
    current: BaseException = exc
    while isinstance(current, BaseExceptionGroup):
        members: tuple[BaseException, ...] = cast("BaseExceptionGroup[BaseException]", current).exceptions
        if not members:
            break
        current = members[0]
    return cast(BaseException, current)


Mask = Callable[[str], str]


def start_failure(
    server: str, exc: BaseException, *, timeout_seconds: float, stderr_log: str | None, mask: Mask = str
) -> ServerStartError:
    """A failure while starting, connecting or handshaking."""
    cause = innermost(exc)
    logs = f" Its stderr is in {stderr_log}." if stderr_log else ""
    if isinstance(cause, DownstreamError):
        return ServerStartError(cause.message, server=server, phase="startup", retryable=cause.retryable)
    if isinstance(cause, TimeoutError):
        reason = f"did not finish starting within {timeout_seconds:g}s (connectTimeoutMs)"
    elif isinstance(cause, FileNotFoundError):
        reason = f"could not be started: command not found ({cause.filename or cause})"
    elif isinstance(cause, PermissionError):
        reason = f"could not be started: permission denied ({cause.filename or cause})"
    elif isinstance(cause, LinkLost):
        reason = "exited or closed its connection before the MCP handshake finished"
    elif isinstance(cause, ErrorReply) and isinstance(cause.reply, ServerError):
        reason = f"rejected the MCP handshake: {_quoted(cause.reply.message, mask)} (code {cause.reply.code})"
    elif isinstance(cause, ErrorReply):
        reason = f"answered the MCP handshake with a reply that is not valid JSON-RPC ({cause})"
    elif isinstance(cause, MCPError):  # an in-process server, which has no link to tell who raised it
        reason = f"rejected the MCP handshake: {_quoted(cause.message, mask)} (code {cause.code})"
    else:
        reason = f"could not be reached: {mask(_describe(cause))}"
    return ServerStartError(
        f"Server '{server}' {reason}.{logs} Fix its entry in config.json or check the server, then call again.",
        server=server,
        phase="startup",
        retryable=not isinstance(cause, FileNotFoundError | PermissionError),
    )


def call_failure(
    server: str, tool: str, exc: BaseException, *, timeout_seconds: float, retry_safe: bool, mask: Mask = str
) -> DownstreamError:
    """A failure of one `tools/call` (or `tools/list`, with `tool` naming the method) on a live connection."""
    cause = innermost(exc)
    if isinstance(cause, DownstreamError):
        return cause
    phase: Phase = "list_tools" if tool == "tools/list" else "tool_call"
    if isinstance(cause, RequestTimedOut):
        return CallTimeoutError(
            f"'{server}.{tool}' did not answer within {timeout_seconds:g}s and was cancelled on the server; "
            "call it again with simpler arguments, or raise requestTimeoutMs for this server.",
            server=server,
            phase=phase,
            retryable=retry_safe,
        )
    if isinstance(cause, ErrorReply):
        return _error_reply(server, tool, phase, cause, mask)
    if isinstance(cause, LinkLost):
        return _lost(server, tool, phase, retry_safe=retry_safe)
    if isinstance(cause, ValidationError):
        return DownstreamRpcError(
            f"Server '{server}' returned a result for '{tool}' that does not follow the MCP protocol "
            f"({cause.error_count()} problems); report it to the server's authors.",
            server=server,
            code=0,
            phase=phase,
        )
    return ConnectionLostError(
        f"Calling '{server}.{tool}' failed: {_quoted(_describe(cause), mask)}; the next call reconnects.",
        server=server,
        phase=phase,
        retryable=retry_safe,
    )


def _error_reply(server: str, tool: str, phase: Phase, cause: ErrorReply, mask: Mask) -> DownstreamRpcError:
    reply = cause.reply
    if isinstance(reply, ServerError):
        return DownstreamRpcError(
            f"Server '{server}' answered '{tool}' with an error: {_quoted(reply.message, mask)} (code {reply.code}).",
            server=server,
            code=reply.code,
            phase=phase,
        )
    return DownstreamRpcError(
        f"Server '{server}' answered '{tool}' with a reply the gateway cannot use "
        f"({_quoted(reply.reason, mask)}); report it to the server's authors.",
        server=server,
        code=0,
        phase=phase,
    )


def _lost(server: str, tool: str, phase: Phase, *, retry_safe: bool) -> ConnectionLostError:
    advice = (
        "retrying is safe (the tool is read-only or idempotent)"
        if retry_safe
        else "it may or may not have taken effect, so check before calling it again"
    )
    return ConnectionLostError(
        f"The connection to server '{server}' was lost while '{tool}' was running; {advice}; "
        "the next call starts the server again.",
        server=server,
        phase=phase,
        retryable=retry_safe,
    )


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _quoted(text: str, mask: Mask) -> str:
    """A server's own words as an error quotes them: masked first, then cut to the bound."""
    return clip(mask(text), MAX_DOWNSTREAM_MESSAGE_CHARS)


HTTP_SERVER_ERROR_STATUS = 500


def display_url(url: httpx2.URL | str) -> str:
    """A URL fit for an error message: without userinfo, query or fragment, which may carry credentials."""
    return str(httpx2.URL(url).copy_with(userinfo=b"", query=None, fragment=None))


def remote_start_failure(name: str, url: str, last_error: httpx2.Response | None, exc: Exception) -> Exception:
    """A clearer error than the transport's when a remote server answered an HTTP error (`last_error`, the last
    error status it answered while connecting) or was not there; else `exc` itself, for `start_failure`."""
    cause = innermost(exc)
    if last_error is not None:
        response = last_error
        return ServerStartError(
            f"Server '{name}' answered HTTP {response.status_code} {response.reason_phrase} at "
            f"{display_url(response.request.url)}; "
            "check that the server works and that its url in config.json is right, then call again.",
            server=name,
            phase="startup",
            retryable=response.status_code >= HTTP_SERVER_ERROR_STATUS,
        )
    if isinstance(cause, httpx2.ConnectError):
        return ServerStartError(
            f"Server '{name}' could not be reached at {display_url(url)}: nothing accepted the connection ({cause}); "
            "check that it is running and that its url in config.json is right, then call again.",
            server=name,
            phase="startup",
            retryable=True,
        )
    return exc
