"""The one boundary where foreign exceptions become gateway errors.

The SDK raises `MCPError` (with JSON-RPC codes), pydantic raises `ValidationError` for results that do not
fit the protocol, the OS raises `OSError` for a command that cannot be spawned, httpx raises its own
hierarchy, and anyio task groups wrap any of these in exception groups. A request on a live connection fails
with one of the facts `connection.py` establishes locally (timed out, answered with an error, link lost).
Callers above `downstream/` see only `DownstreamError` subclasses, classified by what happened and by type,
never by a wire code alone or by message text; the downstream's own message is kept (bounded) in what the
model reads, masked (`mask`, the gateway's `SecretMask`) before it is cut, so that a secret straddling the cut
cannot leave its beginning behind.

A local server that ends before its handshake is quoted: the last lines it wrote on stderr during that start
(`StderrTail`, masked as its log is) are in the error, with its exit status and where its whole log is. Whether
starting it again may help (`retryable`) follows one rule, and the advice in the text follows `retryable`:
- it exited with a non-zero code and said something on stderr: no, until what it names is fixed (it said why
  it cannot run, and the same configuration meets the same reason);
- it ended exactly as it did on the start before (same exit status, same words), with no tool call answered
  since: no, whatever it was (`previous_ending`, kept by its supervisor); the same holds for a server that
  exits soon after its handshake, before answering a tool call (`early_exit`), which is quoted too;
- otherwise (it exited with 0, was killed by a signal, or said nothing): a retry may help, once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import httpx2
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from mcp_gateway.bounds import MAX_DOWNSTREAM_MESSAGE_CHARS, clip
from mcp_gateway.downstream.connection import EndedBeforeHandshake, ErrorReply, LinkLost, RequestTimedOut
from mcp_gateway.downstream.error_journal import ErrorRecord
from mcp_gateway.downstream.link import ServerError
from mcp_gateway.downstream.stderr_tail import SEPARATOR
from mcp_gateway.errors import (
    BackoffError,
    CallTimeoutError,
    ConnectionLostError,
    DownstreamError,
    DownstreamRpcError,
    Phase,
    ServerStartError,
    SignInRequiredError,
)
from mcp_gateway.masking import display_url
from mcp_gateway.sign_in import is_sign_in_reply, renewal_failure
from mcp_gateway.wording import Message, Step


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
    server: str,
    exc: BaseException,
    *,
    timeout_seconds: float,
    stderr_log: str | None,
    mask: Mask = str,
    previous_ending: str | None = None,
    misspelt: tuple[str, ...] = (),
) -> ServerStartError:
    """A failure while starting, connecting or handshaking; `previous_ending` is `ending(…)` of the start before
    this one, if it failed and no start succeeded since; `misspelt`, the unknown keys of its entry that look like
    fields (a server started without its `args` may wait for ever: a timeout names them)."""
    cause = innermost(exc)
    never_ran = isinstance(cause, FileNotFoundError | PermissionError)  # so it wrote nothing on any stderr
    logs = f" Its stderr is in {stderr_log}." if stderr_log and not never_ran else ""
    if isinstance(cause, SignInRequiredError):
        return cause
    if isinstance(cause, DownstreamError):
        # `said`, not `message`: its next steps stay data, for a person's words (a sign-in's command)
        return ServerStartError(cause.said, server=server, phase="startup", retryable=cause.retryable)
    if isinstance(cause, EndedBeforeHandshake):
        return _ended(server, cause, stderr_log, repeated=ending(cause) == previous_ending)
    if isinstance(cause, TimeoutError):
        reason = f"did not finish starting within {timeout_seconds:g}s (connectTimeoutMs)"
        if misspelt:
            reason += f"; its entry has {', '.join(misspelt)}, which the gateway ignores"
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
        f"Server '{server}' {reason}.{logs} Fix its entry in config.json or check the server, then try again.",
        server=server,
        phase="startup",
        retryable=not never_ran,
    )


def ending(exc: BaseException) -> str | None:
    """How a start ended, when it ended with the server's exit before its handshake: its exit status and words,
    so two starts that ended alike are known as such; None for any other failure."""
    cause = innermost(exc)
    if not isinstance(cause, EndedBeforeHandshake):
        return None
    return f"{cause.exit_code}: {SEPARATOR.join(cause.said)}"


def _ended(server: str, cause: EndedBeforeHandshake, stderr_log: str | None, *, repeated: bool) -> ServerStartError:
    code = cause.exit_code
    if code is None:
        how = "closed its connection"
    elif code < 0:
        how = f"was killed by signal {-code}"
    else:
        how = f"exited with code {code}"
    said = f', saying: "{SEPARATOR.join(cause.said)}".' if cause.said else " without a word on stderr."
    logs = f" Its full stderr is in {stderr_log}." if stderr_log else ""
    named_its_reason = code is not None and code > 0 and bool(cause.said)
    if named_its_reason:
        advice = (
            " Starting it again as configured will fail the same way: the user must fix what it names (a missing "
            "variable or key goes in the server's \"env\" in the gateway's config.json), then try again."
        )
    elif repeated:
        advice = (
            " It ended the same way on its previous start, so a retry will not help: the user must check its "
            "command, args and env in the gateway's config.json, then try again."
        )
    else:
        advice = " Check its command, args and env in config.json; a retry may help if it failed by chance."
    return ServerStartError(
        f"Server '{server}' {how} before the MCP handshake finished{said}{logs}{advice}",
        server=server,
        phase="startup",
        retryable=not (named_its_reason or repeated),
    )


def early_exit(
    server: str, lived: float, stderr_log: str | None, said: tuple[str, ...], *, repeated: bool
) -> ServerStartError:
    """A server that exited `lived` seconds after its handshake, before answering a tool call: a failed start,
    quoting what it `said` on stderr; not worth a retry when it ended just so on its previous start (`repeated`)."""
    words = f', saying: "{SEPARATOR.join(said)}"' if said else ""
    logs = f" Its stderr is in {stderr_log}." if stderr_log else ""
    advice = (
        " It ended the same way on its previous start, so a retry will not help: the user must fix the server or "
        "its entry in the gateway's config.json, then try again."
        if repeated
        else " Fix the server or its entry in config.json, then try again."
    )
    return ServerStartError(
        f"Server '{server}' exited {lived:.1f}s after it started{words}, before answering a tool call, so "
        f"it counts as a failed start.{logs}{advice}",
        server=server,
        phase="startup",
        retryable=not repeated,
    )


def crash(server: str, stderr_log: str | None) -> DownstreamError:
    """A server whose process ended while it was serving."""
    logs = f"; its stderr is in {stderr_log}" if stderr_log else ""
    return DownstreamError(
        f"Server '{server}' exited unexpectedly{logs}.", server=server, phase="tool_call", retryable=True
    )


def backoff_refusal(server: str, seconds_left: float, last: ErrorRecord | None) -> BackoffError:
    """A call inside a failed server's backoff window: it fails fast, repeating the last error. After an error a
    retry will not help (the server said why it cannot run), the text does not invite one either."""
    if last is not None and not last.retryable:
        return BackoffError(
            f"Server '{server}' failed recently and will not be retried for {math.ceil(seconds_left)}s "
            f"(last error: {last.message})",
            server=server,
            seconds_left=seconds_left,
            retryable=False,
        )
    reason = last.message if last is not None else "it failed to start"
    return BackoffError(
        f"Server '{server}' failed recently and will not be retried for {math.ceil(seconds_left)}s "
        f"(last error: {reason}); fix it, or try again after that.",
        server=server,
        seconds_left=seconds_left,
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


def _error_reply(server: str, tool: str, phase: Phase, cause: ErrorReply, mask: Mask) -> DownstreamError:
    reply = cause.reply
    if isinstance(reply, ServerError) and is_sign_in_reply(reply.data):
        return sign_in_required(server, phase, renewal_failure(reply.data))
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


def sign_in_required(server: str, phase: Phase = "startup", renewal_failed: str | None = None) -> SignInRequiredError:
    """The server refused the gateway and no stored sign-in could answer: a person must sign in; or its sign-in
    could not be renewed because its token endpoint failed (`renewal_failed`): then it may do to try later."""
    if renewal_failed is not None:
        said = Message.of(
            f"Server '{server}' refused its sign-in, which could not be renewed: {renewal_failed}; try again in a "
            "while, or ",
            Step("login", server=server),
            " to sign in anew.",
        )
        return SignInRequiredError(said, server=server, phase=phase, retryable=True)
    said = Message.of(f"Server '{server}' needs you to sign in: ", Step("login", server=server), ", then try again.")
    return SignInRequiredError(said, server=server, phase=phase, retryable=False)


def remote_start_failure(name: str, url: str, last_error: httpx2.Response | None, exc: Exception) -> Exception:
    """A clearer error than the transport's when a remote server answered an HTTP error (`last_error`, the last
    error status it answered while connecting) or was not there; else `exc` itself, for `start_failure`."""
    cause = innermost(exc)
    if last_error is not None:
        response = last_error
        return ServerStartError(
            f"Server '{name}' answered HTTP {response.status_code} {response.reason_phrase} at "
            f"{display_url(response.request.url)}; "
            "check that the server works and that its url in config.json is right, then try again.",
            server=name,
            phase="startup",
            retryable=response.status_code >= HTTP_SERVER_ERROR_STATUS,
        )
    if isinstance(cause, httpx2.ConnectError):
        return ServerStartError(
            f"Server '{name}' could not be reached at {display_url(url)}: nothing accepted the connection "
            f"({cause}); check that it is running and that its url in config.json is right, then try again.",
            server=name,
            phase="startup",
            retryable=True,
        )
    return exc
