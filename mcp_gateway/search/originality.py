"""Republished copies: a tool named after another server of the catalog is most likely that server's tool.

Servers bundle other servers' tools under their own key: a "visual UI debug agent" ships `playwright_hover`,
`playwright_click`, … copied from the Playwright server, with longer descriptions that outscore the originals for
the very requests the originals serve. The name says where the tool comes from: its first word is another
server's name (`playwright`) and not a word of its own server's key or aliases. Such a tool is ranked as a
copy (`ranking.REPUBLISHED_FACTOR`): below the original when both match about as well, still found where it
alone matches. A first word counts as a server's name only when it is one of that server's name phrases on
its own and few servers' tools use it (`ranking.NAME_MAX_SERVERS`): `browser_click` on one server is not a
copy of a server called `browser`, a word many servers' tools use.
"""

from __future__ import annotations

from mcp_gateway.search.index import SearchIndex, name_key


class Republished:
    """One engine's republished tools, recomputed when its index changes (a pass over every tool's first name
    word: 22 ms for 5,645 tools, so once per change rather than per query)."""

    def __init__(self) -> None:
        self._version = -1
        self._tools: frozenset[int] = frozenset()

    def of(self, index: SearchIndex, max_servers: int) -> frozenset[int]:
        if self._version != index.version:
            self._tools = republished(index, max_servers)
            self._version = index.version
        return self._tools


def republished(index: SearchIndex, max_servers: int) -> frozenset[int]:
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
    return frozenset(found)
