"""The one name for a JSON object as the gateway passes it on: a tool's schema, a server's result."""

from __future__ import annotations

from typing import Any

JsonObject = dict[str, Any]
"""A parsed JSON object whose values the gateway does not look into (it passes them on as they are)."""
