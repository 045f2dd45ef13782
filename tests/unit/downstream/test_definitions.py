"""A server resolved for a session's origin: its fields, its child's environment, its directory, its key."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp_gateway.config import HttpServer, ServerConfig, StdioServer, load_config
from mcp_gateway.downstream.definitions import Definition, child_environment, default_environment, resolve
from mcp_gateway.origin import Origin

DAEMON = {"HOME": "/home/daemon", "PATH": "/daemon/bin", "MARK": "daemon", "DAEMON_ONLY": "1"}
TOKEN = "ghp_SessionToken0123456789abcdef"


def loaded(tmp_path: Path, entry: Mapping[str, Any], environ: Mapping[str, str] = DAEMON) -> ServerConfig:
    """`entry` as the daemon loads it, with its own environment."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"mcpServers": {"s": dict(entry)}}))
    config = load_config(path, environ=environ, create_missing=False)
    assert not config.errors, config.diagnostics
    return config.servers["s"]


def origin(cwd: str = "/work/project", **environ: str) -> Origin:
    return Origin.of({"HOME": "/home/me", "PATH": "/usr/bin", **environ}, cwd, "session-1")


def stdio(definition: Definition) -> StdioServer:
    assert isinstance(definition.server.spec, StdioServer)
    return definition.server.spec


def test_the_own_origin_resolves_the_server_as_loaded_in_its_own_directory(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv", "args": ["${MARK}"], "env": {"A": "${MARK}"}})
    own = Origin.of(DAEMON, "/daemon/cwd")

    definition = resolve(server, own, own=True)

    assert stdio(definition).args == ("daemon",)
    assert stdio(definition).env == {"A": "daemon"}
    assert stdio(definition).cwd == "/daemon/cwd"
    assert definition.secrets == ()  # the mask was built from the loaded config already


def test_a_sessions_variables_expand_its_fields_and_its_environment_is_the_childs(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "${TOOL:-srv}", "args": ["--mark", "${MARK}"], "env": {"A": "${MARK}"}})

    definition = resolve(server, origin(MARK="mine", TOOL="/opt/srv"), own=False)

    spec = stdio(definition)
    assert (spec.command, spec.args, spec.env) == ("/opt/srv", ("--mark", "mine"), {"A": "mine"})
    child = child_environment(spec, definition.environ)
    assert child["MARK"] == "mine"  # inheritEnv (the default): the session's whole environment
    assert child["PATH"] == "/usr/bin"
    assert "DAEMON_ONLY" not in child


def test_without_inherit_env_the_sdks_few_variables_come_from_the_session(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv", "inheritEnv": False, "env": {"A": "x"}})

    definition = resolve(server, origin(MARK="mine"), own=False)

    assert child_environment(stdio(definition), definition.environ) == {
        "HOME": "/home/me",
        "PATH": "/usr/bin",
        "A": "x",
    }


def test_a_shell_function_in_the_environment_is_not_passed_on() -> None:
    assert default_environment({"PATH": "/bin", "SHELL": "() { evil; }", "OTHER": "x"}) == {"PATH": "/bin"}


def test_sessions_share_a_key_exactly_when_they_would_start_the_same_process(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv", "inheritEnv": False, "env": {"A": "${MARK}"}})

    first = resolve(server, origin(MARK="one"), own=False)
    again = resolve(server, origin(MARK="one", UNUSED="x"), own=False)  # not inherited: not the process's
    other_value = resolve(server, origin(MARK="two"), own=False)
    other_project = resolve(server, origin("/work/other", MARK="one"), own=False)

    assert first.digest == again.digest
    assert first.digest != other_value.digest
    assert first.digest != other_project.digest


def test_with_inherit_env_the_whole_environment_is_the_key(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv"})

    assert resolve(server, origin(), own=False).digest != resolve(server, origin(UNUSED="x"), own=False).digest


def test_variables_that_only_name_a_terminal_do_not_separate_sessions(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv"})
    pinned = loaded(tmp_path, {"command": "srv", "env": {"TERM_SESSION_ID": "${TAB}"}})
    tab = {"SHLVL": "2", "OLDPWD": "/tmp"}

    first = resolve(server, origin(TERM_SESSION_ID="w0t0:1", WINDOWID="1", **tab), own=False)
    second = resolve(server, origin(TERM_SESSION_ID="w0t1:2", WINDOWID="2", SHLVL="3", OLDPWD="/work"), own=False)

    assert first.digest == second.digest
    assert child_environment(stdio(first), first.environ)["TERM_SESSION_ID"] == "w0t0:1"  # the starter's own
    assert resolve(pinned, origin(TAB="1"), own=False).digest != resolve(pinned, origin(TAB="2"), own=False).digest


CLAUDE_SESSION = {
    "CLAUDECODE": "1",
    "AI_AGENT": "claude-code_2-1-332_harness",
    "CLAUDE_CODE_ENTRYPOINT": "sdk-cli",
    "CLAUDE_CODE_SESSION_ID": "31088fe1-c729-45f0-b945-cc777aeade5d",
    "CLAUDE_CODE_MESSAGING_SOCKET": "/tmp/cc-socks/31488.sock",
    "CLAUDE_CODE_MESSAGING_TOKEN": "13cddb896ecc4f6a2be26faf128cb6c2",
    "CLAUDE_PROJECT_DIR": "/work/project",
}
"""What Claude Code 2.1.332 put in one session's environment of the servers it started (measured)."""
OPENCODE_SESSION = {"OPENCODE": "1", "AGENT": "1", "OPENCODE_PID": "445"}


def test_what_a_client_says_of_its_session_is_not_inherited_and_does_not_separate_sessions(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv"})
    another = CLAUDE_SESSION | {"CLAUDE_CODE_SESSION_ID": "b9a52377", "CLAUDE_CODE_MESSAGING_TOKEN": "1dbeacfd7d61"}

    first = resolve(server, origin(**CLAUDE_SESSION), own=False)
    second = resolve(server, origin(**another), own=False)
    opencode = resolve(server, origin(**OPENCODE_SESSION), own=False)

    assert first.digest == second.digest == opencode.digest, "sessions of one user, project and definition share"
    child = child_environment(stdio(first), first.environ)
    assert "CLAUDE_CODE_MESSAGING_TOKEN" not in child, "a session's token never reaches a process others use"
    assert not {"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "AI_AGENT", "OPENCODE_PID", "CLAUDE_PROJECT_DIR"} & child.keys()


def test_a_client_session_variable_an_entry_names_is_passed_and_separates_its_sessions(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv", "env": {"SESSION": "${CLAUDE_CODE_SESSION_ID}"}})
    another = CLAUDE_SESSION | {"CLAUDE_CODE_SESSION_ID": "b9a52377"}

    first = resolve(server, origin(**CLAUDE_SESSION), own=False)

    assert child_environment(stdio(first), first.environ)["SESSION"] == CLAUDE_SESSION["CLAUDE_CODE_SESSION_ID"]
    assert first.digest != resolve(server, origin(**another), own=False).digest


def test_a_server_without_a_cwd_runs_in_the_sessions_directory_and_its_own_cwd_wins(tmp_path: Path) -> None:
    plain = loaded(tmp_path, {"command": "srv"})
    placed = loaded(tmp_path, {"command": "srv", "cwd": "~/${PLACE}"})

    assert stdio(resolve(plain, origin("/work/a"), own=False)).cwd == "/work/a"
    assert stdio(resolve(placed, origin("/work/a", PLACE="p"), own=False)).cwd == "/home/me/p"


def test_shared_across_projects_runs_in_home_with_one_key_for_every_project(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv", "shareAcrossProjects": True})

    in_a = resolve(server, origin("/work/a", PWD="/work/a"), own=False)
    in_b = resolve(server, origin("/work/b", PWD="/work/b"), own=False)

    assert stdio(in_a).cwd == stdio(in_b).cwd == "/home/me"
    assert child_environment(stdio(in_a), in_a.environ)["PWD"] == "/home/me"
    assert in_a.digest == in_b.digest


def test_a_remote_servers_headers_and_bearer_token_come_from_the_session_and_are_secrets(tmp_path: Path) -> None:
    server = loaded(
        tmp_path,
        {"url": "https://${HOST:-mcp.example.com}/mcp", "headers": {"X-Team": "${TEAM}"}, "bearerTokenEnv": "MY_TOKEN"},
    )

    mine = resolve(server, origin("/work/a", TEAM="red", MY_TOKEN=TOKEN), own=False)
    theirs = resolve(server, origin("/work/b", TEAM="red", MY_TOKEN=TOKEN + "x"), own=False)
    elsewhere = resolve(server, origin("/work/b", TEAM="red", MY_TOKEN=TOKEN), own=False)

    assert isinstance(mine.server.spec, HttpServer)
    assert (mine.server.spec.url, mine.server.spec.headers) == ("https://mcp.example.com/mcp", {"X-Team": "red"})
    assert TOKEN in mine.secrets
    assert mine.digest != theirs.digest  # another token: another connection
    assert mine.digest == elsewhere.digest  # a remote server has no working directory


def test_the_secrets_a_session_brings_are_those_its_config_names(tmp_path: Path) -> None:
    server = loaded(tmp_path, {"command": "srv", "env": {"API_KEY": "${KEY}", "LEVEL": "${LEVEL}"}})

    definition = resolve(server, origin(KEY="a-session-key-value", LEVEL="verbose"), own=False)

    assert definition.secrets == ("a-session-key-value",)
