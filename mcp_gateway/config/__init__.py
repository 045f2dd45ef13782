"""The gateway's configuration: `load_config(path)` → `GatewayConfig`.

`config.json` is hand-edited and imported from other clients, so loading is forgiving and talkative: only
a file that is not a readable JSON object raises `ConfigError`; everything else becomes a `Diagnostic`
with a JSON path and a fix, and one bad server never disables the others. See DESIGN §3 for the format.
"""

from mcp_gateway.config.diagnostics import Diagnostic, Severity
from mcp_gateway.config.gateway_config import GatewayConfig, ServerConfig
from mcp_gateway.config.loader import load_config
from mcp_gateway.config.models import (
    CONNECTION_FIELDS,
    HttpServer,
    Lifecycle,
    RemoteServer,
    ServerSpec,
    Settings,
    SseServer,
    StdioServer,
)
from mcp_gateway.config.template import default_config_text

__all__ = [
    "CONNECTION_FIELDS",
    "Diagnostic",
    "GatewayConfig",
    "HttpServer",
    "Lifecycle",
    "RemoteServer",
    "ServerConfig",
    "ServerSpec",
    "Settings",
    "Severity",
    "SseServer",
    "StdioServer",
    "default_config_text",
    "load_config",
]
