"""Foreign exceptions and a connection's facts become gateway errors at one boundary, never by wire code alone."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    REQUEST_TIMEOUT,
    CallToolResult,
)
from pydantic import ValidationError

from mcp_gateway.downstream.connection import EndedBeforeHandshake, ErrorReply, LinkLost, RequestTimedOut
from mcp_gateway.downstream.error_journal import ErrorRecord
from mcp_gateway.downstream.link import MalformedReply, ServerError
from mcp_gateway.downstream.translate import (
    backoff_refusal,
    call_failure,
    early_exit,
    ending,
    innermost,
    start_failure,
)
from mcp_gateway.errors import (
    CallTimeoutError,
    ConnectionLostError,
    DownstreamError,
    DownstreamRpcError,
    ServerStartError,
)


def validation_error() -> ValidationError:
    try:
        CallToolResult.model_validate({"content": 5})
    except ValidationError as error:
        return error
    raise AssertionError("expected a ValidationError")


def call(exc: BaseException, *, retry_safe: bool = False, tool: str = "create_issue") -> DownstreamError:
    return call_failure("github", tool, exc, timeout_seconds=30, retry_safe=retry_safe)


def start(exc: BaseException, stderr_log: str | None = None) -> ServerStartError:
    return start_failure("github", exc, timeout_seconds=60, stderr_log=stderr_log)


# ---- calls ----


def server_said(code: int, message: str) -> ErrorReply:
    return ErrorReply(ServerError(code, message, None))


@pytest.mark.parametrize("retry_safe", [True, False])
def test_our_own_deadline_passing_becomes_a_call_timeout(retry_safe: bool) -> None:
    error = call(RequestTimedOut(30), retry_safe=retry_safe)
    assert isinstance(error, CallTimeoutError)
    assert error.server == "github"
    assert error.phase == "tool_call"
    assert error.retryable is retry_safe
    assert "30s" in error.message
    assert "requestTimeoutMs" in error.message


def test_a_lost_link_during_a_safe_call_says_retrying_is_safe() -> None:
    error = call(LinkLost("Connection closed"), retry_safe=True)
    assert isinstance(error, ConnectionLostError)
    assert error.retryable
    assert "retrying is safe" in error.message


def test_a_lost_link_during_an_unsafe_call_says_to_check_before_retrying() -> None:
    error = call(LinkLost("Connection closed"), retry_safe=False)
    assert isinstance(error, ConnectionLostError)
    assert not error.retryable
    assert "may or may not have taken effect" in error.message
    assert "retrying is safe" not in error.message


@pytest.mark.parametrize(
    "code", [INVALID_PARAMS, METHOD_NOT_FOUND, INTERNAL_ERROR, CONNECTION_CLOSED, REQUEST_TIMEOUT, -1, 42]
)
def test_a_server_error_keeps_its_message_and_code_whatever_the_code(code: int) -> None:
    error = call(server_said(code, "Repository not found: acme/nope"))
    assert isinstance(error, DownstreamRpcError)
    assert error.code == code
    assert "Repository not found: acme/nope" in error.message
    assert "lost" not in error.message
    assert "did not answer" not in error.message
    assert not error.retryable


def test_a_huge_server_message_is_cut_and_says_how_much_is_left_out() -> None:
    error = call(server_said(INTERNAL_ERROR, "x" * 5_000_000))
    assert len(error.message) < 3000
    assert "more characters)" in error.message


def test_a_reply_that_is_not_json_rpc_is_named_as_such() -> None:
    error = call(ErrorReply(MalformedReply("the result must be an object")))
    assert isinstance(error, DownstreamRpcError)
    assert "a reply the gateway cannot use" in error.message
    assert "the result must be an object" in error.message


def test_a_result_that_breaks_the_protocol_becomes_a_downstream_rpc_error() -> None:
    error = call(validation_error())
    assert isinstance(error, DownstreamRpcError)
    assert "does not follow the MCP protocol" in error.message


def test_a_failed_tools_list_is_attributed_to_the_list_phase() -> None:
    assert call(server_said(INTERNAL_ERROR, "boom"), tool="tools/list").phase == "list_tools"


def test_an_unknown_failure_becomes_a_lost_connection_naming_the_exception() -> None:
    error = call(OSError("Broken pipe"))
    assert isinstance(error, ConnectionLostError)
    assert "OSError: Broken pipe" in error.message


def test_an_error_nested_in_exception_groups_is_unwrapped() -> None:
    nested = ExceptionGroup("outer", [ExceptionGroup("inner", [RequestTimedOut(30)])])
    assert isinstance(call(nested), CallTimeoutError)


def test_a_gateway_error_passes_through_unchanged() -> None:
    original = ConnectionLostError("gone", server="github", phase="tool_call", retryable=False)
    assert call(ExceptionGroup("g", [original])) is original


def test_innermost_returns_a_plain_exception_itself() -> None:
    plain = ValueError("x")
    assert innermost(plain) is plain
    assert innermost(BaseExceptionGroup("g", [BaseExceptionGroup("h", [plain])])) is plain


# ---- starts ----


def test_a_missing_command_is_not_retryable_and_names_the_command() -> None:
    error = start(FileNotFoundError(2, "No such file or directory", "npx-missing"))
    assert isinstance(error, ServerStartError)
    assert not error.retryable
    assert error.phase == "startup"
    assert "command not found (npx-missing)" in error.message


def test_a_permission_problem_is_not_retryable() -> None:
    assert not start(PermissionError(13, "Permission denied", "/opt/server")).retryable


def test_a_start_timeout_mentions_connect_timeout_ms_and_is_retryable() -> None:
    error = start(TimeoutError())
    assert error.retryable
    assert "60s" in error.message
    assert "connectTimeoutMs" in error.message


def test_a_server_exiting_before_the_handshake_is_described_as_such() -> None:
    error = start(ExceptionGroup("g", [LinkLost("Connection closed")]))
    assert "closed its connection before the MCP handshake finished" in error.message


@pytest.mark.parametrize("code", [INVALID_PARAMS, CONNECTION_CLOSED])
def test_a_rejected_handshake_keeps_the_servers_message_and_code(code: int) -> None:
    error = start(server_said(code, "Unsupported protocol version"))
    assert "Unsupported protocol version" in error.message
    assert f"code {code}" in error.message
    assert "before the MCP handshake finished" not in error.message


def test_an_in_process_servers_handshake_error_keeps_its_message() -> None:
    error = start(MCPError(INVALID_PARAMS, "Unsupported protocol version"))
    assert "Unsupported protocol version" in error.message


def test_a_start_failure_points_to_the_stderr_log_when_there_is_one() -> None:
    error = start(OSError("boom"), stderr_log="/home/u/logs/github.stderr.log")
    assert "Its stderr is in /home/u/logs/github.stderr.log." in error.message
    assert "OSError: boom" in error.message


def test_a_downstream_error_during_start_keeps_its_retryability() -> None:
    inner = ConnectionLostError("lost", server="github", phase="startup", retryable=False)
    error = start(ExceptionGroup("g", [inner]))
    assert error.message == "lost"
    assert not error.retryable


# ---- a server that ended before its handshake ----

LOG = "/home/u/logs/slack.stderr.log"


def ended(exit_code: int | None, *said: str, previous: str | None = None) -> ServerStartError:
    cause = EndedBeforeHandshake(exit_code, said)
    return start_failure(
        "slack", ExceptionGroup("g", [cause]), timeout_seconds=60, stderr_log=LOG, previous_ending=previous
    )


def test_a_server_that_exits_saying_why_is_quoted_and_not_worth_a_retry() -> None:
    error = ended(1, "Please set SLACK_BOT_TOKEN", "exiting")
    assert error.message.startswith(
        "Server 'slack' exited with code 1 before the MCP handshake finished, "
        'saying: "Please set SLACK_BOT_TOKEN | exiting".'
    )
    assert f"Its full stderr is in {LOG}." in error.message
    assert "will fail the same way" in error.message
    assert "then try again" in error.message
    assert (error.phase, error.retryable) == ("startup", False)


@pytest.mark.parametrize(
    ("exit_code", "said", "how"),
    [
        (1, (), "exited with code 1"),
        (0, ("shutting down: nothing to do",), "exited with code 0"),
        (-9, ("Killed",), "was killed by signal 9"),
        (None, ("still running",), "closed its connection"),
    ],
)
def test_an_ending_that_names_no_reason_may_be_retried_once_and_not_when_it_repeats(
    exit_code: int | None, said: tuple[str, ...], how: str
) -> None:
    first = ended(exit_code, *said)
    assert f"Server 'slack' {how} before the MCP handshake finished" in first.message
    assert ("without a word on stderr" in first.message) is not bool(said)
    assert first.retryable
    assert "a retry may help" in first.message

    again = ended(exit_code, *said, previous=ending(EndedBeforeHandshake(exit_code, said)))
    assert not again.retryable
    assert "ended the same way on its previous start, so a retry will not help" in again.message


def test_an_ending_unlike_the_previous_one_is_judged_on_its_own() -> None:
    previous = ending(EndedBeforeHandshake(1, ()))
    assert ended(0, previous=previous).retryable
    assert ended(1, "first words", previous=ending(EndedBeforeHandshake(1, ("other words",)))).retryable is False


def test_only_an_ending_before_the_handshake_has_an_ending_to_compare() -> None:
    assert ending(ExceptionGroup("g", [EndedBeforeHandshake(2, ("x",))])) == "2: x"
    assert ending(TimeoutError()) is None
    assert ending(LinkLost("gone")) is None


def test_a_server_that_exits_soon_after_its_handshake_is_quoted_and_judged_by_whether_it_repeats() -> None:
    first = early_exit("slack", 0.3, LOG, ("Error: invalid_auth",), repeated=False)
    assert first.message.startswith(
        "Server 'slack' exited 0.3s after it started, saying: \"Error: invalid_auth\", before answering a tool call"
    )
    assert first.retryable
    silent = early_exit("slack", 1.0, LOG, (), repeated=True)
    assert "saying" not in silent.message
    assert "ended the same way on its previous start, so a retry will not help" in silent.message
    assert not silent.retryable


def test_a_call_inside_the_backoff_window_does_not_invite_a_retry_the_last_error_rules_out() -> None:
    hopeless = ended(1, "Please set SLACK_BOT_TOKEN")
    record = ErrorRecord("startup", hopeless.message, hopeless.retryable, 0.0)
    refusal = backoff_refusal("slack", 4.2, record)
    assert "will not be retried for 5s" in refusal.message
    assert hopeless.message in refusal.message
    assert "again after that" not in refusal.message
    assert not refusal.retryable

    hopeful = backoff_refusal("slack", 4.2, ErrorRecord("startup", "it crashed", True, 0.0))
    assert hopeful.message.endswith("(last error: it crashed); fix it, or try again after that.")
    assert hopeful.retryable
