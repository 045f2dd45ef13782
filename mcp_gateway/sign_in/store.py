"""Where a remote server's sign-in is kept: one file per server in the workspace's `oauth/`, so a renewal (in any
serving gateway, at any time) rewrites only that server's tokens, and a logout is one unlink. The OS keyring is
not used: a dependency (and a D-Bus or Keychain prompt on a headless machine) for files that are already
private, as the config's own secrets are. Every function here does disk I/O: call it from a worker thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import AsyncGenerator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio
import anyio.to_thread
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from mcp_gateway.config import GatewayConfig, StdioServer
from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace, directory_problem, safe_file_name
from mcp_gateway.workspace_files import private_lock, read_regular, remove_stale_temp_files, replace_file

MAX_SIGN_IN_BYTES = 256 * 1024
"""Tokens, a client registration and a few urls are a few kilobytes (a large JWT about 8 KB); more is not ours."""
RENEWAL_LOCK_SECONDS = 20.0
"""How long a gateway waits for another one's renewal: one POST to the token endpoint (bounded at
`TOKEN_ENDPOINT_SECONDS`, 15 s); more is room."""
RENEWAL_LOCK_POLL_SECONDS = 0.05
SIGN_IN_REFUSED = "needs you to sign in"
"""How a refused sign-in's error reads (`downstream/translate.sign_in_required`), as errors.json keeps it."""


class SignIn(BaseModel):
    """One server's sign-in as its file holds it: what `login` got, and what a gateway needs to use and renew it."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, validate_by_name=True)

    version: Literal[1] = 1
    server: str
    url: str
    tokens: OAuthToken
    expires_at: float | None
    """Wall-clock epoch seconds when the access token expires; None when the server did not say."""
    client: OAuthClientInformationFull
    token_endpoint: str
    revocation_endpoint: str | None = None
    resource: str | None = None
    """The RFC 8707 resource the tokens were asked for, asked for again on renewal."""

    def secrets(self) -> tuple[str, ...]:
        """Every secret this sign-in holds, for the gateway's `SecretMask`."""
        found = (self.tokens.access_token, self.tokens.refresh_token, self.client.client_secret)
        return tuple(value for value in found if value)

    def expired(self, margin: float = 0.0) -> bool:
        """The access token has expired (or will within `margin` seconds)."""
        return self.expires_at is not None and time.time() + margin >= self.expires_at

    def renewed(self, tokens: OAuthToken) -> SignIn:
        """This sign-in with the `tokens` of a renewal, which keeps the refresh token and scope it does not send."""
        kept = {key: getattr(self.tokens, key) for key in ("refresh_token", "scope") if getattr(tokens, key) is None}
        tokens = tokens.model_copy(update=kept)
        expires_at = None if tokens.expires_in is None else time.time() + tokens.expires_in
        return self.model_copy(update={"tokens": tokens, "expires_at": expires_at})


class SignInStore:
    """The sign-ins of one workspace (`directory` is its `oauth/`); `learn` is told every secret read or written."""

    def __init__(self, directory: Path, learn: Callable[[Iterable[str]], None]) -> None:
        self.directory = directory
        self._learn = learn

    def path_of(self, server: str) -> Path:
        """The name made safe, plus a digest of the exact name: two names that read alike never share a file."""
        digest = hashlib.sha256(server.encode()).hexdigest()[:12]
        return self.directory / f"{safe_file_name(server)}-{digest}.json"

    def lock_path_of(self, server: str) -> Path:
        return self.path_of(server).with_suffix(".lock")

    def load(self, server: str, url: str) -> SignIn | None:
        """The sign-in of `server` at `url`; None when there is none, it is for another url, or not one of ours.

        Raises:
            UnusableFileError: what is there is a link, not a regular file, or too large (never followed).
        """
        try:
            sign_in = SignIn.model_validate_json(read_regular(self.path_of(server), MAX_SIGN_IN_BYTES))
        except (FileNotFoundError, ValidationError):
            return None  # not a sign-in this gateway wrote: as if signed out; the next login replaces it
        self._learn(sign_in.secrets())
        return sign_in if (sign_in.server, sign_in.url) == (server, url) else None

    def signature(self, server: str) -> tuple[int, int, int, int] | None:
        """What changes whenever `server`'s sign-in is written or removed; None when there is none. A link is
        not followed: it stands for itself, as `load` refuses it."""
        try:
            info = os.stat(self.path_of(server), follow_symlinks=False)
        except OSError:
            return None
        return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)

    def save(self, sign_in: SignIn) -> None:
        """Write `sign_in` (0600, atomically, replacing a planted link rather than following it).

        Raises:
            UnusableFileError: the `oauth/` directory cannot be had (it is a link or a file).
            OSError: the file system refused.
        """
        self._learn(sign_in.secrets())
        problem = directory_problem(self.directory, allow_link=False)
        if problem is not None:
            raise UnusableFileError(str(self.directory), problem, "not-a-directory")
        path = self.path_of(sign_in.server)
        remove_stale_temp_files(path)
        data = sign_in.model_dump_json(by_alias=True, exclude_none=True, indent=2)
        replace_file(path, data.encode(), durable=True)

    def remove(self, server: str) -> bool:
        """Forget `server`'s sign-in; whether there was one. A link there is removed itself, never its target."""
        with contextlib.suppress(FileNotFoundError):
            self.path_of(server).unlink()
            return True
        return False

    @asynccontextmanager
    async def renewal_lock(self, server: str, timeout_s: float = RENEWAL_LOCK_SECONDS) -> AsyncGenerator[bool]:
        """Hold the lock that makes one renewal of `server`'s sign-in at a time across every gateway of the
        workspace; yields whether it is held (False: renew unlocked, as a lock must not stop a call).

        Authorization servers commonly make refresh tokens single-use: two gateways that find a token due
        together would both send it, and the second would be refused (`workspace_files.private_lock`). The
        waiting thread is shielded from cancellation: a cancelled wait would leave a lock taken that nobody
        releases.
        """
        from filelock import Timeout

        path = self.lock_path_of(server)
        # Taken in one worker thread and released in another.
        lock = private_lock(path, timeout_s=timeout_s, poll_s=RENEWAL_LOCK_POLL_SECONDS, thread_local=False)

        def acquire() -> bool:
            if directory_problem(path.parent, allow_link=False) is not None:
                return False  # no private oauth/ directory to lock in (a link there is refused)
            try:
                lock.acquire()
            except (Timeout, OSError):
                return False
            return True

        held = False
        with anyio.CancelScope(shield=True):
            held = await anyio.to_thread.run_sync(acquire)
        try:
            yield held
        finally:
            if held:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(lock.release)


@dataclass(frozen=True)
class SignInState:
    """A remote server's sign-in as `status` and `doctor` show it; never a token."""

    state: Literal["signed in", "needs sign-in", "not needed"]
    expires_at: float | None = None
    """When the stored access token expires (epoch seconds), for `signed in`."""
    renewable: bool = False
    """It carries a refresh token: the gateway renews it before it expires."""


def sign_in_states(
    config: GatewayConfig, workspace: Workspace, secrets: SecretMask, last_errors: dict[str, str]
) -> dict[str, SignInState]:
    """The state of every remote server (`last_errors`: each server's last error message). Disk I/O: a thread.

    `signed in`: a stored sign-in for its url whose token is live, or renewable; `needs sign-in`: nothing
    usable is stored, and the server is marked `oauth` in config.json, or its last error was a refused sign-in,
    or what is stored has expired for good; `not needed`: the server works without one, as far as is known.
    """
    store = SignInStore(workspace.sign_ins_dir, secrets.learn)
    states: dict[str, SignInState] = {}
    for name, server in config.servers.items():
        spec = server.spec
        if isinstance(spec, StdioServer):
            continue
        try:
            sign_in = store.load(name, spec.url)
        except (OSError, UnusableFileError):
            sign_in = None
        if sign_in is not None:
            renewable = bool(sign_in.tokens.refresh_token)
            if renewable or not sign_in.expired():
                states[name] = SignInState("signed in", sign_in.expires_at, renewable)
                continue
        marked = spec.oauth is not None or SIGN_IN_REFUSED in last_errors.get(name, "")
        states[name] = SignInState("needs sign-in" if marked or sign_in is not None else "not needed")
    return states
