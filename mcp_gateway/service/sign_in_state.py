"""Each remote server's sign-in, as `status` and `doctor` show it: signed in (until when), needs a sign-in, or
not needed. Read from the workspace's sign-ins (`downstream/sign_in_store.py`); never a token, only its expiry.

- `signed in`: a stored sign-in for the server's current url whose access token is live, or has expired but
  carries a refresh token (the gateway renews it at the next request; a refused renewal then says to sign in);
- `needs sign-in`: the server is marked `oauth` in config.json, or its last error was a refused sign-in, and
  nothing usable is stored (none, one for another url, or an expired token that cannot be renewed);
- `not needed`: neither: the server works without one, as far as the gateway knows.
Local (stdio) servers have no sign-in and get no state.
"""

from __future__ import annotations

from mcp_gateway.config import GatewayConfig
from mcp_gateway.config.models import StdioServer
from mcp_gateway.downstream.sign_in_store import SignInStore
from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace
from mcp_gateway.service.reports import SignInState

SIGN_IN_REFUSED = "needs you to sign in"
"""How a refused sign-in's error reads (`downstream/translate.sign_in_required`), as errors.json keeps it."""


def sign_in_states(
    config: GatewayConfig, workspace: Workspace, secrets: SecretMask, last_errors: dict[str, str]
) -> dict[str, SignInState]:
    """The state of every remote server (`last_errors`: each server's last error message). Disk I/O: a thread."""
    store = SignInStore(workspace.sign_ins_dir)
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
            secrets.learn(sign_in.secrets())
            renewable = bool(sign_in.tokens.refresh_token)
            if renewable or not sign_in.expired():
                states[name] = SignInState("signed in", sign_in.expires_at, renewable)
                continue
        marked = spec.oauth is not None or SIGN_IN_REFUSED in last_errors.get(name, "")
        states[name] = SignInState("needs sign-in" if marked or sign_in is not None else "not needed")
    return states
