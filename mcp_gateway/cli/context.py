"""What every command starts from: the workspace and its loaded config, with diagnostics on stderr.

Loading also installs the gateway's stderr logging with its `SecretMask`, so that nothing a library logs
while the command runs (the SDK, httpx) prints a secret of the config.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from mcp_gateway.config import GatewayConfig, load_config
from mcp_gateway.errors import CliError, ConfigError
from mcp_gateway.gateway_log import log_to_stderr
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace
from mcp_gateway.service.gateway import Gateway

CONFIG_ERROR = 2
_T = TypeVar("_T")


def workspace_of(args: argparse.Namespace) -> Workspace:
    return Workspace.from_environment(args.home)


def load(args: argparse.Namespace, *, quiet: bool = False) -> tuple[Workspace, GatewayConfig]:
    """The workspace and its config; diagnostics go to stderr, one line each."""
    workspace = workspace_of(args)
    try:
        config = load_config(workspace.config_path)
    except ConfigError as error:
        raise CliError(error.message, CONFIG_ERROR) from error
    secrets = secret_mask(config)
    log_to_stderr(secrets)
    if not quiet:
        for diagnostic in config.diagnostics:
            print(secrets.mask(f"mcp-gateway: {diagnostic.severity}: {diagnostic}"), file=sys.stderr)
    return workspace, config


def secret_mask(config: GatewayConfig) -> SecretMask:
    """The secrets of `config` (and of this process's environment, for `bearerTokenEnv`), as the gateway masks them."""
    return SecretMask.for_servers(config.servers.values(), os.environ)


def with_gateway(
    args: argparse.Namespace,
    work: Callable[[Gateway], Awaitable[_T]],
    *,
    loaded: tuple[Workspace, GatewayConfig] | None = None,
) -> _T:
    """Run `work` against a gateway over this workspace (started servers are stopped before returning)."""
    workspace, config = loaded if loaded is not None else load(args)

    async def main() -> _T:
        async with Gateway(workspace, config) as gateway:
            return await work(gateway)

    return anyio.run(main)


async def load_missing(gateway: Gateway, *, quiet: bool = False) -> None:
    """Fetch the tools of servers with no valid cache entry, so a one-shot command sees every tool."""
    due = gateway.catalog.needs_refresh()
    if not due:
        return
    if not quiet:
        print(f"mcp-gateway: loading the tools of {', '.join(due)} …", file=sys.stderr)
    await gateway.refresh_servers(due)
    for name in due:
        failure = gateway.catalog.failure(name)
        if failure and not quiet:
            print(f"mcp-gateway: {name}: {failure}", file=sys.stderr)
