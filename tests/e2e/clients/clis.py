"""The client CLIs: where each keeps its MCP servers, how it is pointed at the mock model API, how it runs.

Each `ClientCli` writes the user's servers into the client's own config file in the scratch HOME (the
file `mcp-gateway import --client <name>` reads and rewrites), points the client at the mock, and builds
the command that runs one prompt non-interactively. The only configuration written besides the servers is
what a user of that client must write to use a model endpoint of their own (a provider entry, an API key
variable) and to run a prompt without a person at the keyboard (allowing the gateway's tools, trusting the
project directory); each is named where it is written.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest
from gateway_testing import peer

from clients.conversation import as_dict
from clients.places import GATEWAY_NAME, Place

MODEL = "scripted"
MODALITIES = {"input": ["text", "image"], "output": ["text"]}
API_KEY = "sk-mock-model-api"
"""Not a secret: the mock accepts any key; a client refuses to start without one."""


VERSION_SECONDS = 60.0
"""Upper bound for `<client> --version` (a cold start of a 400 MB binary on a busy machine)."""
REBUILD = "npm rebuild --prefix tests/e2e/peers @anthropic-ai/claude-code opencode-ai"
"""What links Claude Code's and OpenCode's native binaries after `npm install --ignore-scripts` (.ci/run)."""


@functools.cache
def installed(binary: str) -> str:
    """The client CLI installed as an npm peer, checked to run: missing or broken is a failure in CI, a skip
    elsewhere. `npm install --ignore-scripts` leaves Claude Code and OpenCode a placeholder that exits 1."""
    program = peer(binary)
    with tempfile.TemporaryDirectory() as home:
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": home}
        done = subprocess.run(
            [str(program), "--version"], env=env, capture_output=True, text=True, timeout=VERSION_SECONDS, check=False
        )
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        message = (
            f"the npm peer '{binary}' does not run ({said[0] if said else f'exit {done.returncode}'}); run: {REBUILD}"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return str(program)


@dataclass(frozen=True)
class UserServer:
    """An MCP server as the user had it in the client before importing."""

    name: str
    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict[str, str])


class ClientCli(Protocol):
    name: str
    """The name `mcp-gateway import --client` takes."""
    binary: str
    """The npm peer's executable."""
    passes_images: bool
    """Whether the client hands an image a tool returned to the model."""
    flags_tool_errors: bool
    """Whether the client's wire marks a tool result as an error (else only its text says so)."""

    def config_file(self, place: Place) -> Path: ...

    def write_config(self, place: Place, servers: Sequence[UserServer], api_url: str) -> None: ...

    def environment(self, place: Place, api_url: str) -> dict[str, str]: ...

    def command(self, place: Place, prompt: str) -> list[str]: ...

    def gateway_entry(self, place: Place) -> dict[str, Any]:
        """The gateway entry as written in the client's config file."""
        ...

    def wait_for_every_server(self, place: Place) -> None:
        """Make the client wait for each of its servers before its first request, where it does not anyway."""
        ...


def _read_json(path: Path) -> dict[str, Any]:
    return as_dict(json.loads(path.read_text()))


def _write_json(path: Path, document: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")


class ClaudeCode:
    """Claude Code (`claude -p`): `~/.claude.json`, Anthropic Messages at `ANTHROPIC_BASE_URL`."""

    name = "claude-code"
    binary = "claude"
    passes_images = True
    flags_tool_errors = True  # tool_result.is_error
    tool_permission = f"mcp__{GATEWAY_NAME}"
    """What `--allowedTools` takes to let a `claude -p` session call the gateway's tools without asking."""

    def config_file(self, place: Place) -> Path:
        return place.home / ".claude.json"

    gateway_name = GATEWAY_NAME
    shutdown_sigint = f'MCP server "{GATEWAY_NAME}": Sending SIGINT to MCP server process'
    shutdown_escalation = f'MCP server "{GATEWAY_NAME}": SIGINT failed, sending SIGTERM to MCP server process'
    """Claude Code's debug log at a session's end: SIGINT first, SIGTERM when the server is still there 100 ms
    later (2.1.x)."""

    def debug_log(self, place: Place) -> Path:
        return place.logs / "claude-debug.log"

    def list_servers_command(self) -> list[str]:
        return [installed(self.binary), "mcp", "list"]

    def wait_for_every_server(self, place: Place) -> None:
        """`alwaysLoad` on every entry: Claude Code waits for the server and loads its tools (not deferred)."""
        document = _read_json(self.config_file(place))
        for entry in as_dict(document.get("mcpServers")).values():
            entry["alwaysLoad"] = True
        _write_json(self.config_file(place), document)

    def write_config(self, place: Place, servers: Sequence[UserServer], api_url: str) -> None:
        entries = {
            s.name: {"type": "stdio", "command": s.command, "args": list(s.args), "env": dict(s.env)} for s in servers
        }
        _write_json(self.config_file(place), {"mcpServers": entries})

    def environment(self, place: Place, api_url: str) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": api_url, "ANTHROPIC_API_KEY": API_KEY}

    def command(self, place: Place, prompt: str) -> list[str]:
        program = installed(self.binary)
        return [
            program,
            "-p",
            prompt,
            "--allowedTools",
            self.tool_permission,
            "--debug-file",
            str(self.debug_log(place)),
        ]

    def gateway_entry(self, place: Place) -> dict[str, Any]:
        return as_dict(as_dict(_read_json(self.config_file(place)).get("mcpServers")).get(GATEWAY_NAME))


class OpenCode:
    """OpenCode (`opencode run`): `~/.config/opencode/opencode.json`, whose provider entry points it at
    the mock's chat completions through the bundled `@ai-sdk/openai-compatible` provider."""

    name = "opencode"
    binary = "opencode"
    passes_images = True  # in a user message after the tool message, when the model takes images
    flags_tool_errors = False  # a chat-completions tool message has no error field
    provider = "mock"

    def config_file(self, place: Place) -> Path:
        return place.home / ".config" / "opencode" / "opencode.json"

    def write_config(self, place: Place, servers: Sequence[UserServer], api_url: str) -> None:
        entries = {
            s.name: {"type": "local", "command": [s.command, *s.args], "environment": dict(s.env), "enabled": True}
            for s in servers
        }
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Mock model API",
            "options": {"baseURL": f"{api_url}/v1", "apiKey": API_KEY},
            # What models.dev says of a real model; without it OpenCode withholds images from the model.
            "models": {MODEL: {"name": "Scripted model", "attachment": True, "modalities": MODALITIES}},
        }
        document = {
            "$schema": "https://opencode.ai/config.json",
            "provider": {self.provider: provider},
            "model": f"{self.provider}/{MODEL}",
            "mcp": entries,
        }
        _write_json(self.config_file(place), document)

    def environment(self, place: Place, api_url: str) -> dict[str, str]:
        return {}

    def command(self, place: Place, prompt: str) -> list[str]:
        return [installed(self.binary), "run", prompt]

    def gateway_entry(self, place: Place) -> dict[str, Any]:
        return as_dict(as_dict(_read_json(self.config_file(place)).get("mcp")).get(GATEWAY_NAME))

    def wait_for_every_server(self, place: Place) -> None:
        """Nothing to do: `opencode run` connects every server before its first request."""


class Codex:
    """Codex (`codex exec`): `~/.codex/config.toml`, whose `model_providers` entry points it at the mock's
    Responses API."""

    name = "codex"
    binary = "codex"
    passes_images = True
    flags_tool_errors = False  # a function_call_output carries the text only
    provider = "mock"

    def config_file(self, place: Place) -> Path:
        return place.home / ".codex" / "config.toml"

    def write_config(self, place: Place, servers: Sequence[UserServer], api_url: str) -> None:
        lines = [
            f"model = {json.dumps(MODEL)}",
            f"model_provider = {json.dumps(self.provider)}",
            "",
            f"[model_providers.{self.provider}]",
            'name = "Mock model API"',
            f"base_url = {json.dumps(api_url + '/v1')}",
            'wire_api = "responses"',
        ]
        for server in servers:
            lines += ["", f"[mcp_servers.{server.name}]", f"command = {json.dumps(server.command)}"]
            lines.append(f"args = {json.dumps(list(server.args))}")
            if server.env:
                lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in server.env.items()) + " }")
        self.config_file(place).parent.mkdir(parents=True, exist_ok=True)
        self.config_file(place).write_text("\n".join(lines) + "\n")

    def environment(self, place: Place, api_url: str) -> dict[str, str]:
        return {}

    approve_gateway_tools = f'mcp_servers.{GATEWAY_NAME}.default_tools_approval_mode="approve"'
    """What lets `codex exec` (approval policy "never") run the gateway's tools that are not read-only."""

    def command(self, place: Place, prompt: str) -> list[str]:
        # The scratch project is no git repository: a user runs `codex exec` there with this flag.
        argv = [installed(self.binary), "exec", "--skip-git-repo-check"]
        if self.gateway_entry(place):  # the override alone would make an entry without a command: refused
            argv += ["-c", self.approve_gateway_tools]
        return [*argv, prompt]

    def gateway_entry(self, place: Place) -> dict[str, Any]:
        document = tomllib.loads(self.config_file(place).read_text())
        return as_dict(as_dict(document.get("mcp_servers")).get(GATEWAY_NAME))

    def wait_for_every_server(self, place: Place) -> None:
        path = self.config_file(place)
        for name in as_dict(tomllib.loads(path.read_text()).get("mcp_servers")):
            self._set_keys(place, name, {"required": "true"})

    def _set_keys(self, place: Place, server: str, values: Mapping[str, str]) -> None:
        """Set keys (TOML values as text) in a server's table, in place; keys it lacks are appended to it."""
        path = self.config_file(place)
        lines = path.read_text().splitlines()
        start = lines.index(f"[mcp_servers.{server}]")
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
        missing = dict(values)
        for index in range(start + 1, end):
            key = re.match(r"\s*([A-Za-z0-9_-]+)\s*=", lines[index])
            if key and key[1] in missing:
                lines[index] = f"{key[1]} = {missing.pop(key[1])}"
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        lines[end:end] = [f"{key} = {value}" for key, value in missing.items()]
        path.write_text("\n".join(lines) + "\n")


class GeminiCli:
    """Gemini CLI (`gemini -p`): `~/.gemini/settings.json`, the Gemini API at `GOOGLE_GEMINI_BASE_URL`."""

    name = "gemini"
    binary = "gemini"
    passes_images = True  # inlineData parts beside the functionResponse
    flags_tool_errors = True  # functionResponse.response.error

    def config_file(self, place: Place) -> Path:
        return place.home / ".gemini" / "settings.json"

    def write_config(self, place: Place, servers: Sequence[UserServer], api_url: str) -> None:
        entries = {s.name: {"command": s.command, "args": list(s.args), "env": dict(s.env)} for s in servers}
        # An API-key user's choice, made once in the interactive dialog; `-p` cannot ask.
        settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "mcpServers": entries}
        _write_json(self.config_file(place), settings)
        # Gemini CLI runs headless only in a trusted folder: what "trust this folder" writes.
        _write_json(place.home / ".gemini" / "trustedFolders.json", {str(place.project): "TRUST_FOLDER"})
        # Headless, a tool that would ask for approval is not offered at all: the user allows their servers'
        # tools, and the gateway's, which `import` puts in their place.
        policies = place.home / ".gemini" / "policies"
        policies.mkdir(parents=True, exist_ok=True)
        rules = [self.allow_tools_of(name) for name in (*(s.name for s in servers), GATEWAY_NAME)]
        (policies / "mcp-servers.toml").write_text("\n".join(rules))

    @staticmethod
    def allow_tools_of(server: str) -> str:
        """A policy-engine rule (~/.gemini/policies/): the server's tools run without asking."""
        return f'[[rule]]\nmcpName = "{server}"\ntoolName = "*"\ndecision = "allow"\npriority = 100\n'

    def environment(self, place: Place, api_url: str) -> dict[str, str]:
        return {"GEMINI_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": api_url}

    def command(self, place: Place, prompt: str) -> list[str]:
        return [installed(self.binary), "-p", prompt]

    def gateway_entry(self, place: Place) -> dict[str, Any]:
        return as_dict(as_dict(_read_json(self.config_file(place)).get("mcpServers")).get(GATEWAY_NAME))

    def wait_for_every_server(self, place: Place) -> None:
        """Nothing to do: `gemini -p` discovers every server's tools before its first request."""


CLIENTS: dict[str, ClientCli] = {client.name: client for client in (ClaudeCode(), OpenCode(), Codex(), GeminiCli())}
