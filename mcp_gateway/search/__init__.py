"""Lexical tool search: BM25 over tool fields, a bilingual lexicon, typo tolerance and server intent.

Pure and synchronous; it knows nothing of MCP, processes or files. See `engine.SearchEngine`.
"""

from mcp_gateway.search.documents import ServerEntry, ToolEntry
from mcp_gateway.search.engine import SearchEngine, SearchHit, SearchResult
from mcp_gateway.search.servers import Ambiguous, Resolved, ServerResolution, Unknown, resolve_server

__all__ = [
    "Ambiguous",
    "Resolved",
    "SearchEngine",
    "SearchHit",
    "SearchResult",
    "ServerEntry",
    "ServerResolution",
    "ToolEntry",
    "Unknown",
    "resolve_server",
]
