"""The workspace a command or a session works in, as the command line sees it: where its config is.

`home` is the `--home` option: a directory, else `$MCP_GATEWAY_HOME`, else the platform's directories (see
`mcp_gateway/paths.py`). Everything else about the workspace is the gateway's own business.

A serving gateway keeps the last config.json it could use (`LAST_GOOD_CONFIG`, a private copy beside
cache.json, written each time the file is read whole) so that a gateway started while the file cannot be used
(one trailing comma) still serves what the user had, rather than nothing: `serving_config`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path

from mcp_gateway.config import MAX_CONFIG_BYTES, GatewayConfig, Settings, load_config, write_default_config
from mcp_gateway.errors import ConfigError, UnusableFileError
from mcp_gateway.paths import Workspace, directory_problem
from mcp_gateway.workspace_files import read_regular, replace_file

logger = logging.getLogger(__name__)

GATEWAY_LOG = "gateway.log"
LAST_GOOD_CONFIG = "config.last-good.json"


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


def serving_config(home: str | os.PathLike[str] | None) -> tuple[GatewayConfig, str | None]:
    """The config a serving gateway starts with, and None; or, when config.json cannot be used, the last good
    one (no servers, if there never was one) and why the file cannot be used, for every search to say."""
    workspace = Workspace.from_environment(home)
    try:
        config = load_config(workspace.config_path)
    except ConfigError as error:
        return last_good_config(workspace), error.message
    keep_last_good(workspace, config)
    return config, None


def keep_last_good(workspace: Workspace, config: GatewayConfig) -> None:
    """Keep the file `config` was just read from as the workspace's last good config (its bytes as they are now,
    if they are still a JSON object), private, beside cache.json (never in a config folder a dotfiles repository
    may track); a copy that cannot be written only means there is none to fall back on."""
    copy = workspace.state_dir / LAST_GOOD_CONFIG
    try:
        workspace.ensure()  # a first start keeps one too; what it cannot make is said once the gateway starts
        data = read_regular(config.path, MAX_CONFIG_BYTES, follow_symlinks=True)
        if not isinstance(json.loads(data), dict):
            return
        replace_file(copy, data, durable=False)
    except (OSError, UnusableFileError, ValueError, RecursionError) as error:
        logger.info("could not keep config.json as the last good config in %s: %s", copy, error)


def last_good_config(workspace: Workspace) -> GatewayConfig:
    """The last config.json a gateway of the workspace could use, as if read from config.json; a config of no
    servers when none was kept (or the copy cannot be used either)."""
    path = workspace.config_path
    try:
        kept = load_config(workspace.state_dir / LAST_GOOD_CONFIG, create_missing=False)
    except ConfigError:
        return GatewayConfig(path=path, settings=Settings(), servers={}, rejected={}, diagnostics=())
    return dataclasses.replace(kept, path=path)
