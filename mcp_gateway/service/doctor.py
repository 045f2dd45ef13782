"""`doctor`: start every server, list its tools, and say what each one costs and what is wrong with it.

Unlike `refresh`, it always starts each enabled server (a fresh listing is the only proof that it works)
and times it. For each it reports the tool count, the size of its tool definitions in tokens (what a
client pays for them in every request when it talks to the server directly), tool names that clients
reject, the error with its phase and whether a retry can help, and where its stderr log is. The summary
sets the direct cost of all servers against the gateway's own fixed context.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import anyio

from mcp_gateway.catalog import ServerCatalog, ToolRecord
from mcp_gateway.config import GatewayConfig, StdioServer
from mcp_gateway.errors import DownstreamError
from mcp_gateway.service.progress import ProgressFn, ServerProgress
from mcp_gateway.tokens import TokenCounter, compact_json

MAX_QUALIFIED_NAME = 64
"""Model APIs cap tool names at 64 characters; clients that prefix a tool with its server hit it first."""
MAX_TOOL_NAME = 128
TOOL_NAME_CHARACTERS = re.compile(r"[A-Za-z0-9_.-]+")
"""The characters the MCP specification (2025-11-25) recommends for tool names."""


@dataclass(frozen=True)
class CheckFailure:
    phase: str
    message: str
    retryable: bool


@dataclass(frozen=True)
class ServerCheck:
    name: str
    transport: str
    lifecycle: str
    disabled: bool = False
    listed: bool = False
    seconds: float | None = None
    """From asking for the listing to having it: the start, the handshake and every page."""
    tool_count: int = 0
    schema_tokens: int = 0
    protocol_version: str | None = None
    name_problems: tuple[str, ...] = ()
    problem: CheckFailure | None = None
    stderr_log: Path | None = None


@dataclass(frozen=True)
class Summary:
    servers: int
    listed: int
    tools: int
    direct_tokens: int
    """What a client pays in every request for the tool definitions of the servers that listed."""
    gateway_tokens: int
    """What it pays through the gateway: the four meta-tools and the instructions, whatever stands behind."""


@dataclass
class DoctorReport:
    checks: list[ServerCheck] = field(default_factory=list[ServerCheck])
    summary: Summary | None = None


@dataclass(frozen=True)
class Examination:
    """What `examine` needs from the gateway, given explicitly."""

    config: GatewayConfig
    refresh: Callable[[str], Awaitable[ServerCatalog]]
    """Start a server (if need be), list its tools now and store them in the catalog."""
    stderr_log: Callable[[str], Path]
    mask: Callable[[str], str]


async def examine(
    gateway: Examination,
    counter: TokenCounter,
    gateway_context: Callable[[], Awaitable[str]],
    *,
    servers: Sequence[str] | None = None,
    on_progress: ProgressFn | None = None,
) -> DoctorReport:
    """Start and list `servers` (default: all), a few at a time, and judge each.

    `gateway_context` gives what the gateway puts before a model (its tools and instructions) once they are
    listed: the instructions describe each server by what its listing said.
    """
    config = gateway.config
    names = list(servers) if servers is not None else list(config.servers)
    limiter = anyio.CapacityLimiter(config.settings.refresh_concurrency)
    checks: dict[str, ServerCheck] = {}

    async def check(name: str) -> None:
        async with limiter:
            if on_progress is not None:
                on_progress(ServerProgress(name, "starting"))
            result = await _check_server(gateway, name, counter)
            checks[name] = result
            if on_progress is not None:
                on_progress(_progress(result))

    async with anyio.create_task_group() as group:
        for name in names:
            if config.servers[name].spec.disabled:
                checks[name] = _describe(gateway, name, disabled=True)
            else:
                group.start_soon(check, name)
    ordered = [checks[name] for name in names]
    listed = [c for c in ordered if c.listed]
    summary = Summary(
        servers=sum(1 for c in ordered if not c.disabled),
        listed=len(listed),
        tools=sum(c.tool_count for c in listed),
        direct_tokens=sum(c.schema_tokens for c in listed),
        gateway_tokens=counter.count(await gateway_context()),
    )
    return DoctorReport(ordered, summary)


async def _check_server(gateway: Examination, name: str, counter: TokenCounter) -> ServerCheck:
    base = _describe(gateway, name, disabled=False)
    started = time.perf_counter()
    try:
        entry = await gateway.refresh(name)
    except DownstreamError as error:
        problem = CheckFailure(error.phase, gateway.mask(error.message), error.retryable)
        return replace(base, seconds=time.perf_counter() - started, problem=problem)
    return replace(
        base,
        listed=True,
        seconds=time.perf_counter() - started,
        tool_count=len(entry.tools),
        schema_tokens=schema_tokens(entry, counter),
        protocol_version=entry.protocol_version,
        name_problems=name_problems(name, entry.tools),
    )


def _progress(check: ServerCheck) -> ServerProgress:
    if check.listed:
        return ServerProgress(check.name, "listed", tool_count=check.tool_count, seconds=check.seconds)
    error = check.problem.message if check.problem is not None else None
    return ServerProgress(check.name, "failed", seconds=check.seconds, error=error)


def _describe(gateway: Examination, name: str, *, disabled: bool) -> ServerCheck:
    spec = gateway.config.servers[name].spec
    log = gateway.stderr_log(name) if isinstance(spec, StdioServer) else None
    return ServerCheck(name=name, transport=spec.type, lifecycle=spec.lifecycle, disabled=disabled, stderr_log=log)


def schema_tokens(entry: ServerCatalog, counter: TokenCounter) -> int:
    """The tokens of the server's tool list as a client gets it, every field included, in compact JSON."""
    return counter.count(compact_json([tool.to_wire() for tool in entry.tools]))


def name_problems(server: str, tools: Sequence[ToolRecord]) -> tuple[str, ...]:
    """Names clients reject or mix up: too long once qualified, listed twice, or with unusual characters."""
    problems: list[str] = []
    counts = Counter(tool.name for tool in tools)
    for tool_name, count in counts.items():
        if count > 1:
            problems.append(f"'{tool_name}' is listed {count} times; clients keep only one of them")
    for tool_name in counts:
        qualified = f"{server}.{tool_name}"
        if len(qualified) > MAX_QUALIFIED_NAME:
            problems.append(
                f"'{qualified}' is {len(qualified)} characters; clients that prefix tools with their server "
                f"reject or cut names over {MAX_QUALIFIED_NAME}"
            )
        if len(tool_name) > MAX_TOOL_NAME or not TOOL_NAME_CHARACTERS.fullmatch(tool_name):
            problems.append(
                f"'{tool_name}' has characters outside A-Z a-z 0-9 _ - . or is over {MAX_TOOL_NAME} long "
                "(the MCP specification's advice); some clients refuse it"
            )
    return tuple(problems)
