"""Secrets out of everything `import` prints: a config entry of any client's shape, masked, and its secrets.

The gateway config stores what the client had (the servers run from there now), but nothing printed may
show a secret: a dry run is the kind of output people paste into issues. What is a secret is decided by the
shared rules in `mcp_gateway.masking` (env values by name or looks, `--api-key X`, `--token=X`, a token alone
in the args or inside an `sh -c '…'` string, `Authorization: X`, `?key=X`, `user:password@`); this module only
knows where they sit in a client's entry. A header is a secret by its name (Authorization, Cookie, anything
naming a token, key, secret or password) or when its value looks generated, so `X-Client: my-app` and
`Accept: …` are shown as they are: hiding them hides what a person checks a preview for. A value made only
of `${VAR}` references (`Bearer ${API_TOKEN}`) names a secret without holding one and is shown.

`secrets_in` collects the same pieces `mask_json` hides, so the import's free text (notes, reasons, a
launch check's output) goes through a `SecretMask` built from them: one policy for every printed line.
"""

from __future__ import annotations

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.masking import (
    MASK,
    VARIABLE_REFERENCE,
    Redact,
    looks_like_token,
    redact_args,
    redact_env,
    redact_header,
    redact_url,
)

_AUTH_SCHEMES = frozenset({"", "bearer", "basic", "token"})
_ENV_KEYS = frozenset({"env", "environment", "envs"})
_HEADER_KEYS = frozenset({"headers", "http_headers", "httpHeaders"})
_ARG_KEYS = frozenset({"args", "command"})


def mask_json(value: object) -> object:
    """A copy of a config entry (any client's shape) with every secret replaced by `***`."""
    return _walk(value, "", _shown)


def secrets_in(value: object) -> list[str]:
    """Every secret value `mask_json` would hide in `value` (references to variables are none)."""
    found: list[str] = []

    def collect(secret: str) -> str:
        if not _only_references(secret):
            found.append(secret)
        return secret

    _walk(value, "", collect)
    return found


def _walk(value: object, parent: str, redact: Redact) -> object:
    mapping = as_object(value)
    if mapping is not None:
        return _walk_mapping(mapping, parent, redact)
    items = as_list(value)
    if items is not None:
        strings = [item for item in items if isinstance(item, str)]
        if parent in _ARG_KEYS and len(strings) == len(items):
            return redact_args(strings, redact)
        return [_walk(item, parent, redact) for item in items]
    if isinstance(value, str):
        if "://" in value:
            return redact_url(value, redact)
        return redact(value) if looks_like_token(value) else value
    return value


def _walk_mapping(mapping: dict[str, object], parent: str, redact: Redact) -> dict[str, object]:
    if parent in _HEADER_KEYS:
        return {k: redact_header(k, v, redact) if isinstance(v, str) else v for k, v in mapping.items()}
    if parent in _ENV_KEYS:
        return {k: redact_env(k, v, redact) if isinstance(v, str) else v for k, v in mapping.items()}
    return {key: _walk(item, key, redact) for key, item in mapping.items()}


def _shown(secret: str) -> str:
    """What a preview shows for a secret: the secret's `${VAR}` references, else `***`."""
    return secret if _only_references(secret) else MASK


def _only_references(value: str) -> bool:
    """`${VAR}` references and at most an auth scheme word: the value names a secret, holds none."""
    return bool(VARIABLE_REFERENCE.search(value)) and VARIABLE_REFERENCE.sub("", value).strip().lower() in _AUTH_SCHEMES
