"""Republished copies: tools a server carries from another server of the catalog rank below the originals.

Servers bundle other servers' tools under their own key, often with longer descriptions that outscore the
originals for the very requests the originals serve. Two signs tell a copy, both read from the catalog alone:

- Named after another server: a debugging agent ships `playwright_hover`, `playwright_click`, … The tool's first
  name word is another server's one-word name (`playwright`) and no part of its own server's key or aliases. A
  first word counts as a server's name only when few servers' tools use it (`ranking.NAME_MAX_SERVERS`):
  `browser_click` is no copy of a server called `browser`, a word many servers' tools use.
- Part of a bundle: a Unity integration carries `read_file`, `directory_tree`, `get_file_info`, … of the
  filesystem server under the same names. When at least `BUNDLE_SHARE` of a server's tools appear under the
  same names on a larger server, the larger one bundles it, and those namesakes there are copies, unless a
  copy is named after its own server (`playwright.playwright_click` is the original of a smaller server's).

A copy's evidence counts `ranking.REPUBLISHED_FACTOR`: below the original when both match about as well, still
found where it alone matches.
"""

from __future__ import annotations

from mcp_gateway.search.index import SearchIndex, name_key

BUNDLE_SHARE = 0.5
"""Share of a server's tools a larger server must carry under the same names to be read as bundling it: at
least half. Measured on catalog.json with `benchmarks/retrieval.py` (single+step R@1/R@5/MRR, task R@5): 0.5
and 0.6 → .553/.882/.665, .573; 0.67 → .474/.882/.623, .569 (the filesystem server's tools are 8 of 12 on the
bundles that carry them); bundles not read at all → .462/.880/.606, .573."""
MIN_BUNDLED_TOOLS = 2
"""Namesakes a bundle must share at least: one common name (`search`, `echo`) is a coincidence."""


class Republished:
    """One engine's republished tools, recomputed when its index changes (a pass over every tool: tens of ms for
    5,645 tools, so once per change rather than per query)."""

    def __init__(self) -> None:
        self._version = -1
        self._tools: frozenset[int] = frozenset()

    def of(self, index: SearchIndex, max_servers: int) -> frozenset[int]:
        if self._version != index.version:
            self._tools = republished(index, max_servers)
            self._version = index.version
        return self._tools


def republished(index: SearchIndex, max_servers: int) -> frozenset[int]:
    """The copies in the index: tools named after another server (whose name at most `max_servers` servers' tools
    use) and the namesakes a bundle carries."""
    return frozenset(named_after_another(index, max_servers) | bundled(index))


def named_after_another(index: SearchIndex, max_servers: int) -> set[int]:
    """Tools whose name's first word is another server's one-word name, a word at most `max_servers` servers'
    tools use, and no part of their own server's key or aliases."""
    names: dict[str, set[str]] = {}
    for word, holders in index.phrases_by_word.items():
        for server, phrase in holders:
            if len(phrase) == 1:
                names.setdefault(word, set()).add(server)
    found: set[int] = set()
    for server, indexed_server in index.servers.items():
        own = {word for phrase in indexed_server.phrases for word in phrase}
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
    """The namesakes on each server that carries at least `BUNDLE_SHARE` of a smaller server's tools, except those
    named after their own server."""
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
