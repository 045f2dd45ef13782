"""The URIs a client sees for downstream resources and templates, and the way back from one to its server.

Why this scheme: a client reads a resource by its URI alone, and two servers may use the same URI scheme
(two file servers both list `file:///…`) or even the same URI. So, per URI scheme (the part before the
first `:`, compared without case):

- a scheme that the resources and templates of only one enabled server use is that server's: its URIs and
  templates pass unchanged, and any URI of that scheme, listed or not (one the client expanded from a
  template, a sub-resource), is read from that server;
- a scheme that several servers use is shared: each of their URIs and templates of it is rewritten to
  `mcp-gateway://<server>/<original>` (the server key percent-encoded, the original verbatim), so a URI the
  client expands from a rewritten template still carries its server, and a listed URI reads from its own.

A URI of a shared scheme that arrives unrewritten (a client that kept an older listing, or one a person
typed) still routes when exactly one of those servers lists it, or else when exactly one of their templates
matches it. `UriMap` is built from the catalog each time it is needed: it holds no process and no state.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import quote, unquote

GATEWAY_SCHEME = "mcp-gateway"
GATEWAY_PREFIX = f"{GATEWAY_SCHEME}://"
_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^}]*)\}")


def scheme_of(uri: str) -> str:
    """The URI's scheme, lowercase; "" when it has none (or the template starts with an expression)."""
    head, colon, _ = uri.partition(":")
    return head.lower() if colon and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", head) else ""


@dataclass(frozen=True)
class ServerUris:
    """What one server lists: its resources' URIs and its templates."""

    resources: frozenset[str]
    templates: tuple[str, ...]


@dataclass(frozen=True)
class Route:
    """Where a client's URI goes: the server, and the URI as that server knows it."""

    server: str
    uri: str


class UriMap:
    def __init__(self, servers: Mapping[str, ServerUris]) -> None:
        self._servers = dict(servers)
        owners: dict[str, set[str]] = {}
        for server, uris in self._servers.items():
            for uri in (*uris.resources, *uris.templates):
                owners.setdefault(scheme_of(uri), set()).add(server)
        self._owners = owners

    def client_uri(self, server: str, uri: str) -> str:
        """What the client sees for `server`'s URI or template `uri`."""
        scheme = scheme_of(uri)
        if len(self._owners.get(scheme, ())) > 1 or scheme == GATEWAY_SCHEME:  # a gateway behind this one
            return f"{GATEWAY_PREFIX}{quote(server, safe='')}/{uri}"
        return uri

    def route(self, uri: str) -> Route | str:
        """The server a client's URI (or template) is for; else why none is, as a phrase for an error."""
        if uri.startswith(GATEWAY_PREFIX):
            server_part, slash, original = uri[len(GATEWAY_PREFIX) :].partition("/")
            server = unquote(server_part)
            if not slash or server not in self._servers:
                return f"no server '{server}' with resources is behind the gateway"
            return Route(server, original)
        owners = sorted(self._owners.get(scheme_of(uri), ()))
        if len(owners) <= 1:
            return Route(owners[0], uri) if owners else "no server lists a resource or template of that scheme"
        listing = [server for server in owners if uri in self._servers[server].resources]
        matching = [server for server in owners if any(matches(t, uri) for t in self._servers[server].templates)]
        found = listing or matching  # a server listing the URI itself first, else one whose template fits it
        if len(found) == 1:
            return Route(found[0], uri)
        return f"the servers {', '.join(repr(server) for server in owners)} all use its scheme"


def uri_map(servers: Iterable[tuple[str, Iterable[str], Iterable[str]]]) -> UriMap:
    """A `UriMap` of (server, resource URIs, templates) triples."""
    return UriMap({server: ServerUris(frozenset(uris), tuple(templates)) for server, uris, templates in servers})


def matches(template: str, uri: str) -> bool:
    """Whether `uri` could be an expansion of the RFC 6570 `template` (levels 1 to 3, read loosely)."""
    return _pattern(template).fullmatch(uri) is not None


@functools.lru_cache(maxsize=1024)
def _pattern(template: str) -> re.Pattern[str]:
    parts: list[str] = []
    position = 0
    for expression in _EXPRESSION.finditer(template):
        parts.append(re.escape(template[position : expression.start()]))
        operator = expression.group(1)
        if operator in ("+", "#"):
            parts.append(r".*")  # reserved expansion: may hold '/'
        elif operator in ("?", "&"):
            parts.append(r"(?:[?&][^#]*)?")  # a query part, possibly empty
        else:
            parts.append(r"[^/?#]*")  # one path segment (or a label, a parameter)
        position = expression.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts), re.DOTALL)
