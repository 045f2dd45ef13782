"""The names `--client` takes: one table for the command line and the importers, and a near miss's suggestion."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcp_gateway.client_names import ALIASES, CLIENT_NAMES, aliases_of, canonical_client, unknown_client_message
from mcp_gateway.importing import CLIENTS
from mcp_gateway.importing.clients import find_client

IMPORT_SECONDS = 30.0
"""Bound for one interpreter importing the command line (about 0.3 s on an idle machine)."""


def test_the_name_table_is_the_importers_own_client_table_in_its_order() -> None:
    assert tuple(client.name for client in CLIENTS) == CLIENT_NAMES


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_every_alias_finds_its_client_in_any_case(alias: str) -> None:
    found = find_client(alias.upper())
    assert found is not None
    assert found.name == ALIASES[alias]
    assert alias in aliases_of(found.name)


def test_a_canonical_name_stands_for_itself_and_a_stranger_for_nothing() -> None:
    assert [canonical_client(name) for name in CLIENT_NAMES] == list(CLIENT_NAMES)
    assert canonical_client("notepad") is None
    assert find_client("notepad") is None


@pytest.mark.parametrize(
    ("typed", "meant"), [("claud", "claude"), ("opncode", "opencode"), ("windserf", "windsurf"), ("Cursr", "cursor")]
)
def test_a_near_miss_is_told_the_name_it_missed(typed: str, meant: str) -> None:
    message = unknown_client_message(typed)
    assert f"unknown client '{typed}'" in message
    assert f"did you mean '{meant}'?" in message
    assert "mcp-gateway import --help" in message


def test_a_name_near_nothing_is_told_every_name() -> None:
    message = unknown_client_message("notepad")
    assert "did you mean" not in message
    assert all(name in message for name in CLIENT_NAMES)


def test_the_command_line_parses_without_importing_any_importer() -> None:
    # The parser lists the client names in `import --help` and is built on every command's path, serve's too.
    probe = (
        "import sys; from mcp_gateway.cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith('mcp_gateway.importing')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=IMPORT_SECONDS, check=True
    )
    assert done.stdout.strip() == "[]"
