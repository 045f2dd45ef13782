"""The workspace a command or a session works in, as the command line sees it: where its config is.

`home` is the `--home` option: a directory, else `$MCP_GATEWAY_HOME`, else the platform's directories (see
`mcp_gateway/paths.py`). Everything else about the workspace is the gateway's own business.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp_gateway.config import GatewayConfig, load_config
from mcp_gateway.config.template import write_default_config
from mcp_gateway.paths import Workspace, directory_problem

GATEWAY_LOG = "gateway.log"


def config_path(home: str | os.PathLike[str] | None) -> Path:
    """Where the config file of the workspace at `home` is (see `Gateway.for_home`)."""
    return Workspace.from_environment(home).config_path


def ensure_config_file(home: str | os.PathLike[str] | None) -> tuple[Path, bool]:
    """The config file of the workspace at `home`, and whether it was just created (from the template, with
    its folder) because nothing was there. An existing file, or a link, is never touched.

    Raises:
        ConfigError: the file or its folder cannot be created.
    """
    path = config_path(home)
    return path, write_default_config(path)


def load_workspace_config(home: str | os.PathLike[str] | None) -> GatewayConfig:
    """The config of the workspace at `home`, created from the template when missing.

    Raises:
        ConfigError: the file as a whole cannot be used.
    """
    return load_config(config_path(home))


def gateway_log_path(home: str | os.PathLike[str] | None) -> Path | None:
    """Where a serving gateway's own log goes with `debug` on; None when the workspace's `logs` is unusable."""
    workspace = Workspace.from_environment(home)
    workspace.ensure()  # the problems it meets are said by the gateway once it starts
    if directory_problem(workspace.logs_dir, allow_link=False) is not None:
        return None
    return workspace.logs_dir / GATEWAY_LOG
