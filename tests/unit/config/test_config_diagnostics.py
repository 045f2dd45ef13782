"""How a diagnostic prints, and how JSON paths and suggestions are built."""

from __future__ import annotations

from pathlib import Path

from mcp_gateway.config import Diagnostic, closest, join_path


def test_diagnostic_prints_file_path_message_and_suggestion_on_one_line() -> None:
    diagnostic = Diagnostic(
        "warning", Path("/h/config.json"), "mcpServers.github.agrs", "unknown field 'agrs'", "did you mean 'args'?"
    )

    assert str(diagnostic) == "/h/config.json: mcpServers.github.agrs: unknown field 'agrs' (did you mean 'args'?)"


def test_diagnostic_without_path_or_suggestion_prints_only_what_it_has() -> None:
    diagnostic = Diagnostic("warning", Path("/h/config.json"), "", "the config file does not exist", None)

    assert str(diagnostic) == "/h/config.json: the config file does not exist"


def test_json_paths_use_dots_for_plain_keys_and_brackets_otherwise() -> None:
    assert join_path("", "mcpServers", "github", "args", 2) == "mcpServers.github.args[2]"
    assert join_path("mcpServers", "acme.github", "env", "A B") == 'mcpServers["acme.github"].env["A B"]'
    assert join_path("mcpServers", "") == 'mcpServers[""]'
    assert join_path("mcpServers", "代码") == "mcpServers.代码"


def test_suggestions_ignore_case_underscores_and_dashes() -> None:
    fields = ["idleTimeout", "inheritEnv", "args"]

    assert closest("IDLE_TIMEOUT", fields) == "idleTimeout"
    assert closest("inherit-env", fields) == "inheritEnv"
    assert closest("agrs", fields) == "args"
    assert closest("completely-unrelated", fields) is None
