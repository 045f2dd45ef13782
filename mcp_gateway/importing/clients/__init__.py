"""The client formats `import` reads and rewrites: one table-driven description per client.

Each client is a `ClientFormat` value: where its files are, how one entry reads into a gateway entry, its
variable syntax, and the gateway's own entry in its shape. Most keep their servers in one object of a JSON(C)
file (`JsonClient`, each described in `json_clients`); Codex keeps TOML tables (`codex`).
Rewriting edits the text, never a re-dump, so every byte besides the server block stays (`jsonc`).
"""

from mcp_gateway.importing.clients.jsonc import Edit, JsoncError, apply_edits, replace_value, splice_members
from mcp_gateway.importing.clients.jsonc import Node as JsonNode
from mcp_gateway.importing.clients.jsonc import parse as parse_jsonc
from mcp_gateway.importing.clients.model import (
    GATEWAY_DISTRIBUTION,
    GATEWAY_NAME,
    NO_CREDENTIALS,
    ClientFormat,
    ClientReading,
    ImportedServer,
    JsonObject,
    Launch,
    Scope,
    Where,
)
from mcp_gateway.importing.clients.registry import (
    CLIENTS,
    Detected,
    client_files,
    client_named,
    detect,
    find_client,
    read_client,
    stale_gateways,
)
from mcp_gateway.importing.clients.variables import needed_variables, referenced_variables

__all__ = [
    "CLIENTS",
    "GATEWAY_DISTRIBUTION",
    "GATEWAY_NAME",
    "NO_CREDENTIALS",
    "ClientFormat",
    "ClientReading",
    "Detected",
    "Edit",
    "ImportedServer",
    "JsonNode",
    "JsonObject",
    "JsoncError",
    "Launch",
    "Scope",
    "Where",
    "apply_edits",
    "client_files",
    "client_named",
    "detect",
    "find_client",
    "needed_variables",
    "parse_jsonc",
    "read_client",
    "referenced_variables",
    "replace_value",
    "splice_members",
    "stale_gateways",
]
