"""Each client's variable syntax becomes the gateway's `${VAR}`; what cannot be translated skips the server."""

from __future__ import annotations

import pytest

from mcp_gateway.importing.clients.model import Skip
from mcp_gateway.importing.clients.variables import Context, Syntax, referenced_variables, translate, translate_entry

USER = Context(home="/home/me", project=None, windows=False)
PROJECT = Context(home="/home/me", project="/home/me/src/shop", windows=False)


@pytest.mark.parametrize(
    ("syntax", "written", "translated"),
    [
        (Syntax.EDITOR, "Bearer ${env:API_TOKEN}", "Bearer ${API_TOKEN}"),
        (Syntax.EDITOR, "${userHome}/bin/tool", "/home/me/bin/tool"),
        (Syntax.EDITOR, "a${pathSeparator}b", "a/b"),
        (Syntax.EDITOR, "${HOME_DIR:-/tmp}", "${HOME_DIR:-/tmp}"),
        (Syntax.OPENCODE, "{env:GITHUB_TOKEN}", "${GITHUB_TOKEN}"),
        (Syntax.OPENCODE, "Bearer {env:A}-{env:B}", "Bearer ${A}-${B}"),
        (Syntax.SHELL, "$GITHUB_TOKEN", "${GITHUB_TOKEN}"),
        (Syntax.SHELL, "Bearer ${API_TOKEN}", "Bearer ${API_TOKEN}"),
        (Syntax.SHELL, "${PORT:-8080}", "${PORT:-8080}"),
        (Syntax.SHELL, "costs $5 and %PATH%", "costs $5 and %PATH%"),
        (Syntax.GATEWAY, "${A} $B {env:C}", "${A} $B {env:C}"),
        (Syntax.NONE, "${A}", "${A}"),
    ],
)
def test_references_are_rewritten_in_the_gateway_syntax(syntax: Syntax, written: str, translated: str) -> None:
    assert translate(written, syntax, USER) == translated


def test_percent_references_are_gemini_variables_on_windows_only() -> None:
    windows = Context(home="C:\\Users\\me", project=None, windows=True)
    assert translate("%APPDATA%\\x", Syntax.SHELL, windows) == "${APPDATA}\\x"
    assert translate("a${pathSeparator}b", Syntax.EDITOR, windows) == "a\\b"


def test_workspace_folder_is_the_project_in_a_project_file_and_untranslatable_in_a_user_file() -> None:
    assert translate("${workspaceFolder}/src", Syntax.EDITOR, PROJECT) == "/home/me/src/shop/src"
    assert translate("${workspaceFolderBasename}", Syntax.EDITOR, PROJECT) == "shop"
    with pytest.raises(Skip, match="whatever folder is open"):
        translate("${workspaceFolder}/src", Syntax.EDITOR, USER)


@pytest.mark.parametrize(
    ("syntax", "written", "reason"),
    [
        (Syntax.EDITOR, "${input:api-key}", "secret storage"),
        (Syntax.EDITOR, "${file:/run/token}", "cannot resolve"),
        (Syntax.OPENCODE, "{file:~/.token}", "cannot read"),
    ],
)
def test_references_without_a_gateway_equivalent_skip_the_server(syntax: Syntax, written: str, reason: str) -> None:
    with pytest.raises(Skip, match=reason):
        translate(written, syntax, USER)


def test_translate_entry_touches_only_the_fields_the_gateway_expands() -> None:
    entry: dict[str, object] = {
        "command": "{env:BIN}",
        "args": ["--key", "{env:KEY}"],
        "env": {"TOKEN": "{env:TOKEN}"},
        "headers": {"X": "{env:X}"},
        "url": "https://{env:HOST}/mcp",
        "description": "{env:NOT_EXPANDED}",
    }
    assert translate_entry(entry, Syntax.OPENCODE, USER) == {
        "command": "${BIN}",
        "args": ["--key", "${KEY}"],
        "env": {"TOKEN": "${TOKEN}"},
        "headers": {"X": "${X}"},
        "url": "https://${HOST}/mcp",
        "description": "{env:NOT_EXPANDED}",
    }


def test_referenced_variables_lists_each_name_once_in_order_of_use() -> None:
    entry: dict[str, object] = {
        "command": "npx",
        "args": ["${B}"],
        "env": {"A": "${A:-x}", "B": "${B}"},
        "headers": {"Authorization": "Bearer ${C}"},
    }
    assert referenced_variables(entry) == ["B", "A", "C"]
