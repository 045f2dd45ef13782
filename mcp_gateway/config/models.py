"""Validated config: the gateway settings and one `ServerSpec` per downstream server.

These are the I/O-boundary models for `config.json`. Keys are camelCase on disk; snake_case is accepted
too (the loader normalizes before validation). `type` picks the model: `stdio` (default), `http`
(Streamable HTTP) or `sse`. Values arrive here already `${VAR}`-expanded. Models are frozen: the rest of
the gateway treats a spec as a value.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

Lifecycle = Literal["lazy", "eager", "keep-alive"]
PolicyAction = Literal["allow", "confirm", "deny"]

DEFAULT_IDLE_TIMEOUT_MINUTES = 10.0
DEFAULT_CACHE_TTL_DAYS = 7.0
DEFAULT_TOOL_SEARCH_LIMIT = 10
MAX_TOOL_SEARCH_LIMIT = 20
DEFAULT_CONNECT_TIMEOUT_MS = 60_000
DEFAULT_REQUEST_TIMEOUT_MS = 60_000
DEFAULT_CLOSE_TIMEOUT_MS = 10_000
DEFAULT_FAILURE_BACKOFF_MS = 60_000
DEFAULT_REFRESH_CONCURRENCY = 4
DEFAULT_DAEMON_GRACE_SECONDS = 30.0
"""Long enough for a client that reconnects (`/mcp`, a new terminal tab) to find its servers still warm."""
MAX_REFRESH_CONCURRENCY = 32
DEFAULT_MAX_CALLS_PER_SESSION = 16
"""Above what one client sends at once (Claude Code runs at most 10 tool calls in parallel by default), so a
session never waits in ordinary use, while 8 sessions of one daemon hold at most 128 calls between them."""


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        validate_by_name=True,
        validate_by_alias=True,
    )


class Settings(_Model):
    """Gateway-wide settings; every server-level timeout falls back to these."""

    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_MINUTES
    """Minutes a lazy server may sit idle before it is stopped; 0 or less never stops it."""
    cache_ttl_days: float = Field(default=DEFAULT_CACHE_TTL_DAYS, ge=0)
    """Days a server's cached tool list stays valid; 0 means it never expires."""
    tool_search_limit: int = Field(default=DEFAULT_TOOL_SEARCH_LIMIT, ge=1, le=MAX_TOOL_SEARCH_LIMIT)
    startup_metadata_check: bool = True
    """Refresh invalid catalog entries in the background at start; false refreshes a server when it is named."""
    connect_timeout_ms: int = Field(default=DEFAULT_CONNECT_TIMEOUT_MS, gt=0)
    request_timeout_ms: int = Field(default=DEFAULT_REQUEST_TIMEOUT_MS, gt=0)
    close_timeout_ms: int = Field(default=DEFAULT_CLOSE_TIMEOUT_MS, gt=0)
    failure_backoff_ms: int = Field(default=DEFAULT_FAILURE_BACKOFF_MS, ge=0)
    refresh_concurrency: int = Field(default=DEFAULT_REFRESH_CONCURRENCY, ge=1, le=MAX_REFRESH_CONCURRENCY)
    debug: bool = False
    trust: Literal["auto", "manual"] = "auto"
    """A new server's first listing is trusted as the user put it there (`auto`), or held for review (`manual`)."""
    shared: bool = True
    """The sessions of this workspace share one gateway daemon; false: each runs its own (`serve --standalone`)."""
    daemon_grace_seconds: float = Field(default=DEFAULT_DAEMON_GRACE_SECONDS, ge=0)
    """How long the daemon waits after its last session leaves before it stops its servers and exits."""
    max_calls_per_session: int = Field(default=DEFAULT_MAX_CALLS_PER_SESSION, ge=1)
    """Requests one client session may have in flight; more wait for one to finish (`server/session_scope.py`)."""
    policy: dict[str, PolicyAction] = Field(default_factory=dict[str, PolicyAction])
    """Per tool (a `server.tool` glob) or annotation hint: allow, confirm or deny (`mcp_gateway.policy`)."""
    audit_values: bool = False
    """logs/audit.jsonl records argument values (masked), not only their shape (`mcp_gateway.audit`)."""


class _ServerBase(_Model):
    """Fields every transport shares: gateway-side metadata and per-server overrides."""

    aliases: tuple[str, ...] = ()
    lifecycle: Lifecycle = "lazy"
    idle_timeout: float | None = None
    disabled: bool = False
    refresh_on_startup: bool = False
    include_tools: tuple[str, ...] = ()
    exclude_tools: tuple[str, ...] = ()
    connect_timeout_ms: int | None = Field(default=None, gt=0)
    request_timeout_ms: int | None = Field(default=None, gt=0)
    close_timeout_ms: int | None = Field(default=None, gt=0)
    protocol: str = "auto"
    """`auto` (probe, remembered per server), `legacy` (initialize handshake) or a protocol version."""
    description: str | None = None
    """Optional words about the server, searched like its aliases."""

    @field_validator("aliases", "include_tools", "exclude_tools", mode="before")
    @classmethod
    def _one_string_is_a_list(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("protocol")
    @classmethod
    def _known_protocol(cls, value: str) -> str:
        from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

        if value not in ("auto", "legacy", *KNOWN_PROTOCOL_VERSIONS):
            known = ", ".join(("auto", "legacy", *KNOWN_PROTOCOL_VERSIONS))
            raise ValueError(f"unknown protocol {value!r}; use one of {known}")
        return value


class StdioServer(_ServerBase):
    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict[str, str])
    cwd: str | None = None
    inherit_env: bool = True
    share_across_projects: bool = False
    """Without a `cwd`: run in the home directory, one process for sessions of every project (`definitions.py`),
    instead of in each session's working directory. Not a connection field: it decides the directory a shared
    daemon chooses, which the resolved definition (not the catalog's key) already holds."""


class OAuthSettings(_Model):
    """How `mcp-gateway login` signs in to a remote server with OAuth (`oauth` in a server entry).

    Every field is optional: `{}` marks a server that needs a sign-in, and the client is then registered
    dynamically (RFC 7591). A configured `clientId` is used instead, for servers that do not register clients.
    """

    client_id: str | None = Field(default=None, min_length=1)
    client_secret: str | None = Field(default=None, min_length=1)
    """Write it as `${VAR}`: config.json is not the place for a secret."""
    scopes: tuple[str, ...] = ()
    """The scopes asked for; empty asks for what the server advertises."""
    redirect_port: int | None = Field(default=None, ge=1, le=65535)
    """The loopback port the sign-in returns to; unset takes a free one (some servers allow only a fixed one)."""

    @field_validator("scopes", mode="before")
    @classmethod
    def _spaced_scopes(cls, value: Any) -> Any:
        return tuple(value.split()) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _secret_needs_an_id(self) -> OAuthSettings:
        if self.client_secret is not None and self.client_id is None:
            raise ValueError("'clientSecret' is set without 'clientId'; add the client id the secret belongs to")
        return self


class HttpServer(_ServerBase):
    type: Literal["http"] = "http"
    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict[str, str])
    bearer_token_env: str | None = None
    oauth: OAuthSettings | None = None
    """Signs in with OAuth (`mcp-gateway login`); tokens stored by a sign-in are used even without it."""


class SseServer(_ServerBase):
    type: Literal["sse"] = "sse"
    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict[str, str])
    bearer_token_env: str | None = None
    oauth: OAuthSettings | None = None


ServerSpec = Annotated[StdioServer | HttpServer | SseServer, Field(discriminator="type")]
RemoteServer = HttpServer | SseServer

# Fields that change how the gateway reaches a server; everything else is gateway-side metadata and
# must not invalidate the cached catalog when edited.
CONNECTION_FIELDS: dict[str, frozenset[str]] = {
    "stdio": frozenset({"type", "command", "args", "env", "cwd", "inherit_env"}),
    "http": frozenset({"type", "url", "headers", "bearer_token_env"}),
    "sse": frozenset({"type", "url", "headers", "bearer_token_env"}),
}
