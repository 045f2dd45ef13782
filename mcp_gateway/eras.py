"""The protocol's two eras, the one place that tells them apart.

A handshake-era peer (≤ 2025-11-25) opened with `initialize`, pings, subscribes with `resources/subscribe` and
asks its questions with requests of its own; a 2026-07-28 ("modern") peer has no handshake, no `ping`, hears
changes only on a `subscriptions/listen` stream, asks with `input_required` results, and its client needs a
`resultType` on every result. Every module that behaves differently by era asks here which one it faces.
"""

from __future__ import annotations

from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

COMPLETE = "complete"
"""The `resultType` of a finished result."""


def speaks_modern(protocol_version: str | None) -> bool:
    """The peer speaks 2026-07-28 or later (no handshake, streams for changes, questions as results)."""
    return protocol_version in MODERN_PROTOCOL_VERSIONS


def is_handshake_version(protocol_version: str | None) -> bool:
    """One of the handshake era's versions (an unknown or absent version is neither era)."""
    return protocol_version in HANDSHAKE_PROTOCOL_VERSIONS


def completed(result: dict[str, Any]) -> dict[str, Any]:
    """`result` as every era's client takes it: a handshake-era server sends no `resultType`, which a 2026-era
    client's result needs (the SDK checks the dict before it would add one); the SDK's per-version serializer
    drops it again for a handshake-era client."""
    return result if result.get("resultType") is not None else {**result, "resultType": COMPLETE}
