"""Listing a server's prompts, resources and resource templates on the connection its tools were listed on.

Asked only of a server that declared the capability (`prompts`, `resources`): a server that declared
neither costs no request. Each listing stands alone: one that fails (an error reply, a timeout, a result
that does not follow the protocol) is noted in the `Surface`'s `skipped`, masked and bounded, and the tools
and the other listings are kept. Only a lost connection fails the whole listing, as it would for tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from mcp_gateway.bounds import MAX_DOWNSTREAM_MESSAGE_CHARS, clip
from mcp_gateway.catalog.surface import Surface
from mcp_gateway.downstream.connection import Connection, ErrorReply, RequestTimedOut

Mask = Callable[[str], str]


async def list_surface(connection: Connection, *, timeout_seconds: float, mask: Mask) -> Surface:
    """What `connection`'s server offers besides tools, every page of each listing it declared."""
    declared = connection.capabilities
    notes: list[str] = []

    async def listing(
        method: str, make: Callable[[types.PaginatedRequestParams | None], types.Request[Any, Any]], key: str
    ) -> list[object]:
        try:
            return await connection.list_all(make, key, timeout_seconds=timeout_seconds)
        except (ErrorReply, RequestTimedOut, ValidationError) as exc:
            reason = f"{exc.error_count()} protocol problems" if isinstance(exc, ValidationError) else str(exc)
            notes.append(f"{method} failed: {clip(mask(reason), MAX_DOWNSTREAM_MESSAGE_CHARS)}")
            return []

    prompts: list[object] = []
    resources: list[object] = []
    templates: list[object] = []
    if declared.prompts is not None:
        prompts = await listing("prompts/list", lambda params: types.ListPromptsRequest(params=params), "prompts")
    if declared.resources is not None:
        resources = await listing(
            "resources/list", lambda params: types.ListResourcesRequest(params=params), "resources"
        )
        templates = await listing(
            "resources/templates/list",
            lambda params: types.ListResourceTemplatesRequest(params=params),
            "resourceTemplates",
        )
    subscribe = declared.resources is not None and declared.resources.subscribe is True
    return Surface.listed(
        prompts=prompts,
        resources=resources,
        templates=templates,
        completions=declared.completions is not None,
        subscribe=subscribe,
        skipped=notes,
    )
