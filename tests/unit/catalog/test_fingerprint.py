import hashlib
from typing import Any

from mcp_gateway.catalog import fingerprint


def test_fingerprint_ignores_key_order_at_every_level() -> None:
    a = {"type": "http", "url": "https://x.example/mcp", "headers": {"A": "1", "B": "2"}}
    b = {"headers": {"B": "2", "A": "1"}, "url": "https://x.example/mcp", "type": "http"}
    assert fingerprint(a) == fingerprint(b)


def test_fingerprint_treats_missing_or_null_type_as_stdio() -> None:
    explicit = fingerprint({"type": "stdio", "command": "npx", "args": ["-y", "pkg"]})
    assert fingerprint({"command": "npx", "args": ["-y", "pkg"]}) == explicit
    assert fingerprint({"type": None, "command": "npx", "args": ["-y", "pkg"]}) == explicit


def test_fingerprint_changes_with_connection_values_and_argument_order() -> None:
    base = fingerprint({"command": "npx", "args": ["a", "b"]})
    assert fingerprint({"command": "npx", "args": ["b", "a"]}) != base
    assert fingerprint({"command": "uvx", "args": ["a", "b"]}) != base
    assert fingerprint({"type": "sse", "command": "npx", "args": ["a", "b"]}) != base


def test_fingerprint_is_sha256_of_compact_sorted_json_with_unicode_kept() -> None:
    identity = {"url": "https://例え.jp/mcp", "type": "http"}
    canonical = '{"type":"http","url":"https://例え.jp/mcp"}'
    assert fingerprint(identity) == hashlib.sha256(canonical.encode()).hexdigest()


def test_fingerprint_does_not_modify_its_argument() -> None:
    identity: dict[str, Any] = {"command": "npx"}
    fingerprint(identity)
    assert identity == {"command": "npx"}
