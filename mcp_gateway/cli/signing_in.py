"""Signing in at the shell: `login` and `logout`, and a remote server's sign-in state in `status` and `doctor`.

`login` prints the sign-in URL on stderr, on a line of its own so it can be copied (and a test's "browser" can
follow it), says whether a browser was asked to open it, and prints the outcome on stdout. A browser is tried
only where one can show: a display on Linux and the BSDs (`DISPLAY` or `WAYLAND_DISPLAY`), always on macOS and
Windows, never with `--no-browser`. Nothing printed holds a token: every one met is added to the command's
`SecretMask`, which also masks everything logged while the command runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
import time
from collections.abc import Mapping
from typing import Any

import anyio

from mcp_gateway.cli.context import load, secret_mask
from mcp_gateway.cli.people import ago, span
from mcp_gateway.errors import GatewayError
from mcp_gateway.gateway_log import log_to_stderr
from mcp_gateway.paths import Workspace
from mcp_gateway.sign_in import SIGN_IN_WAIT_SECONDS, Revoked, SignIn, SignInState, login, logout

NO_DISPLAY_PLATFORMS = ("linux", "freebsd", "openbsd", "netbsd")


def can_open_browser(environ: Mapping[str, str], platform: str = sys.platform) -> bool:
    return not platform.startswith(NO_DISPLAY_PLATFORMS) or bool(
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    )


def run(args: argparse.Namespace) -> int:
    config = load(args)
    secrets = secret_mask(config)
    log_to_stderr(secrets)
    workspace = Workspace.from_environment(args.home)
    # The SDK logs a failed flow with its traceback; `login` says what failed in one sentence instead.
    logging.getLogger("mcp.client.auth").setLevel(logging.CRITICAL)

    def show_url(url: str, opened: bool) -> None:
        how = "A browser was asked to open it; if none did, open" if opened else "Open"
        minutes = f"{SIGN_IN_WAIT_SECONDS / 60:g}"
        print(
            f"{how} this URL in a browser on this machine to sign in (waiting up to {minutes} minutes):\n{url}",
            file=sys.stderr,
            flush=True,
        )

    async def main() -> str:
        if args.command == "logout":
            return _signed_out(args.server, await logout(workspace, config, args.server, learn=secrets.learn))
        browser = not args.no_browser and can_open_browser(os.environ)
        return _signed_in(
            await login(workspace, config, args.server, show_url=show_url, open_browser=browser, learn=secrets.learn)
        )

    try:
        said = anyio.run(main)
    except GatewayError as error:  # a refusal quotes the server's own words, which may quote a secret
        error.redact(secrets.mask)
        raise
    print(secrets.mask(said))
    return 0


def _signed_in(sign_in: SignIn) -> str:
    if sign_in.expires_at is None:
        expiry = "the server gave its token no expiry"
    else:
        at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(sign_in.expires_at))
        renewal = "renewed before then by the gateway" if sign_in.tokens.refresh_token else "sign in again then"
        expiry = f"the token expires at {at} ({renewal})"
    scopes = " ".join((sign_in.tokens.scope or "").split())
    scopes = f"; scopes: {scopes}" if scopes else ""
    return f"Signed in to '{sign_in.server}': {expiry}{scopes}."


def _signed_out(server: str, revoked: Revoked | None) -> str:
    if revoked is None:
        return f"No sign-in to '{server}' was stored; nothing to do."
    said = {
        "yes": "its tokens were revoked at the server",
        "failed": "revoking its tokens at the server failed, so they stay valid there until they expire",
        "not offered": "the server offers no revocation, so its tokens stay valid there until they expire",
        "nothing to revoke": "its sign-in was for another url, so nothing was revoked",
    }[revoked]
    return f"Signed out of '{server}': its tokens were removed from this workspace, and {said}."


def sign_in_lines(server: str, state: SignInState | None, program: str) -> list[str]:
    """ "signed in, token expires in 40m (the gateway renews it)", or what to run to sign in; none when no sign-in
    is needed."""
    if state is None or state.state == "not needed":
        return []
    if state.state == "needs sign-in":
        words = f"needs sign-in (run {program} login {shlex.quote(server)})"
    elif state.expires_at is None:
        words = "signed in (its token does not expire)"
    else:
        left = state.expires_at - time.time()
        when = f"expired {ago(state.expires_at)}" if left <= 0 else f"expires in {span(left)}"
        words = f"signed in, token {when} ({'the gateway renews it' if state.renewable else 'then sign in again'})"
    return [f"    sign-in: {words}"]


def sign_in_json(state: SignInState | None) -> dict[str, Any] | None:
    return (
        None if state is None else {"state": state.state, "expiresAt": state.expires_at, "renewable": state.renewable}
    )
