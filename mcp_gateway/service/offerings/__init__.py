"""Prompts, resources, resource templates and completions of every server, offered through the gateway.

- `offerings.py`: `Offerings` (reached as `Gateway.offerings`) answers the listings from the catalog and routes
  each request and subscription to the server that owns it, through the pool.
- `prompt_names.py`: the names a client sees for prompts (`<server>__<prompt>`, within Claude Code's limit).
- `resource_uris.py`: the URIs a client sees for resources and templates, and the way back to their server.

The server door's handlers for these requests are `server/offering_handlers.py`.
"""

from mcp_gateway.service.offerings.offerings import Offerings
from mcp_gateway.service.offerings.prompt_names import HASH_CHARS, MAX_PROMPT_NAME_CHARS, PromptNames, PromptRef
from mcp_gateway.service.offerings.resource_uris import Route, matches, scheme_of, uri_map

__all__ = [
    "HASH_CHARS",
    "MAX_PROMPT_NAME_CHARS",
    "Offerings",
    "PromptNames",
    "PromptRef",
    "Route",
    "matches",
    "scheme_of",
    "uri_map",
]
