"""Signing in to remote MCP servers with OAuth, and using the sign-in.

A person runs `mcp-gateway login X` (`login`: the SDK's authorization flow, the browser coming back to a
loopback listener) and `logout X`; the sign-in is kept as one private file per server in the workspace's
`oauth/` (`SignInStore`, keyed by name and url). Every serving gateway reads it through `SignInAuth`, the
`httpx2.Auth` of each remote connection: the token on each request, renewed before it expires (one renewal at a
time across processes), and a refusal no token answers turned into a marked JSON-RPC error
(`is_sign_in_reply`), which `downstream` words as "run `mcp-gateway login X`". `status` and `doctor` show each
remote server's `SignInState`, never a token. The serving gateway never starts a sign-in.

This package sits below the service and `downstream`: it imports neither.
"""

from mcp_gateway.sign_in.auth import (
    HTTP_UNAUTHORIZED,
    TOKEN_ENDPOINT_SECONDS,
    SignInAuth,
    SignInContext,
    is_sign_in_reply,
    renewal_failure,
)
from mcp_gateway.sign_in.login import SIGN_IN_WAIT_SECONDS, LoginReport, LogoutReport, login, logout
from mcp_gateway.sign_in.store import SignIn, SignInState, SignInStore, sign_in_states

__all__ = [
    "HTTP_UNAUTHORIZED",
    "SIGN_IN_WAIT_SECONDS",
    "TOKEN_ENDPOINT_SECONDS",
    "LoginReport",
    "LogoutReport",
    "SignIn",
    "SignInAuth",
    "SignInContext",
    "SignInState",
    "SignInStore",
    "is_sign_in_reply",
    "login",
    "logout",
    "renewal_failure",
    "sign_in_states",
]
