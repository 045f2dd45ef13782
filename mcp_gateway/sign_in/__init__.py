"""Signing in to remote MCP servers with OAuth, and using the sign-in; below the service and `downstream`.

- `login` (`mcp-gateway login X`, in `flow.py`) runs the SDK's `OAuthClientProvider`, which does the protocol
  (RFC 9728 and 8414 discovery, RFC 7591 registration unless the config names a client, PKCE, the `state`
  check, the code exchange); around it, the gateway's: a loopback listener on 127.0.0.1 for the browser to come
  back to (`loopback.py`), the URL shown (and a browser opened where asked), a bounded wait for the person, and
  errors worded for them. `logout` asks the server to revoke the tokens (RFC 7009, best effort) and removes them.
- `SignInStore` keeps one private file per server (0600, in a 0700 `oauth/`, never reached through a link),
  keyed by the server's name *and* url: a token never goes to a server it was not issued for. Every sign-in it
  reads or writes is given to the `SecretMask` it was made with, so no token is printed or logged.
- `SignInAuth` is the `httpx2.Auth` of each remote connection of a serving gateway: the token on each request,
  renewed before it expires (one renewal at a time across processes), and a refusal no token answers turned
  into a marked JSON-RPC error (`is_sign_in_reply`), which `downstream` words as "run `mcp-gateway login X`".
  It reads the file again whenever it changes: a person who signs out expects the account to stop being used
  at once, by a daemon that has served for hours too. The serving gateway never starts a sign-in.
- `sign_in_states`: each remote server's `SignInState` for `status` and `doctor`, never a token.
"""

from mcp_gateway.sign_in.auth import (
    TOKEN_ENDPOINT_SECONDS,
    SignInAuth,
    is_sign_in_reply,
    renewal_failure,
)
from mcp_gateway.sign_in.flow import SIGN_IN_WAIT_SECONDS, LogoutReport, login, logout
from mcp_gateway.sign_in.store import SignIn, SignInState, SignInStore, sign_in_states

__all__ = [
    "SIGN_IN_WAIT_SECONDS",
    "TOKEN_ENDPOINT_SECONDS",
    "LogoutReport",
    "SignIn",
    "SignInAuth",
    "SignInState",
    "SignInStore",
    "is_sign_in_reply",
    "login",
    "logout",
    "renewal_failure",
    "sign_in_states",
]
