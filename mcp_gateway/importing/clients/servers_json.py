"""The `servers`-keyed format (epoch-agent's `~/.epoch/mcp.json`, and the gateway's own alias spelling).

`servers.<name>` with `transport` or its alias `type` (`transport` wins): `stdio`, `sse`, `http`, or
`streamable`; `streamable: true` also means Streamable HTTP. With no transport, a `url` means SSE and
anything else stdio. Keys may be snake_case or camelCase (`connect_timeout`, `connectTimeout`); the
timeouts are seconds. Values are copied as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.importing.clients.client import EntryContext, Launch
from mcp_gateway.importing.clients.entries import number, read_standard, seed_fields, text
from mcp_gateway.importing.clients.json_client import JsonClient, fixed_block
from mcp_gateway.importing.clients.locate import env_path
from mcp_gateway.importing.clients.model import JsonObject, Scope, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax

MS_PER_SECOND = 1000


def _locate(where: Where, scope: Scope) -> list[Path]:
    return [(env_path(where, "EPOCH_HOME") or where.home / ".epoch") / "mcp.json"]


def snake_case(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    fields: dict[str, object] = {}
    for key, value in raw.items():
        fields.setdefault(snake_case(key), value)  # the first spelling wins, as the client does
    context.oauth = read_oauth(fields.get("oauth"))
    declared = text(fields, "transport") or text(fields, "type")
    if declared is None:
        declared = "http" if fields.get("streamable") is True else "sse" if fields.get("url") is not None else "stdio"
    entry = read_standard({**fields, "type": declared}, url_default="sse")
    timeout = number(fields, "timeout")
    connect = number(fields, "connect_timeout")
    return seed_fields(
        entry,
        request_timeout_ms=timeout * MS_PER_SECOND if timeout else None,
        connect_timeout_ms=connect * MS_PER_SECOND if connect else None,
    )


def _shape(launch: Launch) -> JsonObject:
    return {"transport": "stdio", "command": launch.command, "args": list(launch.args), "env": dict(launch.env)}


CLIENT = JsonClient(
    name="servers-json",
    title="epoch-agent",
    gui=False,
    scopes=("user",),
    locate=_locate,
    block=fixed_block("servers"),
    read_entry=_read_entry,
    syntax=Syntax.GATEWAY,
    shape=_shape,
)
