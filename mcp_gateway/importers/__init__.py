"""Importing MCP servers from other clients' configs, and pointing those clients at the gateway.

One module per client format reads that client's files into `ImportedServer` values (a gateway entry,
or why the entry was skipped) and knows the gateway's entry in the client's own shape. Shared modules:
`variables` (each client's `${env:X}`, `{env:X}`, `$X` → `${X}`), `masking` (secrets out of output),
`jsonc` / `jsonc_edit` / `toml_edit` (text-level edits that keep every unrelated byte), `merge` (into
the gateway's config.json without overwriting hand-made fields), `backups` (taken before every write,
restored byte for byte: one step back at a time, or the original), `launch` (the gateway command each
client runs), `oauth_block` (a client's own OAuth block as the gateway's `oauth`) and `sign_in` (whether a
credential-less remote server needs a sign-in: then it is imported marked oauth, for `mcp-gateway login`).
"""

from mcp_gateway.importers.backups import (
    Backup,
    backups_of,
    create_backup,
    history_of,
    next_step_back,
    original_of,
    parse_backup,
    restore,
)
from mcp_gateway.importers.client import ClientFormat, Launch
from mcp_gateway.importers.clients import CLIENTS, Detected, NoClientFileError, detect, find_client, read_client
from mcp_gateway.importers.launch import LaunchPlan, gateway_launch
from mcp_gateway.importers.merge import MergePlan, Outcome, plan_merge, write_plan
from mcp_gateway.importers.model import (
    GATEWAY_NAME,
    SCOPES,
    ClientConfigError,
    ClientReading,
    ImportedServer,
    Scope,
    Where,
)

__all__ = [
    "CLIENTS",
    "GATEWAY_NAME",
    "SCOPES",
    "Backup",
    "ClientConfigError",
    "ClientFormat",
    "ClientReading",
    "Detected",
    "ImportedServer",
    "Launch",
    "LaunchPlan",
    "MergePlan",
    "NoClientFileError",
    "Outcome",
    "Scope",
    "Where",
    "backups_of",
    "create_backup",
    "detect",
    "find_client",
    "gateway_launch",
    "history_of",
    "next_step_back",
    "original_of",
    "parse_backup",
    "plan_merge",
    "read_client",
    "restore",
    "write_plan",
]
