"""What a server offers besides tools: its prompts, resources and resource templates, listed with its tools.

A `Surface` is kept in the server's catalog entry (`ServerCatalog.surface`) and in its `cache.json` entry
(`"surface"`), so `prompts/list`, `resources/list` and `resources/templates/list` are answered from the
catalog and start no process. Each entry is kept exactly as the server listed it (the gateway renames prompts
and rewrites URIs only when it answers a client, see `service/prompts.py` and `service/resources.py`);
entries a client could not use (a prompt without a string name, a resource without a string `uri` and
`name`) are left out, each with a reason in `skipped`, so one bad entry never costs the others.

`completions` and `subscribe` are what the server's handshake declared: the gateway forwards
`completion/complete` and `resources/subscribe` only to a server that declared them.

An entry listed by a gateway that did not know surfaces has no `surface` at all (None in `ServerCatalog`):
it still serves its tools, and is stale so the next start lists it again (`ServerCatalog.is_fresh`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from mcp_gateway.json_object import JsonObject

MAX_SURFACE_NOTES = 5
"""Reasons for left-out entries kept per server: enough to say what is wrong, bounded for a hostile listing."""


@dataclass(frozen=True)
class Surface:
    """One server's prompts, resources and templates, as listed (each a wire dict), and two capabilities."""

    prompts: tuple[JsonObject, ...] = ()
    resources: tuple[JsonObject, ...] = ()
    templates: tuple[JsonObject, ...] = ()
    completions: bool = False
    subscribe: bool = False
    skipped: tuple[str, ...] = ()
    """Why entries (or a whole listing, e.g. a failed `prompts/list`) were left out."""

    @classmethod
    def listed(
        cls,
        *,
        prompts: Iterable[object] = (),
        resources: Iterable[object] = (),
        templates: Iterable[object] = (),
        completions: bool = False,
        subscribe: bool = False,
        skipped: Iterable[str] = (),
    ) -> Surface:
        """The usable entries of what a server listed (or what cache.json holds), with why the others were not."""
        notes = list(skipped)
        return cls(
            prompts=_usable(prompts, ("name",), "prompt", notes),
            resources=_usable(resources, ("uri", "name"), "resource", notes),
            templates=_usable(templates, ("uriTemplate", "name"), "resource template", notes),
            completions=completions,
            subscribe=subscribe,
            skipped=tuple(notes[:MAX_SURFACE_NOTES]),
        )

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Surface:
        """A `cache.json` `surface` member, read as tolerantly as a listing (wrong members are left out)."""
        skipped = value.get("skipped")
        return cls.listed(
            prompts=_list(value.get("prompts")),
            resources=_list(value.get("resources")),
            templates=_list(value.get("resourceTemplates")),
            completions=value.get("completions") is True,
            subscribe=value.get("subscribe") is True,
            skipped=(note for note in _list(skipped) if isinstance(note, str)),
        )

    def to_json(self) -> JsonObject:
        document: JsonObject = {
            "prompts": list(self.prompts),
            "resources": list(self.resources),
            "resourceTemplates": list(self.templates),
            "completions": self.completions,
            "subscribe": self.subscribe,
        }
        if self.skipped:
            document["skipped"] = list(self.skipped)
        return document


def _list(value: object) -> list[object]:
    return cast(list[object], value) if isinstance(value, list) else []


def _usable(
    entries: Iterable[object], required: tuple[str, ...], kind: str, notes: list[str]
) -> tuple[JsonObject, ...]:
    kept: list[JsonObject] = []
    seen: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict):
            notes.append(f"a {kind} entry that is not an object")
            continue
        item = cast(JsonObject, entry)
        missing = [key for key in required if not isinstance(item.get(key), str) or not item[key]]
        if missing:
            notes.append(f"a {kind} without a string '{missing[0]}'")
            continue
        key = str(item[required[0]])
        if key in seen:  # listed twice: the first wins, as a client would find it
            continue
        seen.add(key)
        kept.append(item)
    return tuple(kept)
