"""Lexical tool search: BM25 over tool fields, a bilingual lexicon, typo tolerance and server intent; copies ranked
below their originals (`originality.py`) and a general web search offered for an open information request no tool
covers (`web_search.py`), one tool of each web search service first; a tool named for
something the request does not ask for ranks below close matches (`name_fit.py`).

Pure and synchronous; it knows nothing of MCP, processes or files. See `engine.SearchEngine`.

Every tuning constant says where its number came from: the commit that set it and what was measured then, or
"chosen by hand, not tuned". "Measured" without a commit means: `benchmarks/retrieval.py` on catalog.json
(2,266 tools, 1,089 queries) with that one constant changed and everything else as shipped, reported as
single+step R@1/R@5/MRR, task R@5; as shipped then that was .451/.784/.572, .573. The constants measured before
issue 14's second step (web search offers, republished copies) were measured against that state; those of
`web_search.py` and `originality.py` against the state with both, .553/.882/.665, .573.
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
