"""One live connection to a downstream server, shared by every concurrent call to it.

Calls go through the SDK session's `send_request` with a raw-dict result type rather than
`Client.call_tool`: the gateway must pass a result through exactly as the server sent it, and
`call_tool` would re-validate structured content against the output schema (raising on a server's
mismatch instead of letting the client see it) and re-list tools to do so. The protocol-level shape is
still validated by the session for the negotiated version.

Every request is timed here, not by the SDK: the SDK reports its own timeout with the same code (-32001) a
server may send, so a timeout is known as one only because our own deadline passed. Failures leave as the
facts below (what happened, judged locally with the connection's `Link`), which `translate.py` turns into
the gateway's errors.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol, cast

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.subscriptions import Subscription
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from pydantic import RootModel, ValidationError

from mcp_gateway.bounds import MAX_DOWNSTREAM_MESSAGE_CHARS, MAX_SERVER_INFO_CHARS, MAX_SERVER_INSTRUCTIONS_CHARS, clip
from mcp_gateway.catalog import Listing, Surface
from mcp_gateway.downstream.link import Link, MalformedReply, ServerError
from mcp_gateway.downstream.stderr_tail import StderrTail
from mcp_gateway.eras import is_handshake_version
from mcp_gateway.json_object import JsonObject
from mcp_gateway.masking import SecretMask
from mcp_gateway.questions import Askers, Asking, CallDeadline

ProgressCallback = ProgressFnT

MAX_LIST_PAGES = 1000
"""A server whose `tools/list` cursor never ends must not hang a refresh."""


class _RawResult(RootModel[dict[str, Any]]):
    """A result kept exactly as the server sent it (after the session's protocol-shape check)."""


class RequestTimedOut(Exception):  # noqa: N818  # a fact about a request, translated in translate.py
    """Our own deadline for the request passed; the SDK has sent the server a cancellation."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no answer within {seconds:g}s")
        self.seconds = seconds


class ErrorReply(Exception):  # noqa: N818
    """The server answered the request with a JSON-RPC error, or with a reply that is not JSON-RPC."""

    def __init__(self, reply: ServerError | MalformedReply) -> None:
        super().__init__(reply.message if isinstance(reply, ServerError) else reply.reason)
        self.reply = reply


class LinkLost(Exception):  # noqa: N818
    """The connection ended (the server exited or closed it) before the request was answered."""


class EndedBeforeHandshake(Exception):  # noqa: N818
    """A local server's process ended, or closed its stdout, before its handshake finished.

    `exit_code` is its exit status (negative: the signal that killed it), None when it had not exited within
    the wait for it; `said` is what it wrote on stderr during this run, as `StderrTail.quoted` chooses it.
    """

    def __init__(self, exit_code: int | None, said: tuple[str, ...]) -> None:
        super().__init__(f"ended before its handshake (exit status {exit_code})")
        self.exit_code = exit_code
        self.said = said


class Hurry(Protocol):
    """Shortens a server's stop when the whole gateway stops (`urgent`: by a signal; see `stdio`)."""

    def __call__(self, *, urgent: bool = False) -> None: ...


def _no_hurry(*, urgent: bool = False) -> None:
    """In-process servers have no process to stop."""


@dataclass
class OpenedClient:
    client: Client
    exited: anyio.Event | None
    """Set when a stdio server's process ends; None for remote servers."""
    pid: int | None
    link: Link | None = None
    """None only for in-process servers (tests), which have no wire."""
    hurry: Hurry | None = None
    """Shortens the stop of a local server's process when the whole gateway stops; None for remote servers."""
    stderr: StderrTail | None = None
    """What a local server's process has said on stderr; None for remote servers."""
    askers: Askers | None = None
    """The calls in flight whose clients answer the server's questions; None only for in-process servers."""


class Connection:
    """A connected client plus the bookkeeping the pool needs to share, reap and retire it."""

    def __init__(self, server: str, opened: OpenedClient) -> None:
        self.server = server
        self._askers = opened.askers or Askers(server)
        self.pid = opened.pid
        self._client = opened.client
        self._link = opened.link
        self.hurry: Hurry = opened.hurry or _no_hurry
        self.exited = opened.exited
        self.stderr = opened.stderr
        self.in_flight = 0
        self.opened_at = anyio.current_time()
        self.last_used = self.opened_at
        self.answered = False
        """A tool call on it succeeded: a server that dies soon and before that has failed to start."""
        self.failed_start = False
        """It ended before answering anything and was counted as a failed start (see the pool)."""
        self.usable = True
        """False once the pool decided to stop it; no new call may start on it."""
        self.stop = anyio.Event()
        self.crashed = False
        """The server's process ended before the pool asked it to stop."""
        self.idle = anyio.Event()
        self.idle.set()
        self.probing = False
        """A liveness probe is under way; one at a time is enough."""
        self._first_tools: list[JsonObject] | None = None
        self._first_listing = anyio.Lock()
        self._listed = False
        """Whether `listing` ran on it: its first one takes the tools a call's check already listed."""

    @property
    def protocol_version(self) -> str:
        return self._client.protocol_version

    @property
    def capabilities(self) -> types.ServerCapabilities:
        """What the server declared at its handshake (or discovery)."""
        return self._client.server_capabilities

    def begin_call(self) -> None:
        self.in_flight += 1
        self.idle = anyio.Event() if self.idle.is_set() else self.idle

    def end_call(self) -> None:
        self.in_flight -= 1
        self.last_used = anyio.current_time()
        if self.in_flight == 0:
            self.idle.set()

    async def call_tool(
        self,
        tool: str,
        arguments: JsonObject,
        *,
        timeout_seconds: float,
        on_progress: ProgressCallback | None,
        asking: Asking | None = None,
    ) -> JsonObject:
        """Send `tools/call` and return the result as the server sent it.

        On timeout the SDK sends the server `notifications/cancelled` before raising; on caller
        cancellation it does the same, so a cancelled `execute_tool` stops the downstream work too.
        `asking`: who answers the server's questions meanwhile (its deadline pauses while they wait), and
        a modern server's answers and state for this retry of an `input_required` call, passed on as given.
        """
        asking = asking or Asking()
        params = types.CallToolRequestParams(
            name=tool, arguments=arguments, input_responses=asking.input_responses, request_state=asking.request_state
        )
        with self._askers.asking(asking.asker, timeout_seconds) as deadline:
            return await self.request(
                types.CallToolRequest(params=params),
                timeout_seconds=timeout_seconds,
                on_progress=on_progress,
                deadline=deadline,
            )

    def tools_changed(self) -> None:
        """The server said its tools changed: its next listing asks it again, even its first."""
        self._listed = True

    async def first_tools(self, *, timeout_seconds: float) -> list[JsonObject]:
        """The tools this connection listed first, listed once (concurrent first callers share it): what a
        call on it is judged by before it is sent (`Pool(vet=…)`)."""
        if self._first_tools is not None:
            return self._first_tools  # every call asks: no lock once listed
        async with self._first_listing:
            if self._first_tools is None:
                listed = await self.list_all(
                    lambda params: types.ListToolsRequest(params=params), "tools", timeout_seconds=timeout_seconds
                )
                self._first_tools = [cast(JsonObject, tool) for tool in listed if isinstance(tool, dict)]
            return self._first_tools

    async def listing(self, *, timeout_seconds: float, secrets: SecretMask, process: str) -> Listing:
        """Every page of `tools/list` (each usable tool as the server listed it, see `Link` for the rest), what
        else it offers (`_surface`), and what it said about itself at its handshake, masked and bounded."""
        if not self._listed:  # a process started for a call: listed once, for the call's check and the catalog
            tools = await self.first_tools(timeout_seconds=timeout_seconds)
        else:
            if self._link is not None:
                self._link.take_skipped()
            listed = await self.list_all(
                lambda params: types.ListToolsRequest(params=params), "tools", timeout_seconds=timeout_seconds
            )
            tools = [cast(JsonObject, tool) for tool in listed if isinstance(tool, dict)]
        self._listed = True
        skipped = self._skipped_notes()
        surface = await self._surface(timeout_seconds=timeout_seconds, mask=secrets.mask)
        info = self._client.server_info

        def said(text: str | None, limit: int) -> str | None:
            return secrets.mask_clipped(text, limit) if text is not None and text.strip() else None

        return Listing(
            tools=tools,
            skipped=skipped,
            protocol_version=self.protocol_version,
            server_name=info.name if info is not None else None,
            server_version=info.version if info is not None else None,
            instructions=said(self._client.instructions, MAX_SERVER_INSTRUCTIONS_CHARS),
            server_title=said(info.title if info is not None else None, MAX_SERVER_INFO_CHARS),
            server_description=said(info.description if info is not None else None, MAX_SERVER_INFO_CHARS),
            surface=surface,
            process=process,
        )

    async def _surface(self, *, timeout_seconds: float, mask: Callable[[str], str]) -> Surface:
        """Its prompts, resources and resource templates, each listing asked only of a server that declared the
        capability (one that declared neither costs no request). Each stands alone: one that fails (an error
        reply, a timeout, a result that does not follow the protocol) is noted in `skipped`, masked and bounded,
        and the other listings are kept. Only a lost connection fails the whole listing, as it would for tools."""
        declared = self.capabilities
        notes: list[str] = []

        async def listing(
            method: str, make: Callable[[types.PaginatedRequestParams | None], types.Request[Any, Any]], key: str
        ) -> list[object]:
            try:
                return await self.list_all(make, key, timeout_seconds=timeout_seconds)
            except (ErrorReply, RequestTimedOut, ValidationError) as exc:
                reason = f"{exc.error_count()} protocol problems" if isinstance(exc, ValidationError) else str(exc)
                notes.append(f"{method} failed: {clip(mask(reason), MAX_DOWNSTREAM_MESSAGE_CHARS)}")
                return []

        prompts: list[object] = []
        resources: list[object] = []
        templates: list[object] = []
        if declared.prompts is not None:
            prompts = await listing("prompts/list", lambda params: types.ListPromptsRequest(params=params), "prompts")
        if declared.resources is not None:
            resources = await listing(
                "resources/list", lambda params: types.ListResourcesRequest(params=params), "resources"
            )
            templates = await listing(
                "resources/templates/list",
                lambda params: types.ListResourceTemplatesRequest(params=params),
                "resourceTemplates",
            )
        return Surface.listed(
            prompts=prompts,
            resources=resources,
            templates=templates,
            completions=declared.completions is not None,
            subscribe=declared.resources is not None and declared.resources.subscribe is True,
            skipped=notes,
        )

    def listen_to(self, uri: str) -> AbstractAsyncContextManager[Subscription]:
        """A 2026-07-28 `subscriptions/listen` stream for `uri`'s updates (they reach the `message_handler`)."""
        return self._client.listen(resource_subscriptions=[uri])

    async def list_all(
        self,
        make: Callable[[types.PaginatedRequestParams | None], types.Request[Any, Any]],
        key: str,
        *,
        timeout_seconds: float,
    ) -> list[object]:
        """Every page of a paginated listing (`prompts/list`, …): the entries under `key`, as the server sent them."""
        entries: list[object] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_LIST_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            page = await self.request(make(params), timeout_seconds=timeout_seconds)
            listed: Any = page.get(key)
            if isinstance(listed, list):
                entries.extend(cast(list[object], listed))
            next_cursor = page.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor or next_cursor in seen:
                break
            seen.add(next_cursor)
            cursor = next_cursor
        return entries

    async def responds(self, *, timeout_seconds: float) -> bool:
        """Whether the server still answers a trivial request: a timed-out call alone does not say.

        `ping` under the handshake protocols; from 2026-07-28 `ping` is gone, so the first page of
        `tools/list` stands in. Any answer counts, an error answer too: only silence means wedged.
        """
        if is_handshake_version(self.protocol_version):
            probe: types.PingRequest | types.ListToolsRequest = types.PingRequest(params=None)
        else:
            probe = types.ListToolsRequest(params=None)
        try:
            await self.request(probe, timeout_seconds=timeout_seconds)
        except (ErrorReply, ValidationError):
            return True
        except (RequestTimedOut, LinkLost):
            return False
        return True

    async def request(
        self,
        request: types.Request[Any, Any],
        *,
        timeout_seconds: float,
        on_progress: ProgressCallback | None = None,
        deadline: CallDeadline | None = None,
    ) -> JsonObject:
        """Send one request (`tools/call`, `prompts/get`, `resources/read`, …) and return its result as sent.

        Raises:
            RequestTimedOut, ErrorReply, LinkLost: see each; pydantic.ValidationError: a result that does not
            follow the protocol.
        """
        with (deadline or CallDeadline(timeout_seconds)).scope:
            try:
                result = await self._client.session.send_request(request, _RawResult, progress_callback=on_progress)
            except MCPError as exc:
                reply = self._link.origin(exc) if self._link else ServerError(exc.code, exc.message, exc.data)
                if reply is None:
                    raise LinkLost(str(exc)) from exc  # raised by the SDK itself: the connection is gone
                raise ErrorReply(reply) from exc
            return result.root
        raise RequestTimedOut(timeout_seconds)

    def _skipped_notes(self) -> tuple[str, ...]:
        if self._link is None:
            return ()
        notes, count = self._link.take_skipped()
        if count > len(notes):
            notes = [*notes, f"and {count - len(notes)} more"]
        return tuple(notes)
