"""The tool catalog: every downstream tool as listed (`records`, with each server's prompts and resources in
its `Surface`), `cache.json`, the catalog shared on disk by every gateway process of a workspace (`cachefile`
is its format, `store` its atomic, locked, merging reads and writes), the line's worth per server beside it
(`summary`), and the live `Catalog` over them and the search index."""

from mcp_gateway.catalog.cachefile import parse_cache, serialize_cache
from mcp_gateway.catalog.catalog import Catalog, Lister, ListingStep, search_entry
from mcp_gateway.catalog.records import (
    Listing,
    ServerCatalog,
    ToolRecord,
    fingerprint,
    glob_match,
    same_offer,
    tool_allowed,
    tool_records,
)
from mcp_gateway.catalog.store import MAX_SET_ASIDE_FILES, CacheStore, CacheView, cache_lock
from mcp_gateway.catalog.summary import (
    DIGEST_NAME,
    EMPTY_DIGEST,
    MAX_ABOUT_CHARS,
    MAX_DIGEST_BYTES,
    MAX_SUMMARY_TOOL_CHARS,
    MAX_SUMMARY_TOOLS,
    Digest,
    ServerSummary,
    parse_digest,
    serialize_digest,
    summarize,
)
from mcp_gateway.catalog.surface import MAX_SURFACE_NOTES, Surface

__all__ = [
    "DIGEST_NAME",
    "EMPTY_DIGEST",
    "MAX_ABOUT_CHARS",
    "MAX_DIGEST_BYTES",
    "MAX_SET_ASIDE_FILES",
    "MAX_SUMMARY_TOOLS",
    "MAX_SUMMARY_TOOL_CHARS",
    "MAX_SURFACE_NOTES",
    "CacheStore",
    "CacheView",
    "Catalog",
    "Digest",
    "Lister",
    "Listing",
    "ListingStep",
    "ServerCatalog",
    "ServerSummary",
    "Surface",
    "ToolRecord",
    "cache_lock",
    "fingerprint",
    "glob_match",
    "parse_cache",
    "parse_digest",
    "same_offer",
    "search_entry",
    "serialize_cache",
    "serialize_digest",
    "summarize",
    "tool_allowed",
    "tool_records",
]
