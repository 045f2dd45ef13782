"""Where a remote server's OAuth sign-in is kept: one private file per server in the workspace's `oauth/`.

`mcp-gateway login` writes a `SignIn` (the tokens, when the access token expires, the client it registered and
the endpoints to refresh and revoke at); every gateway serving the workspace reads it and rewrites it when it
refreshes the tokens; `mcp-gateway logout` removes it. One file per server, not one for all: refreshes happen
in any serving gateway at any time, and a file per server means a write touches only that server's sign-in
(no read-modify-write of other servers' tokens to lose), and a logout is one unlink.

A sign-in is keyed by the server's name *and* its url: a record whose url is not the configured one (the
server was pointed elsewhere, or another server took the name) is not used, so a token never goes to a server
it was not issued for. The file name is the name made safe plus a digest of the exact name, so two names that
read alike on disk never share a file.

The OS keyring is not used: it would add a dependency (and a D-Bus or Keychain prompt on a headless machine)
for files that are already private (0600, in a 0700 directory the gateway created, never reached through a
link: `workspace_files`), which is how the gateway keeps the config's own secrets.

Every function here does disk I/O: call it from a worker thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import ValidationError

from mcp_gateway.errors import UnusableFileError
from mcp_gateway.paths import directory_problem, safe_file_name
from mcp_gateway.workspace_files import read_regular, remove_stale_temp_files, replace_file

MAX_SIGN_IN_BYTES = 256 * 1024
"""Tokens, a client registration and a few urls are a few kilobytes (a large JWT about 8 KB); more is not ours."""
FORMAT_VERSION = 1


@dataclass(frozen=True)
class SignIn:
    """One server's sign-in: what `login` got, as the serving gateway needs it to use and renew it."""

    server: str
    url: str
    tokens: OAuthToken
    expires_at: float | None
    """Wall-clock epoch seconds when the access token expires; None when the server did not say."""
    client: OAuthClientInformationFull
    token_endpoint: str
    revocation_endpoint: str | None = None
    resource: str | None = None
    """The RFC 8707 resource the tokens were asked for, asked for again on refresh."""

    def secrets(self) -> tuple[str, ...]:
        """Every secret this sign-in holds, for the gateway's `SecretMask`."""
        found = (self.tokens.access_token, self.tokens.refresh_token, self.client.client_secret)
        return tuple(value for value in found if value)

    def expired(self, now: float | None = None, margin: float = 0.0) -> bool:
        """The access token has expired (or will within `margin` seconds)."""
        if self.expires_at is None:
            return False
        return (time.time() if now is None else now) + margin >= self.expires_at

    def renewed(self, tokens: OAuthToken, now: float | None = None) -> SignIn:
        """This sign-in with `tokens` from a refresh; a refresh that sends no new refresh token keeps the old one."""
        if tokens.refresh_token is None:
            tokens = tokens.model_copy(update={"refresh_token": self.tokens.refresh_token})
        if tokens.scope is None:
            tokens = tokens.model_copy(update={"scope": self.tokens.scope})
        return SignIn(
            server=self.server,
            url=self.url,
            tokens=tokens,
            expires_at=expiry(tokens, now),
            client=self.client,
            token_endpoint=self.token_endpoint,
            revocation_endpoint=self.revocation_endpoint,
            resource=self.resource,
        )


def expiry(tokens: OAuthToken, now: float | None = None) -> float | None:
    if tokens.expires_in is None:
        return None
    return (time.time() if now is None else now) + tokens.expires_in


class SignInStore:
    """The sign-ins of one workspace (`directory` is its `oauth/`)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path_of(self, server: str) -> Path:
        digest = hashlib.sha256(server.encode()).hexdigest()[:12]
        return self.directory / f"{safe_file_name(server)}-{digest}.json"

    def lock_path_of(self, server: str) -> Path:
        """The file whose lock serialises renewals of `server`'s sign-in across processes (`sign_in_lock`)."""
        return self.path_of(server).with_suffix(".lock")

    def load(self, server: str, url: str) -> SignIn | None:
        """The sign-in of `server` at `url`; None when there is none, it is for another url, or it is unreadable.

        Raises:
            UnusableFileError: what is there is a link, not a regular file, or too large (never followed).
        """
        try:
            data = read_regular(self.path_of(server), MAX_SIGN_IN_BYTES)
        except FileNotFoundError:
            return None
        try:
            sign_in = _parsed(json.loads(data))
        except (ValueError, TypeError, KeyError, ValidationError):
            return None  # not a sign-in this gateway wrote: as if signed out; the next login replaces it
        if sign_in.server != server or sign_in.url != url:
            return None
        return sign_in

    def signature(self, server: str) -> tuple[int, int, int, int] | None:
        """What changes whenever `server`'s stored sign-in is written or removed (inode, size, times); None when
        there is none. A link is not followed: it stands for itself, as `load` refuses it."""
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
        problem = directory_problem(self.directory, allow_link=False)
        if problem is not None:
            raise UnusableFileError(str(self.directory), problem, "not-a-directory")
        path = self.path_of(sign_in.server)
        remove_stale_temp_files(path)
        replace_file(path, json.dumps(_serialised(sign_in), indent=2).encode(), durable=True)

    def remove(self, server: str) -> bool:
        """Forget `server`'s sign-in; whether there was one. A link there is removed itself, never its target."""
        path = self.path_of(server)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            return True
        return False


def _serialised(sign_in: SignIn) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "server": sign_in.server,
        "url": sign_in.url,
        "tokens": sign_in.tokens.model_dump(mode="json", exclude_none=True),
        "expiresAt": sign_in.expires_at,
        "client": sign_in.client.model_dump(mode="json", exclude_none=True),
        "tokenEndpoint": sign_in.token_endpoint,
        "revocationEndpoint": sign_in.revocation_endpoint,
        "resource": sign_in.resource,
    }


def _parsed(loaded: Any) -> SignIn:
    if not isinstance(loaded, dict):
        raise TypeError("not a sign-in record")
    raw = cast(dict[str, Any], loaded)
    if raw.get("version") != FORMAT_VERSION:
        raise ValueError("not a sign-in record")
    expires_at: object = raw.get("expiresAt")
    revocation: object = raw.get("revocationEndpoint")
    resource: object = raw.get("resource")
    return SignIn(
        server=str(raw["server"]),
        url=str(raw["url"]),
        tokens=OAuthToken.model_validate(raw["tokens"]),
        expires_at=float(expires_at) if isinstance(expires_at, int | float) else None,
        client=OAuthClientInformationFull.model_validate(raw["client"]),
        token_endpoint=str(raw["tokenEndpoint"]),
        revocation_endpoint=revocation if isinstance(revocation, str) else None,
        resource=resource if isinstance(resource, str) else None,
    )
