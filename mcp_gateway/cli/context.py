"""What every command starts from: the workspace's config, with diagnostics on stderr, and a gateway over it.

Loading also installs the gateway's stderr logging with its `SecretMask`, so that nothing a library logs
while the command runs (the SDK, httpx) prints a secret of the config. The gateway (the search engine, the pool
and the SDK behind it) is imported only by `with_gateway`, for a command that uses one.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from mcp_gateway.config import GatewayConfig
from mcp_gateway.gateway_log import log_to_stderr
from mcp_gateway.masking import SecretMask
from mcp_gateway.service.home import load_workspace_config

if TYPE_CHECKING:
    from mcp_gateway.service.gateway import Gateway

_T = TypeVar("_T")


def load(args: argparse.Namespace, *, quiet: bool = False) -> GatewayConfig:
    """The workspace's config, each diagnostic a line on stderr; ConfigError (exit 2) when it is unusable."""
    config = load_workspace_config(args.home)
    secrets = secret_mask(config)
    log_to_stderr(secrets)
    if not quiet:
        for diagnostic in config.diagnostics:
            print(secrets.mask(f"mcp-gateway: {diagnostic.severity}: {diagnostic}"), file=sys.stderr)
    return config


def secret_mask(config: GatewayConfig) -> SecretMask:
    """The secrets of `config` (and of this process's environment, for `bearerTokenEnv`), as the gateway masks them."""
    return SecretMask.for_servers(config.servers.values(), os.environ)


def with_gateway(
    args: argparse.Namespace, work: Callable[[Gateway], Awaitable[_T]], *, config: GatewayConfig | None = None
) -> _T:
    """Run `work` against a gateway over this workspace (started servers are stopped before returning)."""
    import anyio

    from mcp_gateway.service.gateway import Gateway

    loaded = config if config is not None else load(args)

    async def main() -> _T:
        async with Gateway.for_home(args.home, loaded) as gateway:
            return await work(gateway)

    return anyio.run(main)


async def load_missing(gateway: Gateway, *, quiet: bool = False, only: str | None = None) -> None:
    """Fetch the tools of servers with no valid cache entry, so a one-shot command sees every tool; `only`: of
    that server alone (a command about one server neither waits for the others nor reports their failures)."""
    await gateway.loaded()
    due = [name for name in gateway.servers_to_load() if only in (None, name)]
    if not due:
        return
    if not quiet:
        print(f"mcp-gateway: loading the tools of {', '.join(due)} …", file=sys.stderr)
    report = await gateway.refresh(due)
    if not quiet:
        for outcome in report.failed:
            print(f"mcp-gateway: {outcome.server}: {outcome.failure}", file=sys.stderr)
