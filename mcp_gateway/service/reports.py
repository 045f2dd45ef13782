"""What the gateway's application API returns: typed reports that cross the service's one door.

The MCP server serialises these for a model (`service/views.py` gives their JSON shapes) and the command line
renders them for a person; neither reaches behind them into the catalog or the pool. Every text a report
carries that came from a downstream server has had the gateway's known secrets masked already.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcp_gateway.catalog import ToolRecord
from mcp_gateway.daemon import DaemonState
from mcp_gateway.errors import Phase
from mcp_gateway.json_object import JsonObject
from mcp_gateway.search import Confidence
from mcp_gateway.sign_in import SignInState
from mcp_gateway.wording import Words

CacheState = Literal["fresh", "stale", "missing", "loading", "failed", "disabled"]


class ToolDefinition:
    """One downstream tool as its server listed it, under its qualified name `server.tool`.

    A read-only view of the catalog's record: each JSON-valued field is parsed anew when read, so a reader
    may change what it gets without touching what the catalog holds.
    """

    __slots__ = ("_record", "server")

    def __init__(self, server: str, record: ToolRecord) -> None:
        self.server = server
        self._record = record

    @property
    def name(self) -> str:
        return self._record.name

    @property
    def qualified(self) -> str:
        return f"{self.server}.{self._record.name}"

    @property
    def title(self) -> str | None:
        return self._record.title

    @property
    def description(self) -> str:
        return self._record.description

    @property
    def input_schema(self) -> JsonObject:
        return self._record.input_schema

    @property
    def annotations(self) -> JsonObject | None:
        return self._record.annotations

    def to_wire(self) -> JsonObject:
        """The tool exactly as its server listed it (every field, under its own name)."""
        return self._record.to_wire()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolDefinition) and (other.server, other._record) == (self.server, self._record)

    def __hash__(self) -> int:
        return hash((self.server, self._record))

    def __repr__(self) -> str:
        return f"ToolDefinition({self.qualified!r})"


@dataclass(frozen=True)
class ToolDescription:
    """One tool's whole definition, with what its server's own instructions say (masked and bounded)."""

    tool: ToolDefinition
    server_instructions: str | None


@dataclass(frozen=True)
class SearchHit:
    tool: ToolDefinition
    confidence: Confidence
    reasons: tuple[str, ...]
    """Why it matched, in words ("name: list, issues", "server: github")."""


@dataclass(frozen=True)
class SearchReport:
    query: str
    hits: tuple[SearchHit, ...]
    notes: tuple[Words, ...]
    """Sentences about the search itself: a server hint read differently, servers that could not be listed."""
    focused_server: str | None
    loading: tuple[str, ...]
    """Servers whose tools are being listed right now (a first start); their tools may be missing."""
    failed: Mapping[str, str] = field(default_factory=dict[str, str])
    """Servers with no tools known because listing them failed, and why."""
    unlisted: tuple[str, ...] = ()
    """Enabled servers with no cached tools that nobody has asked to load (startupMetadataCheck off)."""
    no_servers_hint: str | None = None
    """Set when no server is configured at all: what to do about it."""


@dataclass(frozen=True)
class ToolPage:
    server: str
    tools: tuple[ToolDefinition, ...]
    total: int
    offset: int
    instructions: str | None
    """The server's own instructions from its handshake, if it gave any (masked and bounded)."""
    notes: tuple[str, ...] = ()
    """What the gateway must say besides the page: that config.json cannot be used, while it cannot."""

    @property
    def next_offset(self) -> int | None:
        following = self.offset + len(self.tools)
        return following if following < self.total else None


@dataclass(frozen=True)
class LastError:
    phase: Phase
    message: str
    retryable: bool
    at: float
    """Wall-clock time (epoch seconds)."""


@dataclass(frozen=True)
class RunningProcess:
    gateway_pid: int
    pid: int


@dataclass(frozen=True)
class ServerState:
    name: str
    transport: str
    lifecycle: str
    cache: CacheState
    tool_count: int
    fetched_at: float | None
    protocol_version: str | None
    running: tuple[RunningProcess, ...]
    """Which gateway process runs this server, as those gateways recorded it (this one included)."""
    connected: bool
    """Whether this gateway holds a live connection to it (remote servers have no process to record)."""
    last_error: LastError | None
    skipped_tools: tuple[str, ...] = ()
    """Entries of the server's last listing that were left out as unusable, and why."""
    offered: tuple[int, int, int] = (0, 0, 0)
    """How many prompts, resources and resource templates it listed with its tools."""
    skipped_offered: tuple[str, ...] = ()
    """Why prompts, resources or templates (or a whole listing of them) were left out."""
    sign_in: SignInState | None = None
    """A remote server's OAuth sign-in (never its token); None for a local server."""


@dataclass(frozen=True)
class BackgroundFailure:
    gateway_pid: int
    task: str
    error: str
    at: float


@dataclass(frozen=True)
class StatusReport:
    config_path: Path
    servers: tuple[ServerState, ...]
    rejected: Mapping[str, str]
    """Config entries too broken to load, and why."""
    background_failures: tuple[BackgroundFailure, ...]
    """What failed in the background of the gateways running on this workspace (they served on)."""
    workspace_problems: tuple[str, ...]
    """What keeps the workspace from working fully (a `logs` that is a file, …), one sentence each."""
    cache_notice: str | None
    """Why cache.json could not be used, if it could not."""
    no_servers_hint: str | None = None
    config_problem: str | None = None
    """Why config.json as it is now cannot be used by this gateway, which serves its last good version."""
    daemons: tuple[DaemonState, ...] = ()
    """The workspace's running daemons (one, or two across an upgrade), as their state files say."""
    stale_daemons: tuple[DaemonState, ...] = ()
    """State files of daemons that no longer run (SIGKILLed): left until the next daemon starts."""
    awaiting_review: int = 0
    """Definitions held until a person reviews them (`mcp-gateway review`)."""


@dataclass(frozen=True)
class RefreshOutcome:
    server: str
    tool_count: int | None
    """None when listing failed."""
    failure: str | None


@dataclass(frozen=True)
class RefreshReport:
    outcomes: tuple[RefreshOutcome, ...]
    cache_notice: str | None
    """Set when what was listed could not be saved to cache.json (it still serves this process)."""

    @property
    def failed(self) -> tuple[RefreshOutcome, ...]:
        return tuple(outcome for outcome in self.outcomes if outcome.failure is not None)
