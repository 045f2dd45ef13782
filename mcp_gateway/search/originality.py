"""Republished copies: tools a server carries from another server of the catalog rank below the originals.

Servers bundle other servers' tools under their own key, often with longer descriptions that outscore the
originals. Two signs tell a copy: it is named after another server (`playwright_click` on a debugging agent: its
first name word is another server's one-word name, a word few servers' tools use, `ranking.NAME_MAX_SERVERS`, and
no part of its own server's labels); or it is part of a bundle (a larger server carrying at least `BUNDLE_SHARE`
of a server's tools under the same names), unless named after its own server. A copy's evidence counts
`ranking.REPUBLISHED_FACTOR`: below the original, still found where it alone matches.
"""

from __future__ import annotations

from mcp_gateway.search.index import SearchIndex, name_key

BUNDLE_SHARE = 0.5
"""Measured: 0.5 and 0.6 → .553/.882/.665, .573; 0.67 → .474/.882/.623, .569 (the filesystem server's tools are 8
of 12 on the bundles that carry them); bundles not read → .462/.880/.606, .573."""
MIN_BUNDLED_TOOLS = 2
"""Namesakes a bundle must share at least: one common name (`search`, `echo`) is a coincidence."""


class Republished:
    """Recomputed when the index changes: a pass over every tool, tens of ms for 5,645 tools."""

    def __init__(self) -> None:
        self._version = -1
        self._tools: frozenset[int] = frozenset()

    def of(self, index: SearchIndex, max_servers: int) -> frozenset[int]:
        if self._version != index.version:
            self._tools = republished(index, max_servers)
            self._version = index.version
        return self._tools


def republished(index: SearchIndex, max_servers: int) -> frozenset[int]:
    return frozenset(named_after_another(index, max_servers) | bundled(index))


def named_after_another(index: SearchIndex, max_servers: int) -> set[int]:
    names: dict[str, set[str]] = {}
    for word, holders in index.phrases_by_word.items():
        for server, phrase in holders:
            if len(phrase) == 1:
                names.setdefault(word, set()).add(server)
    found: set[int] = set()
    for server, indexed_server in index.servers.items():
        own = indexed_server.words
        labels = [name_key(label) for label in (server, *indexed_server.entry.aliases)]
        for doc_id in index.tool_ids(server):
            # The name field's counts keep the name's words in order (a Counter keeps first occurrences' order).
            first = next(iter(index.tools[doc_id].field("name")), None)
            if first is None or first in own or any(first in label for label in labels):
                continue
            if names.get(first, set()) - {server} and index.server_spread.get(first, 0) <= max_servers:
                found.add(doc_id)
    return found


def bundled(index: SearchIndex) -> set[int]:
    tools_by_key = {
        server: {name_key(index.tools[doc_id].entry.name): doc_id for doc_id in index.tool_ids(server)}
        for server in index.servers
    }
    holders: dict[str, set[str]] = {}
    for server, tools in tools_by_key.items():
        for key in tools:
            holders.setdefault(key, set()).add(server)
    found: set[int] = set()
    for server, tools in tools_by_key.items():
        shared: dict[str, int] = {}
        for key in tools:
            for other in holders[key] - {server}:
                shared[other] = shared.get(other, 0) + 1
        for other, count in shared.items():
            bundle = tools_by_key[other]
            if count >= MIN_BUNDLED_TOOLS and count >= BUNDLE_SHARE * len(tools) and len(bundle) > len(tools):
                copies = (bundle[key] for key in tools if key in bundle)
                found.update(doc_id for doc_id in copies if doc_id not in index.named_after_server)
    return found
