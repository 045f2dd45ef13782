"""A remote server's sign-in state in a person's words (`status`, `doctor`) and in `--json`; never a token."""

from __future__ import annotations

import shlex
import time
from typing import Any

from mcp_gateway.cli.overview import ago
from mcp_gateway.service.reports import SignInState


def sign_in_words(server: str, state: SignInState, program: str) -> str:
    """ "signed in, expires in 40 minutes (renewed by the gateway)", or what to run to sign in."""
    if state.state == "needs sign-in":
        return f"needs sign-in (run {program} login {shlex.quote(server)})"
    if state.state == "not needed":
        return "not needed"
    if state.expires_at is None:
        return "signed in (its token does not expire)"
    left = state.expires_at - time.time()
    when = f"expired {ago(state.expires_at)}" if left <= 0 else f"expires in {_span(left)}"
    renewal = "the gateway renews it" if state.renewable else "then sign in again"
    return f"signed in, token {when} ({renewal})"


def _span(seconds: float) -> str:
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"


def sign_in_json(state: SignInState) -> dict[str, Any]:
    return {"state": state.state, "expiresAt": state.expires_at, "renewable": state.renewable}
