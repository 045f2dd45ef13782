"""Lexical tool search: which of the catalog's tools a request means, how sure that is, and which server a name
means.

BM25F over each tool's fields, a bilingual lexicon and glossaries, typo and homophone tolerance, server intent,
republished copies ranked below their originals, a general web search offered for an open information request no
tool covers, and a confidence level per hit from a calibrated model. Pure and synchronous: it knows nothing of
MCP, processes or files; the catalog hands it `ToolEntry` and `ServerEntry` values through a `SearchEngine`.

Every tuning constant says where its number came from: the commit that set it and what was measured then, or
"chosen by hand, not tuned". "Measured" without a commit means: `benchmarks/retrieval.py` on catalog.json
(2,266 tools, 1,089 queries) with that one constant changed and everything else as shipped, reported as
single+step R@1/R@5/MRR, task R@5; as shipped then that was .451/.784/.572, .573. The constants measured before
issue 14's second step (web search offers, republished copies) were measured against that state; those of
`web_search.py` and `originality.py` against the state with both, .553/.882/.665, .573.
"""

from mcp_gateway.search.calibration import Confidence
from mcp_gateway.search.documents import ServerEntry, ToolEntry
from mcp_gateway.search.engine import SearchEngine, SearchResult
from mcp_gateway.search.servers import (
    APPROXIMATE_READINGS,
    MAX_SUGGESTIONS,
    SUGGESTION_MIN_SIMILARITY,
    Ambiguous,
    Resolved,
    Unknown,
    resolve_server,
)

__all__ = [
    "APPROXIMATE_READINGS",
    "MAX_SUGGESTIONS",
    "SUGGESTION_MIN_SIMILARITY",
    "Ambiguous",
    "Confidence",
    "Resolved",
    "SearchEngine",
    "SearchResult",
    "ServerEntry",
    "ToolEntry",
    "Unknown",
    "resolve_server",
]
