"""The integrity gate as the gateway serves it: held definitions kept away from the model, decisions at the shell.

One per `Gateway`. A held tool (new on a known server, changed since approved, flagged by the screen, or from a
new server when trust is manual) is left out of the search index (the catalog asks `admits`), of list_tools
(a note counts what is held) and refused by describe_tool and execute_tool with one sentence saying why and
naming `mcp-gateway review`. A process started for a call is judged on its own listing before the call is sent
(`vet`, the pool's hook): the catalog may be older than the process. `review` and `decide` serve the shell.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import anyio.to_thread

from mcp_gateway.catalog import Catalog, ServerCatalog
from mcp_gateway.errors import CallRefusedError, UsageError
from mcp_gateway.integrity import FirstSight, Integrity, Kind, PinsFile, Review, Verdict, held_items, resolution_of
from mcp_gateway.json_object import JsonObject
from mcp_gateway.paths import Workspace
from mcp_gateway.service.names import ResolvedTool
from mcp_gateway.wording import Message, Step, counted


@dataclass(frozen=True)
class Decision:
    server: str
    names: tuple[str, ...]
    rejected: bool


class TrustKeeper:
    def __init__(self, workspace: Workspace, catalog: Catalog, mask: Callable[[str], str]) -> None:
        self._catalog = catalog
        self._mask = mask
        self.gate = Integrity(PinsFile(workspace.pins_path), lambda: catalog.config.settings.trust == "manual")

    def admits(self, entry: ServerCatalog, tool: str) -> bool:
        return self.gate.admits(entry, tool)

    async def sync(self) -> None:
        """Pin first sightings and take in the shell's decisions (a reindex of the servers they concern)."""
        changed = await self.gate.sync()
        await self._catalog.reindex([name for name in changed if name in self._catalog.config.servers])

    def held(self, server: str, view: ServerCatalog | None = None) -> dict[str, Verdict]:
        entry = view if view is not None else self._catalog.entry(server)
        return {} if entry is None else self.gate.verdicts(entry).held()

    async def judged(self, servers: Iterable[str], view: ServerCatalog | None = None) -> None:
        """Have the verdicts on `servers` (as the catalog lists them, or as `view` does) at hand, judged in a worker
        thread if they are not: a server of hundreds of tools takes tens of milliseconds to judge."""
        entries = [view] if view is not None else [self._catalog.entry(server) for server in servers]
        missing = [entry for entry in entries if entry is not None and not self.gate.judged(entry)]
        if missing:
            await anyio.to_thread.run_sync(lambda: [self.gate.verdicts(entry) for entry in missing])

    def withheld(self, server: str, kind: Kind) -> dict[str, str]:
        """The prompts or resource templates of `server` held for review, each with why (masked)."""
        entry = self._catalog.entry(server)
        held = {} if entry is None else self.gate.verdicts(entry).held(kind)
        return {name: self._mask(verdict.reason) for name, verdict in held.items()}

    def refuse_held(self, resolved: ResolvedTool, view: ServerCatalog | None) -> None:
        verdict = self.held(resolved.server, view).get(resolved.tool.name)
        if verdict is not None:
            raise self._refusal(resolved.server, verdict)

    def vet(self, server: str, process: str, tool: str, listed: Sequence[JsonObject]) -> CallRefusedError | None:
        """Why `tool` may not be called on a connection (of the process `process`) that listed `listed`, if it
        may not: judged by the pins of that process's resolution of the server."""
        found = next((definition for definition in listed if definition.get("name") == tool), None)
        if found is None or server not in self._catalog.config.servers:
            return None  # the server answers for a tool it does not list
        verdict = self.gate.judge_listed(server, process, "tool", found)
        return self._refusal(server, verdict) if verdict.held else None

    def notes(self, servers: Sequence[str]) -> list[Message]:
        """One sentence per server of `servers` with tools held for review."""
        notes: list[Message] = []
        for server in servers:
            entry = self._catalog.entry(server)
            held = [name for name in self.held(server) if self._catalog.allowed(server, name)]
            awaiting = [name for name in held if self.held(server)[name].state == "awaiting"]
            if entry is None or not awaiting:
                continue
            of = f"{len(awaiting)} of {counted(len(entry.tools), 'tool')} of '{server}'"
            notes.append(Message.of(f"{of} await review (new, changed or flagged) and are left out; ", _REVIEW, "."))
        return notes

    def awaiting_count(self) -> int:
        return sum(
            verdict.state == "awaiting"
            for server in self._listed_servers()
            for verdict in self.gate.verdicts(server).verdicts
        )

    def review(self) -> Review:
        items = held_items((self.gate.verdicts(entry) for entry in self._listed_servers()), self._mask)
        seen = [(entry.server, self.gate.first_sight(entry.server)) for entry in self._listed_servers()]
        return Review(
            awaiting=tuple(item for item in items if item.state == "awaiting"),
            rejected=tuple(item for item in items if item.state == "rejected"),
            first_sight=tuple(FirstSight(server, *sight) for server, sight in seen if sight is not None),
            notice=self.gate.notice,
        )

    async def decide(self, server: str, names: Sequence[str], *, reject: bool) -> Decision:
        """Approve (or reject) what of `server` is held (only `names`, if given), as it is listed now."""
        entry = self._catalog.entry(server)
        held = self.gate.verdicts(entry).verdicts if entry is not None else ()
        chosen = [
            verdict
            for verdict in held
            if verdict.held and (verdict.name in names if names else not (reject and verdict.state == "rejected"))
        ]
        unknown = sorted(set(names) - {verdict.name for verdict in chosen})
        if unknown:
            raise UsageError(f"nothing named {', '.join(map(repr, unknown))} awaits review on '{server}'")
        if entry is not None and chosen:
            changed = await anyio.to_thread.run_sync(
                lambda: self.gate.decide(chosen, server, resolution_of(entry), reject=reject)
            )
            await self._catalog.reindex(changed)
        return Decision(server, tuple(verdict.name for verdict in chosen), reject)

    def _listed_servers(self) -> list[ServerCatalog]:
        entries = (self._catalog.entry(name) for name in self._catalog.config.enabled_servers)
        return [entry for entry in entries if entry is not None]

    def _refusal(self, server: str, verdict: Verdict) -> CallRefusedError:
        return CallRefusedError(
            Message.of(f"'{server}.{verdict.name}' was not called: {self._mask(verdict.reason)}; ", _REVIEW, ".")
        )


_REVIEW = Step("review")
