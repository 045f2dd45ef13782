"""A server's prompts, resources and templates in its catalog entry and in cache.json."""

from __future__ import annotations

import json
from typing import Any

from mcp_gateway.catalog import MAX_SURFACE_NOTES, ServerCatalog, Surface, parse_cache, serialize_cache


def test_unusable_entries_are_left_out_with_a_reason_and_the_others_kept() -> None:
    surface = Surface.listed(
        prompts=[{"name": "ok"}, {"title": "nameless"}, "text", {"name": "ok", "description": "again"}],
        resources=[{"uri": "x://a", "name": "a"}, {"uri": 3, "name": "b"}],
        templates=[{"uriTemplate": "x://{id}"}],
    )
    assert surface.prompts == ({"name": "ok"},), "the first of two same-named prompts wins"
    assert surface.resources == ({"uri": "x://a", "name": "a"},)
    assert surface.templates == ()
    assert surface.skipped == (
        "a prompt without a string 'name'",
        "a prompt entry that is not an object",
        "a resource without a string 'uri'",
        "a resource template without a string 'name'",
    )


def test_a_hostile_listing_costs_a_bounded_number_of_notes() -> None:
    nameless: list[object] = [{}] * 1000
    surface = Surface.listed(prompts=nameless)
    assert len(surface.skipped) == MAX_SURFACE_NOTES


def test_a_surface_round_trips_through_cache_json_exactly() -> None:
    surface = Surface.listed(
        prompts=[{"name": "p", "arguments": [{"name": "a", "required": True}], "_meta": {"k": 1}}],
        resources=[{"uri": "x://a", "name": "a", "mimeType": "text/plain", "annotations": {"priority": 0.5}}],
        templates=[{"uriTemplate": "x://{id}", "name": "t"}],
        completions=True,
        subscribe=True,
        skipped=["prompts/list failed: nope"],
    )
    entry = ServerCatalog("s", "fp", 1.0, (), surface=surface)
    assert parse_cache(serialize_cache([entry])).servers["s"] == entry


def test_an_entry_an_older_gateway_wrote_loads_serves_its_tools_and_is_stale_so_it_is_listed_again() -> None:
    old: dict[str, Any] = {
        "version": 1,
        "servers": {"s": {"fingerprint": "fp", "fetchedAt": 1.0, "tools": [{"name": "t", "inputSchema": {}}]}},
    }
    entry = parse_cache(json.dumps(old).encode()).servers["s"]
    assert [tool.name for tool in entry.tools] == ["t"]
    assert entry.surface is None
    assert not entry.is_fresh("fp", ttl_days=0)
    assert ServerCatalog("s", "fp", 1.0, ()).is_fresh("fp", ttl_days=0), "one listed with its surface is fresh"
    assert "surface" not in json.loads(serialize_cache([entry]))["servers"]["s"], "nothing invented for it"


def test_a_wrong_surface_member_in_cache_json_is_read_as_tolerantly_as_a_listing() -> None:
    document: dict[str, Any] = {
        "version": 1,
        "servers": {
            "s": {
                "fingerprint": "fp",
                "fetchedAt": 1.0,
                "tools": [],
                "surface": {"prompts": "not a list", "resources": [{"uri": "x://a", "name": "a"}], "subscribe": "yes"},
            }
        },
    }
    surface = parse_cache(json.dumps(document).encode()).servers["s"].surface
    assert surface == Surface(resources=({"uri": "x://a", "name": "a"},))
