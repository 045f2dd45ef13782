"""A server's connection identity: the canonical config its cached tool list is keyed by.

Only the fields that change how the gateway reaches the server (`CONNECTION_FIELDS`) take part, so
editing aliases, lifecycle, timeouts, filters or `disabled` keeps the cache. Values are taken before
`${VAR}` expansion: a rotated token must not invalidate the catalog, and the identity must not carry
secrets. Omitted fields take the model's default, so `type` omitted and `"stdio"`, or `args` omitted and
`[]`, give the same identity. The result is plain JSON with camelCase keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from mcp_gateway.config.expand import EXPANDED_LIST_FIELDS, EXPANDED_MAPPING_FIELDS, EXPANDED_STRING_FIELDS
from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.config.models import CONNECTION_FIELDS, HttpServer, SseServer, StdioServer
from mcp_gateway.config.normalize import camel_case

_EXPANDED = frozenset((*EXPANDED_STRING_FIELDS, *EXPANDED_LIST_FIELDS, *EXPANDED_MAPPING_FIELDS))


def connection_identity(spec: StdioServer | HttpServer | SseServer, unexpanded: Mapping[str, object]) -> dict[str, Any]:
    """The identity of a validated `spec`, whose camelCase fields before expansion were `unexpanded`."""
    identity: dict[str, Any] = {}
    for name in sorted(CONNECTION_FIELDS[spec.type]):
        key = camel_case(name)
        written = unexpanded.get(key)
        if key not in _EXPANDED:
            # pydantic has coerced these already: `"inheritEnv": "false"` and `false` are one connection.
            value = getattr(spec, name)
        elif written is None:
            value = type(spec).model_fields[name].get_default(call_default_factory=True)
        else:
            value = written
        identity[key] = _plain(value)
    return identity


def _plain(value: object) -> object:
    """A JSON-able copy: tuples become lists, and nothing shares state with the spec."""
    if isinstance(value, tuple):
        value = list(cast(tuple[object, ...], value))
    if (items := as_list(value)) is not None:
        return [_plain(item) for item in items]
    if (fields := as_object(value)) is not None:
        return {key: _plain(item) for key, item in fields.items()}
    return value
