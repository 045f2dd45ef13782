"""The MCP Inspector CLI (a client that is not ours) lists and gets prompts and reads resources through the gateway.

Each call is one Inspector process starting `mcp-gateway --home H` over stdio, as `test_e2e_inspector.py` does;
the workspace holds server-everything with a valid cache.json, so listings come from the catalog.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, cast

import pytest
from test_e2e_inspector import inspector
from workspaces import cached_everything

pytestmark = pytest.mark.e2e

DOC = "demo://resource/static/document/architecture.md"


def test_inspector_lists_prompts_and_gets_one_with_its_arguments(tmp_path: Path, everything_cache: Path) -> None:
    home = tmp_path / "home"
    cached_everything(home, everything_cache)
    listed = inspector(home, "--method", "prompts/list")
    got = inspector(
        home, "--method", "prompts/get", "--prompt-name", "everything__args-prompt", "--prompt-args", "city=Oslo"
    )
    names = [prompt["name"] for prompt in cast(list[dict[str, Any]], listed["prompts"])]
    assert names == [
        "everything__simple-prompt",
        "everything__args-prompt",
        "everything__completable-prompt",
        "everything__resource-prompt",
    ]
    messages = cast(list[dict[str, Any]], got["messages"])
    assert messages[0]["content"]["text"] == "What's weather in Oslo?"


def test_inspector_lists_resources_and_templates_and_reads_text_and_a_blob(
    tmp_path: Path, everything_cache: Path
) -> None:
    home = tmp_path / "home"
    cached_everything(home, everything_cache)
    resources = inspector(home, "--method", "resources/list")
    templates = inspector(home, "--method", "resources/templates/list")
    text = inspector(home, "--method", "resources/read", "--uri", DOC)
    blob = inspector(home, "--method", "resources/read", "--uri", "demo://resource/dynamic/blob/3")

    assert DOC in [resource["uri"] for resource in cast(list[dict[str, Any]], resources["resources"])]
    assert [template["uriTemplate"] for template in cast(list[dict[str, Any]], templates["resourceTemplates"])] == [
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
    ]
    text_item = cast(list[dict[str, Any]], text["contents"])[0]
    assert text_item["uri"] == DOC
    assert "architecture" in text_item["text"].lower()
    blob_item = cast(list[dict[str, Any]], blob["contents"])[0]
    assert base64.b64decode(blob_item["blob"]).startswith(b"Resource 3")
