"""Secrets out of everything `import` prints: a config entry of any client's shape, masked.

The gateway config stores what the client had (the servers run from there now), but nothing printed may
show a secret: a dry run is the kind of output people paste into issues. What is a secret is decided by the
shared rules in `mcp_gateway.masking` (env values by name or looks, `--api-key X`, `--token=X`,
`Authorization: X`, `?key=X`, `user:password@`); this module only knows where they sit in a client's entry.
Header values are all masked here: a preview cannot tell a custom credential header from a plain one, and
hiding `X-Team: core` in a preview costs nothing. A value made only of `${VAR}` references
(`Bearer ${API_TOKEN}`) names a secret without holding one and is shown.
"""

from __future__ import annotations

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.masking import MASK, VARIABLE_REFERENCE, looks_like_token, redact_args, redact_env, redact_url

_AUTH_SCHEMES = frozenset({"", "bearer", "basic", "token"})
_ENV_KEYS = frozenset({"env", "environment", "envs"})
_HEADER_KEYS = frozenset({"headers", "http_headers", "httpHeaders"})
_ARG_KEYS = frozenset({"args", "command"})


def mask_json(value: object, parent: str = "") -> object:
    """A copy of a config entry (any client's shape) with every secret replaced by `***`."""
    mapping = as_object(value)
    if mapping is not None:
        return _mask_mapping(mapping, parent)
    items = as_list(value)
    if items is not None:
        strings = [item for item in items if isinstance(item, str)]
        if parent in _ARG_KEYS and len(strings) == len(items):
            return redact_args(strings, _shown)
        return [mask_json(item, parent) for item in items]
    if isinstance(value, str):
        return redact_url(value, _shown) if parent == "url" else MASK if looks_like_token(value) else value
    return value


def _mask_mapping(mapping: dict[str, object], parent: str) -> dict[str, object]:
    if parent in _HEADER_KEYS:
        return {key: _shown(item) if isinstance(item, str) else item for key, item in mapping.items()}
    if parent in _ENV_KEYS:
        return {key: redact_env(key, item, _shown) if isinstance(item, str) else item for key, item in mapping.items()}
    return {key: mask_json(item, key) for key, item in mapping.items()}


def _shown(secret: str) -> str:
    """What a preview shows for a secret: the secret's `${VAR}` references, else `***`."""
    return secret if _only_references(secret) else MASK


def _only_references(value: str) -> bool:
    """`${VAR}` references and at most an auth scheme word: the value names a secret, holds none."""
    return bool(VARIABLE_REFERENCE.search(value)) and VARIABLE_REFERENCE.sub("", value).strip().lower() in _AUTH_SCHEMES
