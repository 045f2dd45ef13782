"""A downstream tool's result on its way to the model: passed through, except for secrets in its errors."""

from __future__ import annotations

from typing import cast

from mcp_gateway.json_object import JsonObject
from mcp_gateway.masking import SecretMask


def mask_error_texts(result: JsonObject, secrets: SecretMask) -> JsonObject:
    """A copy of a `CallToolResult` whose text content items are masked; everything else is kept as sent."""
    content = result.get("content")
    if not isinstance(content, list):
        return result
    return {**result, "content": [_masked_item(item, secrets) for item in cast(list[object], content)]}


def _masked_item(item: object, secrets: SecretMask) -> object:
    if not isinstance(item, dict):
        return item
    fields = cast(JsonObject, item)
    text = fields.get("text")
    return {**fields, "text": secrets.mask(text)} if isinstance(text, str) else fields
