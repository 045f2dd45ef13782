"""The command a client runs to start the gateway, before each client puts it in its own shape.

`uvx --from mcp-meta-gateway mcp-gateway`: the package is published as `mcp-meta-gateway` because the
PyPI name `mcp-gateway` belongs to another project (a bare `uvx mcp-gateway` would run that one).
`MCP_GATEWAY_HOME` points the client's gateway at the workspace the servers were imported into. GUI
apps started from a dock or menu get a minimal PATH without `~/.local/bin`, so for them `uvx` is
resolved to an absolute path now; when it cannot be found, plain `uvx` is written with a warning.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.importers.client import Launch
from mcp_gateway.importers.model import GATEWAY_DISTRIBUTION, GATEWAY_NAME, JsonObject
from mcp_gateway.paths import HOME_ENV_VAR

UVX = "uvx"
UVX_ARGS = ("--from", GATEWAY_DISTRIBUTION, GATEWAY_NAME)

Which = Callable[[str], str | None]


@dataclass(frozen=True)
class LaunchPlan:
    launch: Launch
    warnings: tuple[str, ...]


def gateway_launch(
    workspace: Path, *, gui: bool, client: str, needed: Sequence[str] = (), which: Which = shutil.which
) -> LaunchPlan:
    """The gateway command for one client; `workspace` is the gateway home the servers went into."""
    command = UVX
    warnings: list[str] = []
    if gui:
        found = which(UVX)
        if found:
            command = str(Path(found).absolute())
        else:
            warnings.append(
                f"uvx is not on this PATH, so the entry says plain 'uvx', which {client} (a GUI app) may not find: "
                "install uv (https://docs.astral.sh/uv/) and import again, or put uvx's absolute path in the entry"
            )
    env = {HOME_ENV_VAR: str(workspace)}
    return LaunchPlan(Launch(command, UVX_ARGS, env, tuple(dict.fromkeys(needed))), tuple(warnings))


def stdio_entry(launch: Launch) -> JsonObject:
    """The gateway as a typed stdio entry: the `mcpServers` shape most clients share."""
    return {"type": "stdio", **plain_stdio_entry(launch)}


def plain_stdio_entry(launch: Launch) -> JsonObject:
    """The gateway as a stdio entry without `type`, for clients that do not write one (Claude Desktop)."""
    return {"command": launch.command, "args": list(launch.args), "env": dict(launch.env)}
