"""Pass-through, end to end: what the fake server returns reaches the client as it was sent.

The same calls are made on the fake server directly and through the real gateway process; results must
match (content items, structuredContent, isError), in both protocol eras towards the gateway's client.
Each hop stamps its own serverInfo into a 2026-era result's `_meta`; only those stamps are set aside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_gateway import SESSION_SECONDS, client_environment, gateway_session, payload_of, text_of
from mcp import Client, StdioServerParameters
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MODES = ["legacy", "auto"]
CASES: list[tuple[str, dict[str, Any]]] = [
    ("structured", {"city": "Oslo"}),
    ("fail", {"message": "the fixture failed on purpose"}),
    ("image", {}),
    ("echo", {"message": "héllo, 世界"}),
]


def comparable(result: types.CallToolResult) -> dict[str, Any]:
    """The result without the envelope stamps each hop adds for its own client (serverInfo)."""
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    dumped.pop("resultType", None)
    stamps: dict[str, Any] = dumped.pop("_meta", None) or {}
    meta = {key: value for key, value in stamps.items() if not key.startswith("io.modelcontextprotocol/")}
    if meta:
        dumped["_meta"] = meta
    return dumped


@pytest.mark.parametrize("mode", MODES)
async def test_execute_tool_results_equal_direct_calls_for_structured_error_image_and_text_results(
    tmp_path: Path, mode: str
) -> None:
    entry = fake_server()
    write_workspace(tmp_path, {"fake": entry})
    direct_server = StdioServerParameters(
        command=entry["command"], args=entry["args"], env=client_environment() | entry["env"]
    )
    with anyio.fail_after(SESSION_SECONDS):
        async with Client(direct_server, mode="legacy", cache=None) as direct:
            expected = [await direct.call_tool(tool, arguments) for tool, arguments in CASES]
        async with gateway_session(tmp_path, mode=mode) as client:
            results = [
                await client.call_tool("execute_tool", {"tool": f"fake.{tool}", "arguments": arguments})
                for tool, arguments in CASES
            ]

    for (tool, _), result, want in zip(CASES, results, expected, strict=True):
        assert comparable(result) == comparable(want), tool
    structured, failed, image, echoed = results
    assert structured.structured_content == {"city": "Oslo", "temperature": 21.5}
    assert (failed.is_error, text_of(failed)) == (True, "the fixture failed on purpose")
    assert isinstance(image.content[0], types.ImageContent)
    assert image.content[0].mime_type == "image/png"
    assert text_of(echoed) == "héllo, 世界"


async def test_describe_tool_shows_the_downstream_annotations_and_meta_of_a_tool(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"fake": fake_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            described = payload_of(await client.call_tool("describe_tool", {"tool": "fake.echo"}))
    assert described["tool"] == "fake.echo"
    assert described["annotations"] == {"readOnlyHint": True}
    assert described["_meta"] == {"fake/origin": "fixture"}
    assert described["inputSchema"]["required"] == ["message"]


@pytest.mark.parametrize("mode", MODES)
async def test_execute_tool_forwards_downstream_progress_to_the_client_in_order(tmp_path: Path, mode: str) -> None:
    write_workspace(tmp_path, {"fake": fake_server()})
    received: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        received.append((progress, total, message))

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path, mode=mode) as client:
            result = await client.call_tool(
                "execute_tool",
                {"tool": "fake.progress", "arguments": {"steps": 4, "delay": 0.02}},
                progress_callback=on_progress,
            )
    assert (result.is_error, text_of(result)) == (False, "done 4")
    assert received == [(step, 4, f"step {step}") for step in range(1, 5)]
