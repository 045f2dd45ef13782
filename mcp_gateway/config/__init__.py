"""The gateway's configuration: `load_config(path)` → `GatewayConfig`.

`config.json` is hand-edited and imported from other clients, so loading is forgiving and talkative: only
a file that is not a readable JSON object raises `ConfigError`; everything else becomes a `Diagnostic`
with a JSON path and a fix, and one bad server never disables the others. See DESIGN §3 for the format.
Beside it: what changed between two configs (`diff`), `${VAR}` and `~` expansion (`expand`), the JSON
helpers every reader of a config-like file shares (`jsonfile`), and the server fields by transport.
"""

from mcp_gateway.config.diagnostics import Diagnostic, closest, did_you_mean, join_path
from mcp_gateway.config.diff import ConfigChanges, config_changes, resolved_definition, server_changes
from mcp_gateway.config.expand import expand_home, expand_server_fields, expand_text
from mcp_gateway.config.gateway_config import GatewayConfig, ServerConfig
from mcp_gateway.config.jsonfile import MAX_CONFIG_BYTES, as_list, as_object
from mcp_gateway.config.loader import load_config
from mcp_gateway.config.models import (
    DEFAULT_TOOL_SEARCH_LIMIT,
    MAX_TOOL_SEARCH_LIMIT,
    HttpServer,
    PolicyAction,
    RemoteServer,
    Settings,
    SseServer,
    StdioServer,
)
from mcp_gateway.config.normalize import camel_case
from mcp_gateway.config.template import default_config_text, write_default_config
from mcp_gateway.config.transport import ALL_SERVER_FIELDS, SERVER_FIELDS, SERVER_MODELS, Transport, transport_named

__all__ = [
    "ALL_SERVER_FIELDS",
    "DEFAULT_TOOL_SEARCH_LIMIT",
    "MAX_CONFIG_BYTES",
    "MAX_TOOL_SEARCH_LIMIT",
    "SERVER_FIELDS",
    "SERVER_MODELS",
    "ConfigChanges",
    "Diagnostic",
    "GatewayConfig",
    "HttpServer",
    "PolicyAction",
    "RemoteServer",
    "ServerConfig",
    "Settings",
    "SseServer",
    "StdioServer",
    "Transport",
    "as_list",
    "as_object",
    "camel_case",
    "closest",
    "config_changes",
    "default_config_text",
    "did_you_mean",
    "expand_home",
    "expand_server_fields",
    "expand_text",
    "join_path",
    "load_config",
    "resolved_definition",
    "server_changes",
    "transport_named",
    "write_default_config",
]
