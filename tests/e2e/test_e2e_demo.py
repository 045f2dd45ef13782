"""`mcp-gateway demo` as a newcomer reads it: the real command, its whole output.

Lines fit in 100 columns and are broken between words; a tool's description is whole or shortened at a word
boundary; the message that shows the model fixing a mistake is printed whole (the one the gateway really
sends); token counts are exact with tiktoken and, without it, say they are estimates and how to get exact ones.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import anyio
import mcp_types as types
import psutil
import pytest
from e2e_gateway import SESSION_SECONDS, gateway_session, run_cli_async
from mcp import Client, StdioServerParameters
from workspaces import write_workspace

from mcp_gateway.cli.demo import WIDTH
from mcp_gateway.tokens import EXACT_COUNTS_INSTALL

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DEMO_SERVERS = {"notes": "mcp_gateway.demo.notes_server", "toolbox": "mcp_gateway.demo.toolbox_server"}
MISTAKE = {"value": "thirty", "from_unit": "C"}
"""The arguments of the demo's mistake: a string for a number, and a required unit left out."""
HIT_LINE = re.compile(r"^  (\w+\.\w+)  \[(?:high|medium|low)\]$")
ELLIPSIS = " …"


def demo_server(module: str, notes_dir: Path) -> dict[str, object]:
    return {"command": sys.executable, "args": ["-m", module], "env": {"DEMO_NOTES_DIR": str(notes_dir)}}


async def real_descriptions(notes_dir: Path) -> dict[str, str]:
    """Every demo tool's description, as its server lists it (asked directly, without the gateway)."""
    descriptions: dict[str, str] = {}
    for server, module in DEMO_SERVERS.items():
        params = StdioServerParameters(
            command=sys.executable, args=["-m", module], env={"DEMO_NOTES_DIR": str(notes_dir)}
        )
        with anyio.fail_after(SESSION_SECONDS):
            async with Client(params, mode="legacy", cache=None) as client:
                listed = await client.list_tools()
        descriptions.update({f"{server}.{tool.name}": tool.description or "" for tool in listed.tools})
    return descriptions


async def mistake_message(home: Path) -> str:
    """The first line of what the gateway answers the demo's mistaken call with: the message the demo is about."""
    write_workspace(home, {"toolbox": demo_server(DEMO_SERVERS["toolbox"], home)})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            result = await client.call_tool(
                "execute_tool", {"tool": "toolbox.convert_temperature", "arguments": MISTAKE}
            )
    assert result.is_error
    text = "\n".join(item.text for item in result.content if isinstance(item, types.TextContent))
    return text.splitlines()[0]


def processes_naming(path: Path) -> list[str]:
    """The command lines that name `path`: a gateway's or daemon's `--home` under it, or a server's."""
    found: list[str] = []
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or ())
        if str(path) in command:
            found.append(command)
    return found


def words(text: str) -> str:
    return " ".join(text.split())


async def test_the_demo_reads_whole_at_100_columns_shows_the_mistakes_message_whole_and_counts_exactly(
    tmp_path: Path,
) -> None:
    demo_tmp = tmp_path / "demo"
    demo_tmp.mkdir()
    done = await run_cli_async("demo", extra_env={"TMPDIR": str(demo_tmp)})
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert list(demo_tmp.glob("mcp-gateway-demo-*")) == [], "the demo's workspace is gone with it"
    assert processes_naming(demo_tmp) == [], "nothing the demo started outlives it (a shared daemon would)"

    # Every line fits; only the demo workspace's path, one word, may be wider than a line.
    too_wide = [line for line in lines if len(line) > WIDTH and str(demo_tmp) not in line]
    assert too_wide == []
    assert [line for line in lines if line.rstrip().endswith("(")] == []

    descriptions = await real_descriptions(tmp_path)
    shown = {
        match[1]: lines[number + 1].strip() for number, line in enumerate(lines) if (match := HIT_LINE.match(line))
    }
    assert {"toolbox.convert_temperature", "notes.add_note"} <= shown.keys(), done.stdout
    for tool, description in shown.items():
        full = descriptions[tool]
        if description != full:
            kept = description.removesuffix(ELLIPSIS)
            assert description.endswith(ELLIPSIS), (tool, description)
            assert full.startswith(kept + " "), (tool, description)

    assert words(await mistake_message(tmp_path / "mistake")) in words(done.stdout)
    assert "result: 86.0" in done.stdout
    # The test extras install tiktoken: the counts are exact, and nothing is suggested.
    assert len(re.findall(r"[\d,]+ tokens \(cl100k\)$", done.stdout, re.M)) == 2, done.stdout
    assert EXACT_COUNTS_INSTALL not in done.stdout


async def test_without_tiktoken_the_demo_says_its_counts_are_estimates_and_how_to_get_exact_ones(
    tmp_path: Path,
) -> None:
    # A `tiktoken` earlier on the path that fails to import, as it does when the extra is not installed.
    hidden = tmp_path / "without-tiktoken" / "tiktoken"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('tiktoken is not installed (hidden by the test)')\n")
    demo_tmp = tmp_path / "demo"
    demo_tmp.mkdir()
    done = await run_cli_async("demo", extra_env={"TMPDIR": str(demo_tmp), "PYTHONPATH": str(hidden.parent)})
    assert done.returncode == 0, done.stdout + done.stderr
    counts = [line for line in done.stdout.splitlines() if re.search(r"[\d,]+ tokens \(estimated\)$", line)]
    assert len(counts) == 2, done.stdout
    assert any(line.endswith(EXACT_COUNTS_INSTALL) for line in done.stdout.splitlines()), done.stdout
    assert "cl100k" not in done.stdout
