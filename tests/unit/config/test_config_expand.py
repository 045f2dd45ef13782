"""`${VAR}` expansion: which fields, defaults, unset variables, literal `$`, and `~` in `cwd`."""

from __future__ import annotations

from collections.abc import Callable

from mcp_gateway.config import GatewayConfig, HttpServer, StdioServer, expand_text

LoadJson = Callable[..., GatewayConfig]


def stdio(config: GatewayConfig, name: str = "s") -> StdioServer:
    spec = config.servers[name].spec
    assert isinstance(spec, StdioServer)
    return spec


def http(config: GatewayConfig, name: str = "s") -> HttpServer:
    spec = config.servers[name].spec
    assert isinstance(spec, HttpServer)
    return spec


def test_variables_expand_in_command_args_env_values_and_cwd(load_json: LoadJson) -> None:
    entry = {
        "command": "${BIN}/server",
        "args": ["--root", "${ROOT}", "plain"],
        "env": {"TOKEN": "${TOKEN}", "MIXED": "a-${ROOT}-b"},
        "cwd": "${ROOT}/work",
    }
    environ = {"BIN": "/opt/bin", "ROOT": "/srv", "TOKEN": "t0k"}

    spec = stdio(load_json({"mcpServers": {"s": entry}}, environ))

    assert spec.command == "/opt/bin/server"
    assert spec.args == ("--root", "/srv", "plain")
    assert spec.env == {"TOKEN": "t0k", "MIXED": "a-/srv-b"}
    assert spec.cwd == "/srv/work"


def test_variables_expand_in_url_and_header_values(load_json: LoadJson) -> None:
    entry = {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}

    spec = http(load_json({"mcpServers": {"s": entry}}, {"HOST": "api.example", "TOKEN": "t0k"}))

    assert spec.url == "https://api.example/mcp"
    assert spec.headers == {"Authorization": "Bearer t0k"}


def test_variables_do_not_expand_anywhere_else(load_json: LoadJson) -> None:
    entry = {
        "command": "c",
        "aliases": ["${NAME}"],
        "description": "${NAME}",
        "env": {"${NAME}": "v"},
    }

    config = load_json({"mcpServers": {"${NAME}": entry}, "settings": {}}, {"NAME": "expanded"})

    spec = stdio(config, "${NAME}")
    assert spec.aliases == ("${NAME}",)
    assert spec.description == "${NAME}"
    assert spec.env == {"${NAME}": "v"}


def test_bearer_token_env_names_a_variable_and_is_not_expanded(load_json: LoadJson) -> None:
    entry = {"type": "http", "url": "https://x.example", "bearerTokenEnv": "${TOKEN_VAR}"}

    spec = http(load_json({"mcpServers": {"s": entry}}, {"TOKEN_VAR": "x"}))

    assert spec.bearer_token_env == "${TOKEN_VAR}"


def test_default_is_used_when_the_variable_is_unset_or_empty() -> None:
    assert expand_text("${PORT:-8080}", {}) == ("8080", [])
    assert expand_text("${PORT:-8080}", {"PORT": ""}) == ("8080", [])
    assert expand_text("${PORT:-8080}", {"PORT": "9"}) == ("9", [])
    assert expand_text("${EMPTY:-}", {}) == ("", [])


def test_default_from_the_config_needs_no_warning(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"s": {"command": "c", "args": ["--port", "${PORT:-8080}"]}}})

    assert stdio(config).args == ("--port", "8080")
    assert config.diagnostics == ()


def test_unset_variable_expands_to_empty_and_warns_naming_the_variable_and_the_server(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"github": {"command": "c", "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}})

    assert stdio(config, "github").env == {"GITHUB_TOKEN": ""}
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "warning"
    assert diagnostic.json_path == "mcpServers.github.env.GITHUB_TOKEN"
    assert diagnostic.message == (
        "environment variable 'GITHUB_TOKEN' is not set, so server 'github' gets an empty value here"
    )
    assert diagnostic.suggestion is not None
    assert "${GITHUB_TOKEN:-default}" in diagnostic.suggestion


def test_one_unset_variable_used_twice_in_a_server_warns_once(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"s": {"command": "run${X}", "args": ["${X}", "${X}"]}}})

    assert [d.json_path for d in config.diagnostics] == ["mcpServers.s.command"]


def test_unset_variable_in_a_disabled_server_is_not_reported(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"s": {"command": "c", "env": {"T": "${T}"}, "disabled": True}}})

    assert config.server_names() == ["s"]
    assert config.diagnostics == ()


def test_set_variable_values_never_appear_in_diagnostics(load_json: LoadJson) -> None:
    entry: dict[str, object] = {"command": "c", "env": {"A": "${SECRET}", "B": "${MISSING}"}, "agrs": []}

    config = load_json({"mcpServers": {"s": entry}}, {"SECRET": "hunter2"})

    assert len(config.diagnostics) == 2
    assert all("hunter2" not in str(d) for d in config.diagnostics)


def test_other_dollar_text_stays_literal() -> None:
    environ = {"HOME": "/home/u", "X": "x"}

    assert expand_text("$$", environ) == ("$$", [])
    assert expand_text("$HOME", environ) == ("$HOME", [])
    assert expand_text("${not a name}", environ) == ("${not a name}", [])
    assert expand_text("${X", environ) == ("${X", [])
    assert expand_text("cost: $5 ${X}", environ) == ("cost: $5 x", [])


def test_cwd_starting_with_a_tilde_expands_to_the_home_directory(load_json: LoadJson) -> None:
    config = load_json(
        {"mcpServers": {"a": {"command": "c", "cwd": "~/projects"}, "b": {"command": "c", "cwd": "~"}}},
        {"HOME": "/home/u"},
    )

    assert stdio(config, "a").cwd == "/home/u/projects"
    assert stdio(config, "b").cwd == "/home/u"


def test_tilde_is_expanded_only_in_cwd(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"s": {"command": "~/bin/c", "args": ["~/x"]}}}, {"HOME": "/home/u"})

    assert stdio(config).command == "~/bin/c"
    assert stdio(config).args == ("~/x",)
