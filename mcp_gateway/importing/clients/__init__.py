"""The client formats `import` reads and rewrites: one table-driven description per client.

Each client is a `ClientFormat`: where its files are, how one entry reads into a gateway entry, its
variable syntax, and the gateway's own entry in its shape. Most clients keep their servers in one object
of a JSON(C) file (`JsonClient`); Codex keeps TOML tables. Rewriting edits the text, never a re-dump, so
every byte besides the server block stays (`jsonc`, `toml_edit`).
"""

from mcp_gateway.importing.clients.client import ClientFormat, Launch
from mcp_gateway.importing.clients.jsonc import Node as JsonNode
from mcp_gateway.importing.clients.jsonc import parse as parse_jsonc
from mcp_gateway.importing.clients.jsonc_edit import Edit, apply_edits, replace_value, splice_members
from mcp_gateway.importing.clients.model import (
    GATEWAY_DISTRIBUTION,
    GATEWAY_NAME,
    NO_CREDENTIALS,
    SCOPES,
    ClientConfigError,
    ClientReading,
    ImportedServer,
    JsonObject,
    Scope,
    Where,
)
from mcp_gateway.importing.clients.registry import (
    CLIENTS,
    Detected,
    NoClientFileError,
    detect,
    files_with_backups,
    find_client,
    read_client,
)
from mcp_gateway.importing.clients.variables import needed_variables, referenced_variables

__all__ = [
    "CLIENTS",
    "GATEWAY_DISTRIBUTION",
    "GATEWAY_NAME",
    "NO_CREDENTIALS",
    "SCOPES",
    "ClientConfigError",
    "ClientFormat",
    "ClientReading",
    "Detected",
    "Edit",
    "ImportedServer",
    "JsonNode",
    "JsonObject",
    "Launch",
    "NoClientFileError",
    "Scope",
    "Where",
    "apply_edits",
    "detect",
    "files_with_backups",
    "find_client",
    "needed_variables",
    "parse_jsonc",
    "read_client",
    "referenced_variables",
    "replace_value",
    "splice_members",
]
