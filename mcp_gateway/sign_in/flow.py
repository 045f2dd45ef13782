"""`login` and `logout`: a person signs the workspace in to a remote server with OAuth, or out again.

The SDK's `OAuthClientProvider` does the protocol; this module gives it the loopback redirect (on the configured
`redirectPort` or a free one), shows the authorization URL, waits a bounded time for the person, words every
failure for them, and saves the `SignIn` for every serving gateway. A logout's revocation is best effort: a
server that cannot be reached must not keep a person signed in locally.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Literal
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import anyio
import anyio.to_thread
import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthRegistrationError
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.config import GatewayConfig, RemoteServer, ServerConfig, StdioServer
from mcp_gateway.errors import CommandFailedError, UsageError
from mcp_gateway.paths import Workspace
from mcp_gateway.sign_in.loopback import Loopback
from mcp_gateway.sign_in.store import SignIn, SignInStore
from mcp_gateway.wire import bare_initialize

MAX_ERROR_DESCRIPTION_CHARS = 300
"""An authorization server's `error_description`, quoted: a sentence, not a page."""
SIGN_IN_WAIT_SECONDS = 300.0
"""How long `login` waits for the browser to come back: a person reads a consent page, perhaps signs in with a
second factor; five minutes is what the `gh` and `gcloud` sign-ins allow, and a run can always be repeated."""
HTTP_TIMEOUT_SECONDS = 30.0
"""Each request of the flow (metadata, registration, token); the wait for the person is not one of them."""
REVOKE_TIMEOUT_SECONDS = 10.0
"""Revocation is best effort: an unreachable server must not hold up a logout for long."""
CLIENT_NAME = "mcp-gateway"

ShowUrl = Callable[[str, bool], None]
"""Called with the authorization URL, and whether a browser was asked to open it."""


@dataclass(frozen=True)
class LogoutReport:
    server: str
    removed: bool
    revoked: Literal["yes", "failed", "not offered", "nothing to revoke"]


class _Memory:
    """The SDK's `TokenStorage` for one flow; the result is saved as one `SignIn` once the flow is done."""

    def __init__(self, client: OAuthClientInformationFull | None) -> None:
        self.tokens: OAuthToken | None = None
        self.client = client

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def login(
    workspace: Workspace,
    config: GatewayConfig,
    name: str,
    *,
    show_url: ShowUrl,
    open_browser: bool,
    learn: Callable[[Iterable[str]], None],
    wait_seconds: float = SIGN_IN_WAIT_SECONDS,
) -> SignIn:
    """Sign the workspace in to the remote server `name` (or alias); the sign-in is saved for every gateway, and
    its secrets given to `learn` first.

    Raises:
        UsageError: no server has that name, or it is a local (stdio) server, which has nothing to sign in to.
        CommandFailedError: the sign-in did not happen (refused, timed out, not offered by the server).
    """
    server, spec = _remote_server(config, name)
    settings = spec.oauth
    configured = None
    if settings is not None and settings.client_id is not None:
        configured = OAuthClientInformationFull(
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            token_endpoint_auth_method="client_secret_post" if settings.client_secret else "none",
        )
    scopes = " ".join(settings.scopes) if settings is not None and settings.scopes else None
    loopback = await Loopback.open(settings.redirect_port if settings else None, server.name)
    storage = _Memory(configured)

    async def redirect(url: str) -> None:
        import webbrowser  # only here: a serving gateway imports this module and never opens a browser

        loopback.expect(url)
        if scopes is not None:
            url = _with_scope(url, scopes)  # the SDK asks for what the server advertises; the config says otherwise
        opened = open_browser and await anyio.to_thread.run_sync(webbrowser.open, url)
        show_url(url, bool(opened))

    async def come_back() -> AuthorizationCodeResult:
        with anyio.move_on_after(wait_seconds):
            await loopback.answered.wait()
        answer = loopback.answer
        if answer is None:
            raise CommandFailedError(
                f"No sign-in came back within {wait_seconds / 60:g} minutes; run the command again and finish "
                "the sign-in in the browser."
            )
        code, error, description = answer.get("code"), answer.get("error"), answer.get("error_description")
        if error is not None or code is None:
            why = clip(error or "no authorization code", MAX_ECHOED_NAME_CHARS)
            if description:
                why += f": {clip(description, MAX_ERROR_DESCRIPTION_CHARS)}"
            raise CommandFailedError(
                f"The sign-in to '{server.name}' was refused ({why}); run the command again to retry."
            )
        return AuthorizationCodeResult(code=code, state=answer.get("state"), iss=answer.get("iss"))

    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[loopback.redirect_uri],  # pyright: ignore[reportArgumentType]  # pydantic parses the URL
        grant_types=["authorization_code", "refresh_token"],
        token_endpoint_auth_method="none",
        scope=scopes,
    )
    provider = OAuthClientProvider(spec.url, metadata, storage, redirect, come_back)
    answered = 0
    failure: CommandFailedError | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(loopback.serve)
        try:
            answered = await _ask(spec, provider, server.name)
        except CommandFailedError as exc:
            failure = exc  # raised out here, not out of the group, which would wrap it in an exception group
        finally:
            group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    tokens = storage.tokens
    if tokens is None or storage.client is None:
        raise CommandFailedError(
            f"Server '{server.name}' answered HTTP {answered} without asking for a sign-in, so there is nothing "
            "to sign in to; it works without one."
        )
    sign_in = _sign_in(server.name, spec.url, provider, tokens, storage.client)
    await anyio.to_thread.run_sync(SignInStore(workspace.sign_ins_dir, learn).save, sign_in)
    return sign_in


def _remote_server(config: GatewayConfig, name: str) -> tuple[ServerConfig, RemoteServer]:
    server = config.servers.get(name) or next((s for s in config.servers.values() if name in s.spec.aliases), None)
    if server is None:
        known = ", ".join(config.servers) or "none"
        raise UsageError(f"No server named '{name}' in {config.path} (servers: {known}); check the name.")
    if isinstance(server.spec, StdioServer):
        raise UsageError(f"Server '{server.name}' is a local (stdio) server, which has no sign-in; name a remote one.")
    return server, server.spec


def _sign_in(
    name: str, url: str, provider: OAuthClientProvider, tokens: OAuthToken, client: OAuthClientInformationFull
) -> SignIn:
    """What the finished flow got, with what a gateway needs to renew it: the token endpoint and the resource."""
    context = provider.context
    oauth = context.oauth_metadata
    token_endpoint = str(oauth.token_endpoint) if oauth else urljoin(context.get_authorization_base_url(url), "/token")
    return SignIn(
        server=name,
        url=url,
        tokens=tokens,
        expires_at=context.token_expiry_time,
        client=client,
        token_endpoint=token_endpoint,
        revocation_endpoint=str(oauth.revocation_endpoint) if oauth and oauth.revocation_endpoint else None,
        resource=context.get_resource_url()
        if context.should_include_resource_param(context.protocol_version)
        else None,
    )


async def _ask(spec: RemoteServer, provider: OAuthClientProvider, name: str) -> int:
    """Send the server one request the way a client starts (the provider signs in when it is refused); its status."""
    if spec.type == "http":
        method, initialize, accept = "POST", bare_initialize(CLIENT_NAME), "application/json, text/event-stream"
    else:
        method, initialize, accept = "GET", None, "text/event-stream"
    try:
        async with (
            httpx2.AsyncClient(auth=provider, timeout=HTTP_TIMEOUT_SECONDS) as client,
            client.stream(method, spec.url, json=initialize, headers={"Accept": accept}) as response,
        ):
            return response.status_code
    except (OAuthFlowError, httpx2.UnsupportedProtocol, httpx2.InvalidURL) as exc:
        # (a challenge may name a metadata url that is not one, a relative path say: no metadata to follow)
        raise CommandFailedError(_flow_failure(name, spec.url, provider, exc)) from exc
    except httpx2.HTTPError as exc:
        raise CommandFailedError(
            f"Signing in to '{name}' failed: {type(exc).__name__} at {_shown(exc)}; check that the server is "
            "running and its url in config.json is right, then run the command again."
        ) from exc


def _flow_failure(name: str, url: str, provider: OAuthClientProvider, exc: Exception) -> str:
    context = provider.context
    if context.oauth_metadata is None and context.protected_resource_metadata is None:
        return (
            f"Server '{name}' refused the gateway but publishes no usable OAuth metadata (RFC 9728 or RFC 8414) "
            f"for {url}, so there is no sign-in to run; it may want a token in headers or bearerTokenEnv instead."
        )
    if isinstance(exc, OAuthRegistrationError):
        return (
            f"Server '{name}' would not register the gateway as a client ({exc}); set oauth.clientId (and "
            "oauth.clientSecret as ${VAR}) for this server in config.json, then run the command again."
        )
    if "State parameter mismatch" in str(exc):
        return (
            f"The sign-in that came back to the gateway is not the one it started for '{name}' (state mismatch), "
            "so it was not used; run the command again and use only the newest sign-in link."
        )
    return f"Signing in to '{name}' failed ({exc}); run the command again, and check the server's sign-in settings."


def _shown(exc: httpx2.HTTPError) -> str:
    try:
        return str(exc.request.url.copy_with(query=None))
    except RuntimeError:
        return "the server"


def _with_scope(url: str, scopes: str) -> str:
    parts = urlsplit(url)
    query = [(key, value) for key, value in parse_qsl(parts.query) if key != "scope"] + [("scope", scopes)]
    return urlunsplit(parts._replace(query=urlencode(query)))


async def logout(
    workspace: Workspace, config: GatewayConfig, name: str, *, learn: Callable[[Iterable[str]], None]
) -> LogoutReport:
    """Forget the sign-in of `name` (a configured server, or one that was removed from the config)."""
    store = SignInStore(workspace.sign_ins_dir, learn)
    server = config.servers.get(name)
    url = server.spec.url if server is not None and not isinstance(server.spec, StdioServer) else None
    sign_in = None if url is None else await anyio.to_thread.run_sync(store.load, name, url)
    revoked = await _revoke(sign_in) if sign_in is not None else "nothing to revoke"
    removed = await anyio.to_thread.run_sync(store.remove, name)
    return LogoutReport(server=name, removed=removed, revoked=revoked)


async def _revoke(sign_in: SignIn) -> Literal["yes", "failed", "not offered"]:
    """Ask the authorization server to revoke the refresh token and the access token (RFC 7009)."""
    endpoint = sign_in.revocation_endpoint
    if endpoint is None:
        return "not offered"
    client = {"client_id": sign_in.client.client_id}
    if sign_in.client.client_secret:
        client["client_secret"] = sign_in.client.client_secret
    tokens = {"refresh_token": sign_in.tokens.refresh_token, "access_token": sign_in.tokens.access_token}
    revoked = True
    with anyio.move_on_after(REVOKE_TIMEOUT_SECONDS) as scope:
        async with httpx2.AsyncClient(timeout=REVOKE_TIMEOUT_SECONDS) as http:
            for hint, token in tokens.items():
                if not token:
                    continue
                try:
                    response = await http.post(endpoint, data={"token": token, "token_type_hint": hint, **client})
                    revoked = revoked and response.status_code == HTTPStatus.OK
                except httpx2.HTTPError:
                    revoked = False
    return "yes" if revoked and not scope.cancelled_caught else "failed"
