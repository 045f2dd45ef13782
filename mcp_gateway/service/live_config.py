"""Live config: a serving gateway watches `config.json` and applies each valid edit without restarting.

Contract (the gateway runs `watch` in its background group; a shared daemon would run the same component):
- Every `CONFIG_POLL_SECONDS` the file's stat (mtime in ns, size, inode, device) is compared with the last
  one seen: one `stat` on the event loop, nothing more while nothing changes. A change is read, parsed and
  validated in a worker thread (`load_config`, which caps what it reads). The file may be a link (dotfiles
  repositories link it), so the stat follows it, as the loader does; nothing here writes anything.
- A file that changed again while it was read is left for the next poll: an editor still writing it is not
  judged on half a file.
- A valid edit is applied at once (`apply`): the secrets mask learns the new secrets first (keeping the
  old ones), then the pool takes the new servers (`downstream/reconcile.py`: removed and changed servers are
  retired after their in-flight calls, the others keep their processes), then the catalog and the search
  index (aliases, filters, descriptions), then the gateway reads its settings from the new config. Servers
  added or changed whose tools are not known are listed in the background when `startupMetadataCheck` is on,
  as at start; otherwise when first named.
- An edit that cannot be used keeps the last good config: a file that is not JSON, unreadable or missing,
  or one with errors the served config did not have (a server entry that would be rejected, a bad setting).
  The error is `problem` (for `status`) until a usable file replaces it, recorded as a background problem
  (so `mcp-gateway status` in another process sees it), and said in every search's and list's notes until
  then, with where in the file it is. A gateway started while the file could not be used begins so, serving
  the last good config the workspace kept (`home.serving_config`), or no servers; each usable version it
  applies is kept as the last good one.
- The gateway's instructions were sent at `initialize` and cannot change; what changed is said once in each
  session's next search's notes instead (`config_news`: every session of a daemon hears it, each once), and
  search and list answer from the new set of servers from then on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import anyio
import anyio.to_thread

from mcp_gateway.background import BackgroundTasks
from mcp_gateway.catalog import Catalog
from mcp_gateway.config import ConfigChanges, GatewayConfig, config_changes, load_config
from mcp_gateway.downstream.pool import Pool
from mcp_gateway.errors import ConfigError, UnknownServerError, UnknownToolError
from mcp_gateway.masking import SecretMask
from mcp_gateway.service.config_news import ConfigNews

logger = logging.getLogger(__name__)

CONFIG_POLL_SECONDS = 1.0
"""How often config.json's stat is compared: an edit is live within a second (before a person is back in their
client), at the cost of one `stat` a second, which is not measurable next to a gateway's idle wake-ups."""
TASK = "applying the edited config.json"
"""What a background problem says was running when an edit could not be used."""

FileSignature = tuple[int, int, int, int] | None
"""(mtime in ns, size, inode, device) of config.json, None when it cannot be looked at."""
NEVER_SEEN: FileSignature = (-1, -1, -1, -1)
"""No file has it: the first look reads the file and compares it with the config served."""


def signature(path: Path) -> FileSignature:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino, info.st_dev)


class LiveConfig:
    def __init__(
        self,
        config: GatewayConfig,
        environ: Mapping[str, str],
        catalog: Catalog,
        pool: Pool,
        secrets: SecretMask,
        *,
        relist: Callable[[Sequence[str]], Awaitable[object]],
        keep: Callable[[GatewayConfig], None] = lambda _: None,
        problem: str | None = None,
        poll_seconds: float = CONFIG_POLL_SECONDS,
    ) -> None:
        """`relist`: list these servers now and store their tools (the gateway's `refresh`). `keep`: keep a
        config just applied as the workspace's last good one (in a worker thread). `problem`: why config.json
        could not be used when `config` was chosen instead of it (None: `config` is the file as it is)."""
        self.config = config
        """The config served now: the last good version of config.json."""
        self._environ = environ
        self._catalog = catalog
        self._pool = pool
        self._secrets = secrets
        self._relist = relist
        self._poll_seconds = poll_seconds
        self._seen: FileSignature = NEVER_SEEN
        """The file's signature when last judged. Not taken here: the config was loaded before the gateway was
        made (a client's handshake is answered first), and an edit saved in between must not pass for it."""
        self._news = ConfigNews()
        self._keep = keep
        self._recorded: str | None = None
        """The problem last recorded as a background problem (what `status` in another process reads)."""
        if problem is not None:
            self._news.refused(self._problem_text(problem))  # recorded by the first look, once tasks run

    @property
    def problem(self) -> str | None:
        """Why the file as it is now cannot be used (the last good config is served meanwhile); None when it can."""
        return self._news.problem

    async def watch(self, tasks: BackgroundTasks) -> None:
        """Poll the file until cancelled, applying each valid edit; `tasks` runs the listings it asks for."""
        while True:
            await anyio.sleep(self._poll_seconds)
            await self.check(tasks)

    async def check(self, tasks: BackgroundTasks | None = None) -> ConfigChanges | None:
        """Look at the file once; apply it if it changed and can be used. What changed, or None."""
        seen = signature(self.config.path)
        if seen == self._seen:
            return None
        loaded: GatewayConfig | None = None
        if seen is None:  # removed, or renamed away for a moment by an editor that saves so
            refusal = f"{self.config.path} is missing or cannot be looked at"
        else:
            try:
                loaded = await anyio.to_thread.run_sync(self._load)
                refusal = _new_errors(self.config, loaded)
            except ConfigError as error:
                refusal = error.message
            if signature(self.config.path) != seen:
                return None  # still being written: judged at the next poll, on the whole file
        self._seen = seen
        if refusal or loaded is None:
            await self._refuse(refusal, tasks)
            return None
        return await self.apply(loaded, tasks)

    async def apply(self, new: GatewayConfig, tasks: BackgroundTasks | None = None) -> ConfigChanges:
        """Serve `new` from now on (see the module docstring for the order, and why)."""
        changes = config_changes(self.config, new)
        await anyio.to_thread.run_sync(self._keep, new)
        if changes.empty:  # as served (the first look, or an edit undone): nothing to restart or re-index
            self.config = new
            await self._resolved(tasks)
            return changes
        self._secrets.learn(SecretMask.for_servers(new.servers.values(), self._environ).values)
        self._pool.reconfigure(new.servers, new.settings)
        await self._catalog.reconfigure(new)
        self.config = new
        await self._resolved(tasks)
        logger.info("applied the edited config.json: %s", self._secrets.mask(changes.summary()))
        self._news.applied(changes)
        new_or_changed = {*changes.added, *changes.changed}
        due = [name for name in self._catalog.needs_refresh() if name in new_or_changed]
        if due and new.settings.startup_metadata_check and tasks is not None:
            self._catalog.queue(due)  # now, so a search waits for them rather than finds nothing
            tasks.start_soon(self._relist, due, name="listing the servers of the edited config.json")
        return changes

    def search_notes(self) -> tuple[str, ...]:
        """What the session searching should hear: the config changed under it (once), and that the file cannot be
        used (until it can)."""
        changed = self._news.untold()
        notes = [_changes_note(changed)] if changed is not None else []
        return (*notes, self.problem) if self.problem is not None else tuple(notes)

    @contextmanager
    def naming_the_problem(self) -> Generator[None]:
        """A server or tool the model names that is not known carries, while config.json cannot be used, why:
        the name may well be in the file the gateway cannot read."""
        try:
            yield
        except (UnknownServerError, UnknownToolError) as error:
            if self.problem is not None:
                error.add(f" {self.problem}")
            raise

    # Inside.

    def _problem_text(self, reason: str) -> str:
        return self._secrets.mask(
            f"config.json cannot be used: {reason}. Until it is fixed, the gateway serves {_served(self.config)}."
        )

    def _load(self) -> GatewayConfig:
        return load_config(self.config.path, environ=self._environ, create_missing=False)

    async def _resolved(self, tasks: BackgroundTasks | None) -> None:
        if self.problem is not None:
            logger.info("config.json can be used again")
            if tasks is not None:
                await tasks.problems.resolved(TASK)
        self._news.resolved()
        self._recorded = None

    async def _refuse(self, reason: str, tasks: BackgroundTasks | None) -> None:
        problem = self._problem_text(reason)
        self._news.refused(problem)
        if tasks is not None and problem != self._recorded:  # for `mcp-gateway status`, run in another process
            self._recorded = problem
            await tasks.problems.record(TASK, ConfigError(problem))


def _served(config: GatewayConfig) -> str:
    if not config.servers:
        return "no servers (it has read no usable version of the file yet)"
    return f"the last version of the file it could use ({', '.join(config.servers)})"


def _new_errors(served: GatewayConfig, loaded: GatewayConfig) -> str:
    """The errors of `loaded` the served config did not have (those it had were accepted when it started),
    the first said whole; empty when there are none."""
    known = {(error.json_path, error.message) for error in served.errors}
    new = [str(error) for error in loaded.errors if (error.json_path, error.message) not in known]
    if not new:
        return ""
    more = f" (and {len(new) - 1} more: see mcp-gateway config check)" if len(new) > 1 else ""
    return new[0] + more


def _changes_note(untold: dict[str, bool]) -> str:
    added = [name for name, present in untold.items() if present]
    removed = [name for name, present in untold.items() if not present]
    parts = [f"added: {', '.join(added)}" if added else "", f"removed: {', '.join(removed)}" if removed else ""]
    said = "; ".join(part for part in parts if part) or "server settings changed"
    return (
        f"config.json changed while this session was open ({said}); these results already follow it, "
        "though the instructions given at the start list the servers as they were."
    )
