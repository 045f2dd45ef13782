"""Removing `[mcp_servers.<name>]` tables from TOML text line by line, keeping every other byte."""

from __future__ import annotations

import tomllib

from mcp_gateway.importing.clients.codex import blocks, remove_servers, table_text


def test_a_removed_table_takes_its_sub_tables_and_the_comment_above_it() -> None:
    text = (
        'model = "x"\n'
        "\n"
        "# GitHub\n"
        "[mcp_servers.github]\n"
        'command = "npx"\n'
        "\n"
        "[mcp_servers.github.env]\n"
        'A = "1"\n'
        "\n"
        "# stays\n"
        "[mcp_servers.keep]\n"
        'url = "https://x"\n'
    )
    result, position = remove_servers(text, {"github"})
    assert result == 'model = "x"\n\n# stays\n[mcp_servers.keep]\nurl = "https://x"\n'
    assert position == 2


def test_multi_line_arrays_and_strings_that_look_like_headers_are_not_headers() -> None:
    text = '[mcp_servers.a]\nargs = [\n  "--x",\n]\nnote = """\n[not.a.table]\n"""\n[other]\nk = 1\n'
    result, _ = remove_servers(text, {"a"})
    assert result == "[other]\nk = 1\n"
    assert [block.path for block in blocks(text.splitlines(keepends=True))] == [("mcp_servers", "a"), ("other",)]


def test_dotted_and_inline_definitions_of_a_server_are_removed_statement_by_statement() -> None:
    text = 'mcp_servers.a.command = "npx"\ntitle = "kept"\n[mcp_servers]\nb = { command = "uvx" }\nc.command = "keep"\n'
    result, position = remove_servers(text, {"a", "b"})
    assert result == 'title = "kept"\n[mcp_servers]\nc.command = "keep"\n'
    assert position is None
    assert tomllib.loads(result) == {"title": "kept", "mcp_servers": {"c": {"command": "keep"}}}


def test_quoted_server_names_are_matched() -> None:
    text = '[mcp_servers."my server"]\ncommand = "x"\n[mcp_servers.other]\ncommand = "y"\n'
    result, _ = remove_servers(text, {"my server"})
    assert result == '[mcp_servers.other]\ncommand = "y"\n'


def test_table_text_writes_values_toml_reads_back() -> None:
    values = {
        "command": 'C:\\uv\\uvx.exe "quoted"',
        "args": ["--from", "mcp-meta-gateway"],
        "env": {"MCP_GATEWAY_HOME": "/h", "weird key": "v"},
        "startup_timeout_sec": 60,
        "enabled": True,
    }
    text = table_text(("mcp_servers", "mcp-gateway"), values, "\n")
    assert text.startswith("[mcp_servers.mcp-gateway]\n")
    assert tomllib.loads(text) == {"mcp_servers": {"mcp-gateway": values}}
