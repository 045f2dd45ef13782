"""A client's own OAuth block for a remote server, as the gateway's `oauth` settings (`config.models.OAuthSettings`).

A client that signs in to a server with OAuth keeps that sign-in to itself, so the gateway cannot reuse it; but
the block in the client's config says what the sign-in needs: a client id registered by hand (the server does
not register clients), its secret, the scopes, a fixed loopback port. Imported as the gateway's `oauth`, the
server is marked as needing `mcp-gateway login NAME` (`sign_in.needs_login`), and that login asks for what the
client asked for. Each client spells it its own way (reference §2): `clientId`/`clientSecret`/`scopes` (Gemini
CLI, Cline), `scope` as one spaced string (OpenCode), `client_id`/`client_secret` (Zed), `callbackPort` (Claude
Code), `redirectUri` (Gemini CLI). `oauth: false` (OpenCode) or `enabled: false` (Gemini CLI) means no OAuth;
`oauth: true` means OAuth with nothing configured (dynamic registration). Endpoints a client lets a person set
(`authorizationUrl`, `tokenUrl`) are not carried: the gateway discovers them from the server (RFC 9728, 8414).

A client secret written literally in the client's file is not copied into config.json: the gateway's rule for
that field is a `${VAR}` reference (config.json is not the place for a secret, and `login` says the same), so
`secret_as_reference` writes one named after the server and says which variable to set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.importing.clients.model import JsonObject, Skip

_CLIENT_ID_KEYS = ("clientId", "client_id", "CLIENT_ID")
_CLIENT_SECRET_KEYS = ("clientSecret", "client_secret", "CLIENT_SECRET")
_PORT_KEYS = ("redirectPort", "callbackPort", "callback_port")
_REDIRECT_URI_KEYS = ("redirectUri", "redirect_uri")
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_ONLY_REFERENCES = re.compile(r"(?:\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})+")
_NOT_NAME = re.compile(r"[^A-Z0-9]+")
MAX_PORT = 65535


def read_oauth(value: object) -> JsonObject | None:
    """The gateway's `oauth` settings for a client's OAuth block; None when the block says there is no OAuth.

    Raises:
        Skip: the block is neither an object nor a boolean, or a field of it is unusable.
    """
    if value is None or value is False:
        return None
    if value is True:
        return {}
    block = as_object(value)
    if block is None:
        raise Skip("its 'oauth' is neither an object nor true/false")
    if block.get("enabled") is False:
        return None
    settings: JsonObject = {}
    client_id = _first_text(block, _CLIENT_ID_KEYS)
    if client_id:
        settings["clientId"] = client_id
    secret = _first_text(block, _CLIENT_SECRET_KEYS)
    if secret:
        if not client_id:
            raise Skip("its OAuth block has a client secret but no client id; add the id, or remove the secret")
        settings["clientSecret"] = secret
    scopes = _scopes(block)
    if scopes:
        settings["scopes"] = scopes
    port = _port(block)
    if port is not None:
        settings["redirectPort"] = port
    return settings


def secret_as_reference(name: str, entry: JsonObject) -> tuple[JsonObject, str | None]:
    """`entry` with a literal `oauth.clientSecret` replaced by a `${VAR}` reference, and the note saying so.

    Run after the client's variable syntax is translated: only then is `$SECRET` known to be a reference.
    """
    oauth = as_object(entry.get("oauth"))
    secret = None if oauth is None else oauth.get("clientSecret")
    if oauth is None or not isinstance(secret, str) or _ONLY_REFERENCES.fullmatch(secret):
        return entry, None
    variable = f"{_NOT_NAME.sub('_', name.upper()).strip('_') or 'SERVER'}_OAUTH_CLIENT_SECRET"
    note = (
        f"its OAuth client secret is written in the client's file; config.json names it as ${{{variable}}} "
        f"instead: set {variable} to that secret in the gateway's environment before running login"
    )
    return {**entry, "oauth": {**oauth, "clientSecret": f"${{{variable}}}"}}, note


def _first_text(block: Mapping[str, object], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = block.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise Skip(f"its 'oauth.{key}' is not a string")
        return value.strip() or None
    return None


def _scopes(block: Mapping[str, object]) -> list[str]:
    value = block.get("scopes", block.get("scope"))
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()  # OAuth's own form: one space-separated string (RFC 6749 §3.3)
    items = as_list(value)
    if items is None or not all(isinstance(item, str) for item in items):
        raise Skip("its OAuth scopes are neither a list of strings nor one spaced string")
    return [str(item) for item in items if str(item).strip()]


def _port(block: Mapping[str, object]) -> int | None:
    for key in _PORT_KEYS:
        value = block.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PORT:
            raise Skip(f"its 'oauth.{key}' is not a port number (1 to {MAX_PORT})")
        return value
    uri = _first_text(block, _REDIRECT_URI_KEYS)
    if uri is None:
        return None
    try:
        parts = urlsplit(uri)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise Skip(f"its OAuth redirect '{uri}' is not a valid url") from exc
    if host not in _LOOPBACK_HOSTS:
        raise Skip(
            f"its OAuth redirect '{uri}' is not on this machine; the gateway's sign-in returns to 127.0.0.1, "
            "so register a loopback redirect for its client and add the server by hand"
        )
    return port
