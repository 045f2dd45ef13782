"""Server entries: transport choice, both key spellings, unknown fields, bad values, keys and aliases."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mcp_gateway.config import Diagnostic, GatewayConfig, HttpServer, SseServer, StdioServer

LoadJson = Callable[..., GatewayConfig]


def at(config: GatewayConfig, json_path: str) -> list[Diagnostic]:
    return [d for d in config.diagnostics if d.json_path == json_path]


def servers(entries: object) -> dict[str, object]:
    return {"mcpServers": entries}


def test_servers_load_in_file_order_with_their_specs(load_json: LoadJson) -> None:
    config = load_json(
        servers(
            {
                "zeta": {"command": "z"},
                "alpha": {"type": "sse", "url": "https://a.example/sse"},
                "mid": {"type": "http", "url": "https://m.example/mcp", "disabled": True},
            }
        )
    )

    assert config.server_names() == ["zeta", "alpha", "mid"]
    assert isinstance(config.servers["zeta"].spec, StdioServer)
    assert isinstance(config.servers["alpha"].spec, SseServer)
    assert isinstance(config.servers["mid"].spec, HttpServer)
    assert config.servers["mid"].spec.disabled is True
    assert config.servers["zeta"].name == "zeta"
    assert config.diagnostics == ()


def test_one_bad_server_does_not_disable_another(load_json: LoadJson) -> None:
    config = load_json(servers({"bad": {"command": "b", "args": "--flag"}, "good": {"command": "g"}}))

    assert config.server_names() == ["good"]
    assert config.rejected == {"bad": "'args' must be a list, not a string"}
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "error"
    assert diagnostic.json_path == "mcpServers.bad.args"
    assert diagnostic.message == "'args' must be a list, not a string; the server is not loaded"
    assert diagnostic.suggestion == 'expected a list of strings, e.g. ["-y", "@modelcontextprotocol/server-github"]'


def test_rejected_reason_counts_the_other_problems(load_json: LoadJson) -> None:
    config = load_json(servers({"bad": {"command": "", "lifecycle": "sometimes", "idleTimeout": "x"}}))

    assert config.rejected["bad"] == "'command' is empty (and 2 more problems)"
    assert len(config.errors) == 3


def test_snake_and_camel_server_keys_give_the_same_spec(load_json: LoadJson) -> None:
    camel = {
        "command": "c",
        "inheritEnv": False,
        "idleTimeout": 2,
        "refreshOnStartup": True,
        "includeTools": ["a*"],
        "connectTimeoutMs": 5,
    }
    snake = {
        "command": "c",
        "inherit_env": False,
        "idle_timeout": 2,
        "refresh_on_startup": True,
        "include_tools": ["a*"],
        "connect_timeout_ms": 5,
    }

    from_camel = load_json(servers({"s": camel}))
    from_snake = load_json(servers({"s": snake}))

    assert from_camel.servers["s"].spec == from_snake.servers["s"].spec
    assert from_snake.servers["s"].identity == from_camel.servers["s"].identity
    assert from_snake.diagnostics == ()


@pytest.mark.parametrize("spelling", ["streamable-http", "streamableHttp", "streamable_http", "http", "HTTP"])
def test_transport_alias_with_any_streamable_http_spelling_selects_http(load_json: LoadJson, spelling: str) -> None:
    config = load_json(servers({"s": {"transport": spelling, "url": "https://x.example/mcp"}}))

    assert isinstance(config.servers["s"].spec, HttpServer)
    assert config.diagnostics == ()


def test_type_sse_selects_the_sse_model(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"type": "sse", "url": "https://x.example/sse", "bearer_token_env": "TOKEN"}}))

    spec = config.servers["s"].spec
    assert isinstance(spec, SseServer)
    assert spec.bearer_token_env == "TOKEN"


def test_type_wins_over_a_disagreeing_transport_with_a_warning(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"type": "sse", "transport": "http", "url": "https://x.example/sse"}}))

    assert isinstance(config.servers["s"].spec, SseServer)
    (diagnostic,) = at(config, "mcpServers.s.transport")
    assert diagnostic.severity == "warning"


def test_null_type_counts_as_omitted(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"type": None, "command": "c"}}))

    assert isinstance(config.servers["s"].spec, StdioServer)
    assert config.diagnostics == ()


def test_server_with_only_a_url_is_http_with_a_warning_to_set_the_type(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"url": "https://x.example/mcp"}}))

    assert isinstance(config.servers["s"].spec, HttpServer)
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "warning"
    assert diagnostic.json_path == "mcpServers.s"
    assert diagnostic.suggestion == 'set "type": "http", or "sse" if the server uses the older SSE transport'


def test_server_with_neither_command_nor_url_is_rejected(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"args": ["x"]}}))

    assert "s" in config.rejected
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "error"
    assert "neither 'command' nor 'url'" in diagnostic.message


def test_unknown_transport_is_rejected_with_a_suggestion(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"type": "stdoi", "command": "c"}}))

    assert config.rejected == {"s": "'type' is not a known transport"}
    (diagnostic,) = config.diagnostics
    assert diagnostic.json_path == "mcpServers.s.type"
    assert diagnostic.suggestion == "did you mean 'stdio'?"


def test_explicit_stdio_without_command_is_rejected_saying_what_to_add(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"type": "stdio", "args": []}}))

    (diagnostic,) = config.diagnostics
    assert diagnostic.json_path == "mcpServers.s.command"
    assert diagnostic.message == "required field 'command' is missing; the server is not loaded"
    assert diagnostic.suggestion == 'add "command": "npx"'


def test_url_without_http_scheme_is_rejected(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"type": "http", "url": "mcp.example.com"}}))

    assert config.rejected == {"s": "'url' must start with http:// or https://"}


def test_unknown_server_field_that_means_a_missing_one_keeps_the_server_out_with_a_suggestion(
    load_json: LoadJson,
) -> None:
    config = load_json(servers({"github": {"command": "npx", "agrs": ["-y", "server-github"]}}))

    assert "github" not in config.servers
    (diagnostic,) = config.diagnostics
    assert str(diagnostic).endswith(
        "config.json: mcpServers.github.agrs: unknown field 'agrs' is probably 'args', without which it would not "
        "run as meant; the server is not loaded (rename 'agrs' to 'args')"
    )


def test_unknown_server_field_like_no_field_is_reported_and_ignored(load_json: LoadJson) -> None:
    config = load_json(servers({"github": {"command": "npx", "colour": "blue"}}))

    assert isinstance(config.servers["github"].spec, StdioServer)
    (diagnostic,) = config.diagnostics
    assert str(diagnostic).endswith(
        "config.json: mcpServers.github.colour: unknown field 'colour' is ignored (remove it)"
    )


def test_field_of_another_transport_is_reported_as_not_applying_and_ignored(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"command": "c", "headers": {"X": "secret-value"}}}))

    assert config.server_names() == ["s"]
    (diagnostic,) = config.diagnostics
    assert diagnostic.json_path == "mcpServers.s.headers"
    assert diagnostic.message == "field 'headers' does not apply here and is ignored"
    assert diagnostic.suggestion is not None
    assert '"http" or "sse"' in diagnostic.suggestion


def test_bad_enum_value_suggests_the_closest_choice(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"command": "c", "lifecycle": "keepalive"}}))

    (diagnostic,) = config.diagnostics
    assert diagnostic.json_path == "mcpServers.s.lifecycle"
    assert diagnostic.message.startswith("'lifecycle' must be 'lazy', 'eager' or 'keep-alive'")
    assert diagnostic.suggestion == "did you mean 'keep-alive'?"


def test_unknown_protocol_is_rejected_listing_the_known_ones(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"command": "c", "protocol": "2099-01-01"}}))

    assert "unknown protocol" in config.rejected["s"]
    assert "legacy" in config.rejected["s"]


def test_one_string_alias_is_accepted_as_a_list(load_json: LoadJson) -> None:
    config = load_json(servers({"s": {"command": "c", "aliases": "gh"}}))

    assert config.servers["s"].spec.aliases == ("gh",)


def test_bad_values_never_echo_env_or_header_values(load_json: LoadJson) -> None:
    config = load_json(
        servers(
            {
                "a": {"command": "c", "env": {"TOKEN": ["hunter2-secret"], "PORT": 8080}},
                "b": {"type": "http", "url": "https://x.example", "headers": {"Authorization": 12345678}},
            }
        )
    )

    text = "\n".join(str(d) for d in config.diagnostics) + "\n".join(config.rejected.values())
    assert "hunter2" not in text
    assert "8080" not in text
    assert "12345678" not in text
    (port,) = at(config, "mcpServers.a.env.PORT")
    assert port.message == "'env.PORT' must be a string, not a number; the server is not loaded"
    assert port.suggestion == "write the value in double quotes"


def test_servers_key_is_accepted_as_an_alias_of_mcp_servers(load_json: LoadJson) -> None:
    config = load_json({"servers": {"a": {"command": "a"}}})

    assert config.server_names() == ["a"]
    assert config.diagnostics == ()


def test_mcp_servers_wins_over_servers_with_a_warning(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"a": {"command": "a"}}, "servers": {"b": {"command": "b"}}})

    assert config.server_names() == ["a"]
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "warning"
    assert diagnostic.json_path == "servers"


def test_snake_case_mcp_servers_key_is_accepted(load_json: LoadJson) -> None:
    config = load_json({"mcp_servers": {"a": {"command": "a"}}})

    assert config.server_names() == ["a"]


def test_mcp_servers_that_is_not_an_object_is_an_error_and_nothing_loads(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": [{"command": "a"}]})

    assert config.servers == {}
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "error"
    assert diagnostic.json_path == "mcpServers"


def test_server_entry_that_is_not_an_object_is_rejected(load_json: LoadJson) -> None:
    config = load_json(servers({"a": "npx server", "b": {"command": "b"}}))

    assert config.server_names() == ["b"]
    assert config.rejected == {"a": "a server entry must be an object"}


@pytest.mark.parametrize(
    ("key", "json_path", "fragment"),
    [
        ("", 'mcpServers[""]', "empty"),
        ("a/b", 'mcpServers["a/b"]', "contains '/'"),
        ("x" * 65, f"mcpServers.{'x' * 65}", "65 characters"),
    ],
)
def test_awkward_server_key_is_warned_about_but_still_loaded(
    load_json: LoadJson, key: str, json_path: str, fragment: str
) -> None:
    config = load_json(servers({key: {"command": "c"}}))

    assert config.server_names() == [key]
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "warning"
    assert diagnostic.json_path == json_path
    assert fragment in diagnostic.message


def test_server_keys_with_dots_spaces_and_other_scripts_are_fine(load_json: LoadJson) -> None:
    config = load_json(
        servers({"acme.github": {"command": "c"}, "my server": {"command": "c"}, "代码": {"command": "c"}})
    )

    assert config.server_names() == ["acme.github", "my server", "代码"]
    assert config.diagnostics == ()


def test_diagnostic_paths_quote_server_keys_with_dots(load_json: LoadJson) -> None:
    config = load_json(servers({"acme.github": {"command": "c", "agrs": []}}))

    (diagnostic,) = config.diagnostics
    assert diagnostic.json_path == 'mcpServers["acme.github"].agrs'


def test_alias_that_names_another_server_is_reported(load_json: LoadJson) -> None:
    config = load_json(
        servers(
            {"github": {"command": "g", "aliases": ["gh"]}, "gitlab": {"command": "l", "aliases": ["GitHub", "gh"]}}
        )
    )

    assert config.server_names() == ["github", "gitlab"]
    messages = {d.json_path: d.message for d in config.diagnostics}
    assert messages == {
        "mcpServers.gitlab.aliases[0]": "alias 'GitHub' is the key of server 'github'",
        "mcpServers.gitlab.aliases[1]": "alias 'gh' is also an alias of server 'github'",
    }
