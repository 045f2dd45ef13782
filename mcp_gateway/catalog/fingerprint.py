"""Cache fingerprints: which connection config a server's cached tool list was fetched with.

A cached catalog is valid only for the connection config it was fetched with. `fingerprint` hashes the
connection identity the config loader extracts (gateway-side metadata such as aliases, lifecycle,
timeouts and filters already left out) as canonical JSON, so key order never changes the digest, and an
omitted `type` hashes like `"stdio"`, the default. Only the digest reaches `cache.json`, never the config.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

DEFAULT_TRANSPORT = "stdio"


def fingerprint(identity: Mapping[str, Any]) -> str:
    """SHA-256 hex digest of a server's connection identity, a plain JSON object.

    Raises:
        TypeError: the identity holds a value that is not plain JSON.
    """
    normalized = dict(identity)
    if normalized.get("type") is None:
        normalized["type"] = DEFAULT_TRANSPORT
    canonical = json.dumps(normalized, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
