"""The gateway's instructions as they can be known before anything else is loaded, for the early handshake.

The daemon answers its first hello before the SDK and the service are imported, so what it says must come
from the config and from the digest kept beside cache.json (`catalog.summary`): a bounded file of a few
hundred bytes per server, read here synchronously before the event loop exists, never cache.json itself.
The text is the one `surface.current_instructions` builds for a running gateway from the same digest.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.catalog.records import fingerprint
from mcp_gateway.catalog.summary import DIGEST_NAME, EMPTY_DIGEST, MAX_DIGEST_BYTES, Digest, parse_digest
from mcp_gateway.config import GatewayConfig
from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace
from mcp_gateway.service.surface import instructions
from mcp_gateway.workspace_files import read_regular


def handshake_instructions(
    home: str | os.PathLike[str] | None, config: GatewayConfig, environ: Mapping[str, str] | None = None
) -> str:
    """The instructions for `initialize`: how to use the four tools and a line per enabled server."""
    digest = _read_digest(Workspace.from_environment(home))
    summaries = {
        name: summary
        for name, summary in digest.servers.items()
        if name in config.servers and fingerprint(config.servers[name].identity) == summary.fingerprint
    }
    mask = SecretMask.for_servers(config.servers.values(), dict(os.environ if environ is None else environ))
    return instructions(config, summaries, mask=mask.mask)


def handshake_sources(home: str | os.PathLike[str] | None) -> list[Path]:
    """The files `handshake_instructions` reads: what a remembered handshake is valid for while they are unchanged."""
    workspace = Workspace.from_environment(home)
    return [workspace.config_path, workspace.cache_path.with_name(DIGEST_NAME)]


def _read_digest(workspace: Workspace) -> Digest:
    try:
        return parse_digest(read_regular(workspace.cache_path.with_name(DIGEST_NAME), MAX_DIGEST_BYTES))
    except (FileNotFoundError, UnusableFileError, OSError):
        return EMPTY_DIGEST  # the running gateway logs an unusable digest when it reads it
