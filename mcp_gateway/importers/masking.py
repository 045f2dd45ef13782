"""Secrets out of everything `import` prints.

The gateway config stores what the client had (the servers run from there now), but nothing printed may
show a secret: a dry run is the kind of output people paste into issues. Header values are always
secrets; env values are when their name says so (TOKEN, KEY, SECRET, PASSWORD, AUTH, …) or the value
looks generated (a known token prefix, a long mix of cases and digits, long hex). A value made only of
`${VAR}` references (`Bearer ${API_TOKEN}`) names a secret without holding one and is shown. Arguments
and URLs are checked too: `--api-key X`, `--token=X`, `Authorization: X`, `?key=X`, `user:password@`.
"""

from __future__ import annotations

import re

from mcp_gateway.config.jsonfile import as_list, as_object

MASK = "***"
SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|PWD|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|(?:^|_)PAT(?:$|_)", re.I
)
MIN_TOKEN_LENGTH = 20
"""Characters; shorter random-looking strings are too common (versions, short ids) to mask."""
MIN_HEX_TOKEN_LENGTH = 32

_REFERENCE = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")
_AUTH_SCHEMES = frozenset({"", "bearer", "basic", "token"})
_TOKEN_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "github_pat_", "sk-", "xoxb-", "xoxp-", "xoxa-", "glpat-", "eyJ")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.=+/:]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEADER_ARG = re.compile(r"^(?P<name>[A-Za-z0-9-]+)\s*:\s*(?P<value>.+)$")
_URL_PASSWORD = re.compile(r"(?P<head>://[^/:@\s]+:)[^/@\s]+@")
_URL_QUERY = re.compile(r"(?P<head>[?&](?P<name>[^=&#]+)=)(?P<value>[^&#]*)")
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
            return mask_args(strings)
        return [mask_json(item, parent) for item in items]
    if isinstance(value, str):
        return mask_url(value) if parent == "url" else MASK if looks_like_token(value) else value
    return value


def _mask_mapping(mapping: dict[str, object], parent: str) -> dict[str, object]:
    if parent in _HEADER_KEYS:
        return {key: mask_header(item) if isinstance(item, str) else item for key, item in mapping.items()}
    if parent in _ENV_KEYS:
        return {key: mask_env(key, item) if isinstance(item, str) else item for key, item in mapping.items()}
    return {key: mask_json(item, key) for key, item in mapping.items()}


def mask_header(value: str) -> str:
    return value if _only_references(value) else MASK


def mask_env(name: str, value: str) -> str:
    if _only_references(value):
        return value
    return MASK if SECRET_NAME.search(name) or looks_like_token(value) else value


def mask_args(args: list[str]) -> list[str]:
    masked: list[str] = []
    secret_next = False
    for arg in args:
        if secret_next and not arg.startswith("-"):
            masked.append(mask_header(arg))
            secret_next = False
            continue
        secret_next = arg.startswith("-") and "=" not in arg and bool(SECRET_NAME.search(arg))
        masked.append(_mask_arg(arg))
    return masked


def mask_url(url: str) -> str:
    url = _URL_PASSWORD.sub(lambda m: m.group("head") + MASK + "@", url)
    return _URL_QUERY.sub(_mask_query_value, url)


def looks_like_token(value: str) -> bool:
    """A generated credential rather than a word, path, URL, version or package name."""
    text = _REFERENCE.sub("", value).strip()
    if text.startswith(_TOKEN_PREFIXES) and len(text) >= 8:
        return True
    if len(text) < MIN_TOKEN_LENGTH or not _TOKEN_CHARS.fullmatch(text) or "://" in text:
        return False
    if text.startswith(("/", "~", ".", "@")):
        return False
    if _UUID.fullmatch(text) or (len(text) >= MIN_HEX_TOKEN_LENGTH and re.fullmatch(r"[0-9a-fA-F]+", text)):
        return True
    return any(c.isupper() for c in text) and any(c.islower() for c in text) and any(c.isdigit() for c in text)


def _mask_arg(arg: str) -> str:
    if arg.startswith("-") and "=" in arg:
        flag, value = arg.split("=", 1)
        if SECRET_NAME.search(flag):
            return f"{flag}={mask_header(value)}"
    header = _HEADER_ARG.match(arg)
    if header and (SECRET_NAME.search(header.group("name")) or header.group("name").lower() == "authorization"):
        return f"{header.group('name')}: {mask_header(header.group('value'))}"
    if "://" in arg:
        return mask_url(arg)
    return MASK if looks_like_token(arg) else arg


def _mask_query_value(match: re.Match[str]) -> str:
    secret = SECRET_NAME.search(match.group("name")) or looks_like_token(match.group("value"))
    return match.group("head") + (mask_header(match.group("value")) if secret else match.group("value"))


def _only_references(value: str) -> bool:
    """`${VAR}` references and at most an auth scheme word: the value names a secret, holds none."""
    return bool(_REFERENCE.search(value)) and _REFERENCE.sub("", value).strip().lower() in _AUTH_SCHEMES
