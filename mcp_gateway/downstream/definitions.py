"""A server's resolved definition for a session's origin: what its process is started with, and its key.

A shared daemon serves sessions started from different terminals and projects, and a server's config may read
them (`${VAR}` in its command, args, env, cwd, url or headers; `inheritEnv`; `bearerTokenEnv`; no `cwd` at all).
So a server is resolved once per origin (`origin.py`), as a gateway that session's client had started itself
would resolve it:
- its connection fields as written (`ServerConfig.identity`, before expansion) are expanded with the origin's
  environment (`config/expand.py`, so the rules are the loader's);
- a stdio child's environment is the SDK's few inherited variables taken from the origin's environment, not
  the daemon's (or the origin's whole environment with `inheritEnv`), then the server's `env` on top;
- a stdio server runs in its `cwd` if it has one, else in the session's working directory: a server must never
  see another project than it would without the daemon, and the servers most used (filesystem, git, language
  servers) read their project from it. `shareAcrossProjects: true` runs it in the user's home directory instead
  (its inherited `PWD` says so too), where sessions of every project may share it. A remote server has none;
- a remote server's headers, with `Authorization` from the origin's `bearerTokenEnv` variable.
MCP roots do not enter it: the gateway does not relay `roots/list` (`server/asking.py`).

Two sessions share a process only when their definitions are equal: the `digest` covers everything the process
or the request is given, so one session's environment never reaches a process serving another, save the few
inherited variables that only name a terminal (`TERMINAL_VARIABLES`). What a client sets in each session's
environment to describe itself and the session (`CLIENT_SESSION_VARIABLES`: Claude Code's session id, its
messaging socket and token and its project directory, OpenCode's pid, …) is not inherited at all: it is the
client's business with the gateway it started, no server's, it differs between sessions (so nothing could be
shared) and some of it is a secret of that session (so nothing must be). A server whose entry names one
(`${CLAUDE_CODE_SESSION_ID}` in its `env` or `args`) still gets it, and a process of its own per value. The
gateway's own origin resolves to the server as loaded (the loader expanded it with the same environment), in its
own working directory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

from mcp_gateway.config import (
    HttpServer,
    ServerConfig,
    SseServer,
    StdioServer,
    as_list,
    as_object,
    expand_home,
    expand_server_fields,
)
from mcp_gateway.masking import SecretMask
from mcp_gateway.origin import Origin

TERMINAL_VARIABLES = frozenset(
    {
        "_", "OLDPWD", "PWD", "SHLVL",
        "TERM_SESSION_ID", "ITERM_SESSION_ID", "WINDOWID", "WT_SESSION", "KITTY_WINDOW_ID", "WEZTERM_PANE",
        "ALACRITTY_WINDOW_ID", "TMUX_PANE", "STY", "SSH_TTY", "GPG_TTY",
    }
)  # fmt: skip
"""Inherited variables that only say which terminal, tab or shell a client was started from: with `inheritEnv`
(the default) two terminals' sessions would otherwise never share a process. They name no secret and configure
no server (`PWD` follows the working directory, which is in the key itself), so they are left out of the key,
and a shared process has the values of the session that started it. Everything else inherited separates."""
CLIENT_SESSION_VARIABLES = frozenset(
    {
        "CLAUDECODE", "AI_AGENT", "COREPACK_ENABLE_AUTO_PIN", "NoDefaultCurrentDirectoryInExePath",
        "OPENCODE", "OPENCODE_PID", "AGENT", "npm_config_user_agent",
        "GEMINI_CLI", "GEMINI_CLI_NO_RELAUNCH",
    }
)  # fmt: skip
CLIENT_SESSION_PREFIXES = ("CLAUDE_CODE_", "CLAUDE_PROJECT_DIR")
"""What AI clients put in the environment of the servers they start, measured in their real CLIs (Claude Code
2.1.332: `CLAUDE_CODE_SESSION_ID`, `CLAUDE_CODE_MESSAGING_TOKEN` and three more new in every session, and
`CLAUDECODE`, `AI_AGENT`, `CLAUDE_CODE_ENTRYPOINT` and two tweaks of its own runtime in all; OpenCode: `OPENCODE`,
`AGENT` and a new `OPENCODE_PID` every session; Gemini CLI: `GEMINI_CLI` and one of its own; Codex: none).
They describe the client and its session to what it starts, which is the gateway: no server of the user's needs
them, two sessions never have the same, and one session's messaging token must never reach a process another
session uses. So an inherited environment leaves them out. `CLAUDE_PROJECT_DIR` is kept: it names the project,
as the working directory does, and servers read it."""
SHELL_FUNCTION_PREFIX = "()"
"""How bash exports a function in the environment; the SDK passes none on (a known injection path)."""


@dataclass(frozen=True)
class Definition:
    server: ServerConfig
    """The server as this origin starts it: fields expanded with its environment, a stdio server's cwd explicit."""
    environ: Mapping[str, str]
    """The origin's environment: what `inheritEnv` and `bearerTokenEnv` read when the server is started."""
    digest: str
    """Equal for two origins exactly when their processes would be started the same way."""
    secrets: tuple[str, ...]
    """The secret values this resolution brought (see `SecretMask.for_servers`), to be masked before it starts."""


def resolve(server: ServerConfig, origin: Origin, *, own: bool) -> Definition:
    """`server` as `origin` starts it; `own`: the origin is the one the config was loaded with."""
    spec = server.spec if own else _expanded(server, origin.environ)
    if isinstance(spec, StdioServer):
        spec = spec.model_copy(update={"cwd": _working_directory(spec, origin)})
    resolved = replace(server, spec=spec)  # its other facts (misspelt keys) stay the config's
    secrets = () if own else SecretMask.for_servers([resolved], origin.environ).values
    return Definition(resolved, origin.environ, _digest(spec, origin.environ), secrets)


def default_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """What the SDK's `get_default_environment` passes a child, taken from `environ` instead of this process's."""
    return {
        key: value
        for key in DEFAULT_INHERITED_ENV_VARS
        if (value := environ.get(key)) is not None and not value.startswith(SHELL_FUNCTION_PREFIX)
    }


def child_environment(spec: StdioServer, environ: Mapping[str, str]) -> dict[str, str]:
    """A stdio server's environment (before the gateway's marker): inherited from `environ` (without what a
    client says of its session), then its `env`."""
    base = inherited_environment(environ) if spec.inherit_env else default_environment(environ)
    if spec.share_across_projects and spec.cwd is not None and "PWD" in base:
        base["PWD"] = spec.cwd  # the project it was started from is none of its business
    base.update(spec.env)
    return base


def inherited_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` as an `inheritEnv` server inherits it: all of it but `CLIENT_SESSION_VARIABLES`."""
    return {
        key: value
        for key, value in environ.items()
        if key not in CLIENT_SESSION_VARIABLES and not key.startswith(CLIENT_SESSION_PREFIXES)
    }


def remote_definition_headers(spec: HttpServer | SseServer, environ: Mapping[str, str]) -> dict[str, str]:
    """A remote server's headers as sent, `bearerTokenEnv` included (absent when its variable is unset)."""
    headers = dict(spec.headers)
    if spec.bearer_token_env and (token := environ.get(spec.bearer_token_env)):
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _expanded(server: ServerConfig, environ: Mapping[str, str]) -> StdioServer | HttpServer | SseServer:
    """The spec with its expandable fields expanded from `environ`, as the loader expands them.

    An unset variable becomes "" as at load; the loader warned about those of the gateway's own environment."""
    fields, _ = expand_server_fields(server.identity, environ, server.name)
    spec = server.spec
    if isinstance(spec, StdioServer):
        cwd = fields.get("cwd")
        update: dict[str, Any] = {
            "command": fields["command"],
            "args": tuple(_strings(fields.get("args"))),
            "env": _string_map(fields.get("env")),
            "cwd": cwd if isinstance(cwd, str) else None,
        }
    else:
        update = {"url": fields["url"], "headers": _string_map(fields.get("headers"))}
    return spec.model_copy(update=update)


def _working_directory(spec: StdioServer, origin: Origin) -> str:
    if spec.cwd is not None:
        return spec.cwd
    if spec.share_across_projects:
        return expand_home("~", origin.environ)
    return origin.cwd


def _digest(spec: StdioServer | HttpServer | SseServer, environ: Mapping[str, str]) -> str:
    if isinstance(spec, StdioServer):
        started: dict[str, object] = {
            "type": spec.type,
            "command": spec.command,
            "args": list(spec.args),
            "env": _keyed_environment(spec, environ),
            "cwd": spec.cwd,
        }
    else:
        started = {"type": spec.type, "url": spec.url, "headers": remote_definition_headers(spec, environ)}
    return hashlib.sha256(json.dumps(started, sort_keys=True).encode()).hexdigest()


def _keyed_environment(spec: StdioServer, environ: Mapping[str, str]) -> dict[str, str]:
    """The child's environment as the key sees it: inherited terminal names left out, the server's `env` kept."""
    child = child_environment(spec, environ)
    return {key: value for key, value in child.items() if key not in TERMINAL_VARIABLES or key in spec.env}


def _strings(value: object) -> list[str]:
    return [item for item in as_list(value) or () if isinstance(item, str)]


def _string_map(value: object) -> dict[str, str]:
    return {key: item for key, item in (as_object(value) or {}).items() if isinstance(item, str)}
