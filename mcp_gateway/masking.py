"""Secrets out of everything the gateway writes or prints: what counts as one, and `SecretMask`.

The gateway holds the credentials of the servers behind it (env values, headers, bearer tokens, `--api-key X`
arguments, `?key=` in URLs) and writes text in many places: the errors the model reads, errors.json, each
server's stderr log, gateway.log, `status`, `doctor`. A server may echo its own credential into any of them
(a JSON-RPC error, its stderr, a crash at start). So every exit passes its text through one `SecretMask`, built
once from the loaded config and environment: it replaces each secret value the gateway knows (longest first)
with `***`, then masks what is shaped like a credential in a URL (a userinfo password, a `?token=` value) even
when nobody configured it.

The rules, shared with `import` (which masks config-shaped previews with them): a value is a secret when its
name declares one (TOKEN, KEY, SECRET, PASSWORD, AUTH, COOKIE, …, but not a `…_PATH`, `…_MODE` or `…_URL`
naming something about it) or when it looks generated (a known token prefix, a long mix of cases and digits,
long hex, a UUID). Paths, URLs, words and short values are not: masking `production` or `/home/me/project`
would hide what a user needs to read and protect nothing. Each rule takes a `Redact` callback, called with
every secret piece it finds, so one rule serves both collecting secrets and masking a preview.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit, urlunsplit

from mcp_gateway.config import ServerConfig, StdioServer

MASK = "***"
MIN_SECRET_CHARS = 6
"""Known values shorter than this are not masked: ports, flags and short words occur in ordinary text too
often to replace everywhere, and a credential that short protects nothing anyway."""
MIN_TOKEN_LENGTH = 20
"""Characters; shorter random-looking strings are too common (versions, short ids) to call generated."""
MIN_HEX_TOKEN_LENGTH = 32
MIN_PREFIXED_TOKEN_LENGTH = 8
"""A known token prefix (`ghp_`, `sk-`) followed by almost nothing is a word, not a token."""

SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|PWD|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|(?:^|_)PAT(?:$|_)", re.I
)
NOT_SECRET_SUFFIX = re.compile(
    r"_(?:TYPE|MODE|METHOD|FILE|PATH|DIR|URL|URI|HOST|PORT|ENABLED|DISABLED|TIMEOUT|TTL|LIMIT|FORMAT|"
    r"PROVIDER|SCHEME|NAME|REGION|LENGTH|SIZE|ENDPOINT|ISSUER|VERSION)S?$",
    re.I,
)
"""Names that say something *about* a secret (`API_KEY_FILE`, `AUTH_MODE`), whose values are not one."""

Redact = Callable[[str], str]
"""Called with each secret piece a rule finds; returns what to write in its place."""

_AUTH_SCHEMES = frozenset({"bearer", "basic", "token", "digest"})
_TOKEN_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "github_pat_", "sk-", "xoxb-", "xoxp-", "xoxa-", "glpat-", "eyJ")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.=+/:]+")
_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
VARIABLE_REFERENCE = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")
"""`${VAR}` or `$VAR`: a value made of these names a secret without holding it."""
_HEADER_ARG = re.compile(r"^(?P<name>[A-Za-z0-9-]+)\s*:\s*(?P<value>.+)$")
_ASSIGNMENT_ARG = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.+)$")
# In free text as in a URL: stop at whitespace and quotes, which end a URL in a log line or a message.
_URL_USERINFO = re.compile(r"(?P<head>://)(?P<user>[^/:@\s\"'<>]+)(?::(?P<password>[^/@\s\"'<>]+))?@")
_URL_QUERY = re.compile(r"(?P<head>[?&](?P<name>[A-Za-z0-9_.\-\[\]]+)=)(?P<value>[^&#\s\"'<>]+)")
_SPACE = re.compile(r"\s")
# A shell word, without the quotes and operators around it: `TOKEN=abc;` is the assignment `TOKEN=abc`.
_SHELL_WORD = re.compile(r"[^\s'\"`;&|()<>]+")
_QUOTED_HEADER = re.compile(r"[\"'](?P<name>[A-Za-z0-9-]+)\s*:\s*(?P<value>[^\"'\n]+)")
_QUOTED_ASSIGNMENT = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<quote>[\"'])(?P<value>[^\"'\n]+)(?P=quote)")
_PATH_START = re.compile(r"^(?:/|~|\.{1,2}/|[A-Za-z]:\\)")


# The rules.


def declares_secret(name: str) -> bool:
    """A variable, header, flag or query name that says its value is a credential (`API_KEY`, `--token`)."""
    normalized = name.lstrip("-").replace("-", "_")
    return bool(SECRET_NAME.search(normalized)) and not NOT_SECRET_SUFFIX.search(normalized)


def looks_like_token(value: str) -> bool:
    """A generated credential rather than a word, path, URL, version or package name."""
    text = VARIABLE_REFERENCE.sub("", value).strip()
    if text.startswith(_TOKEN_PREFIXES) and len(text) >= MIN_PREFIXED_TOKEN_LENGTH:
        return True
    if len(text) < MIN_TOKEN_LENGTH or not _TOKEN_CHARS.fullmatch(text) or "://" in text:
        return False
    if text.startswith(("/", "~", ".", "@")):
        return False
    if _UUID.fullmatch(text) or (len(text) >= MIN_HEX_TOKEN_LENGTH and _HEX.fullmatch(text)):
        return True
    return any(c.isupper() for c in text) and any(c.islower() for c in text) and any(c.isdigit() for c in text)


def looks_like_path(value: str) -> bool:
    """An absolute, home-relative or explicitly relative file path: it names where a secret is, not the secret."""
    return bool(_PATH_START.match(value))


def redact_env(name: str, value: str, redact: Redact) -> str:
    """An environment variable: a URL by the URL rule; else secret by its name (unless a path) or its looks."""
    if "://" in value:
        return redact_url(value, redact)
    if (declares_secret(name) and not looks_like_path(value)) or looks_like_token(value):
        return redact(value)
    return value


def redact_header(name: str, value: str, redact: Redact) -> str:
    """An HTTP header: secret by its name (Authorization, Cookie, X-API-Key) or its looks; the scheme stays."""
    if not declares_secret(name) and not looks_like_token(value):
        return value
    scheme, _, credential = value.strip().partition(" ")
    if scheme.lower() in _AUTH_SCHEMES and credential.strip():
        return f"{scheme} {redact(credential.strip())}"
    return redact(value)


def redact_url(text: str, redact: Redact) -> str:
    """Credentials in URLs anywhere in `text`: a userinfo password (or token-like user), secret query values."""

    def userinfo(match: re.Match[str]) -> str:
        user, password = match.group("user"), match.group("password")
        shown_user = redact(user) if looks_like_token(user) else user
        shown_password = f":{redact(password)}" if password else ""
        return f"{match.group('head')}{shown_user}{shown_password}@"

    def query(match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("value")
        secret = declares_secret(name) or looks_like_token(value)
        return match.group("head") + (redact(value) if secret else value)

    return _URL_QUERY.sub(query, _URL_USERINFO.sub(userinfo, text))


def redact_args(args: Sequence[str], redact: Redact) -> list[str]:
    """A command line: the value after a secret flag (`--api-key X`, `--token=X`), header-shaped arguments
    (`Authorization: Bearer X`), `NAME=VALUE` assignments, URLs, anything that looks like a token (`sk-…`,
    `ghp_…`, a long mix of cases and digits), and the same inside an argument that is itself a command line
    (`sh -c '…'`)."""
    shown: list[str] = []
    secret_next = False
    for arg in args:
        if secret_next and not arg.startswith("-"):
            shown.append(arg if looks_like_path(arg) else redact(arg))
            secret_next = False
            continue
        secret_next = arg.startswith("-") and "=" not in arg and declares_secret(arg)
        shown.append(_redact_arg(arg, redact))
    return shown


def _redact_arg(arg: str, redact: Redact) -> str:
    if arg.startswith("-") and "=" in arg:
        flag, value = arg.split("=", 1)
        if declares_secret(flag):
            return f"{flag}={value if looks_like_path(value) else redact(value)}"
        return f"{flag}={_redact_arg(value, redact)}"
    spaced = bool(_SPACE.search(arg))
    if "://" in arg and not spaced:
        return redact_url(arg, redact)
    header = _HEADER_ARG.match(arg)
    if header:
        return arg[: header.start("value")] + redact_header(header.group("name"), header.group("value"), redact)
    return _redact_script(arg, redact) if spaced else _redact_word(arg, redact)


def _redact_word(word: str, redact: Redact) -> str:
    """One argument without spaces: a `NAME=VALUE` assignment by the env rule, else secret by its looks."""
    assignment = _ASSIGNMENT_ARG.match(word)
    if assignment:
        return word[: assignment.start("value")] + redact_env(
            assignment.group("name"), assignment.group("value"), redact
        )
    return redact(word) if looks_like_token(word) else word


def _redact_script(script: str, redact: Redact) -> str:
    """A command line in one argument (`sh -c 'TOKEN=abc server --api-key sk-…'`): its quoted header-shaped
    text (`-H "Authorization: Bearer X"`) and quoted assignments (`KEY='X'`), then its words as a command
    line; quotes and spacing stay."""

    def header(match: re.Match[str]) -> str:
        head = match.group()[: match.start("value") - match.start()]
        return head + redact_header(match.group("name"), match.group("value"), redact)

    def assignment(match: re.Match[str]) -> str:
        head = match.group()[: match.start("value") - match.start()]
        return head + redact_env(match.group("name"), match.group("value"), redact) + match.group("quote")

    script = _QUOTED_ASSIGNMENT.sub(assignment, _QUOTED_HEADER.sub(header, script))
    words = list(_SHELL_WORD.finditer(script))
    shown = redact_args([word.group() for word in words], redact)
    pieces: list[str] = []
    end = 0
    for word, replacement in zip(words, shown, strict=True):
        pieces += [script[end : word.start()], replacement]
        end = word.end()
    return "".join([*pieces, script[end:]])


# The mask.


class SecretMask:
    """The secret values the gateway knows, and `mask(text)`: each of them, and URL-shaped credentials, as `***`.

    Built once and shared by every exit; the one change it allows is to grow (`learn`): a live config edit
    brings new secrets, and a sign-in obtains tokens while the gateway runs. Values shorter than
    `MIN_SECRET_CHARS` and surrounding whitespace are left out (a line is masked without its newline).
    """

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values: tuple[str, ...] = ()
        self._known: re.Pattern[str] | None = None
        self._learning = threading.Lock()
        self.learn(values)

    def learn(self, values: Iterable[str]) -> None:
        """Add secrets met at run time (an OAuth token, a live config edit's): a mask only ever grows, as a process
        started with an old secret may still print it.

        `mask` reads only the pattern, replaced by one assignment: a mask running in another thread meanwhile
        uses the old set or the new one.
        """
        with self._learning:  # two learners at once must not each drop what the other added
            kept = {value.strip() for value in (*self._values, *values)}
            ordered = tuple(sorted((v for v in kept if len(v) >= MIN_SECRET_CHARS), key=len, reverse=True))
            if ordered == self._values:
                return
            # One alternation, longest first: at each position the longest known secret wins, in one pass.
            known = re.compile("|".join(map(re.escape, ordered))) if ordered else None
            self._known, self._values = known, ordered

    @classmethod
    def for_servers(cls, servers: Iterable[ServerConfig], environ: Mapping[str, str]) -> SecretMask:
        """Every secret in the servers' (expanded) config, and each `bearerTokenEnv` value from `environ`."""
        found: list[str] = []

        def collect(value: str) -> str:
            found.append(value)
            return value

        for server in servers:
            spec = server.spec
            if isinstance(spec, StdioServer):
                redact_args(spec.args, collect)
                for name, value in spec.env.items():
                    redact_env(name, value, collect)
                continue
            redact_url(spec.url, collect)
            for name, value in spec.headers.items():
                redact_header(name, value, collect)
            if spec.bearer_token_env and (token := environ.get(spec.bearer_token_env)):
                found.append(token)
            if spec.oauth is not None and spec.oauth.client_secret:
                found.append(spec.oauth.client_secret)
        return cls(found)

    @property
    def values(self) -> tuple[str, ...]:
        """The known secret values, longest first."""
        return self._values

    @property
    def longest(self) -> int:
        """The length of the longest known value (0 when none): how much text a split secret can span."""
        return len(self._values[0]) if self._values else 0

    def mask(self, text: str) -> str:
        if self._known is not None:
            text = self._known.sub(MASK, text)
        return redact_url(text, _to_mask)

    def mask_clipped(self, text: str, limit: int) -> str:
        """`text` masked and at most `limit` characters long, a cut saying how many were left out.

        Only what can be kept is masked (with the longest known secret's length beyond it, so none is split
        out of the mask's sight at the cut): outside text may run to megabytes, and masking it all is wasted.
        What it returns passes through it again unchanged, so text kept bounded can be bounded again on its
        way out.
        """
        margin = limit + self.longest
        shown = self.mask(text[:margin])
        if len(text) <= margin and len(shown) <= limit:
            return shown
        marker = f"… ({len(text) - limit} more characters)"
        return shown[: limit - len(marker)] + marker


def _to_mask(_: str) -> str:
    return MASK


def display_url(url: object) -> str:
    """A URL fit for a message: without userinfo, query or fragment, which may carry credentials."""
    parts = urlsplit(str(url))
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
