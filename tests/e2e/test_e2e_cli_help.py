"""What a person meets at the shell first: each command's help, a mistyped client, a terminal, a reader that leaves.

Every test runs the real `mcp-gateway` program. The commands are read from its own top-level help, so a
command added without a description, documented positionals or examples fails here. A terminal is a
real pseudo-terminal on the gateway's stdin; a reader that leaves is a real pipe whose read end is closed
before the command writes, so the write fails every time, not only when a race is lost.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import subprocess
from collections.abc import Mapping
from pathlib import Path

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from e2e_gateway import (
    CLI_SECONDS,
    MAX_LINE_BYTES,
    PROCESS_GONE_SECONDS,
    SESSION_SECONDS,
    client_environment,
    gateway_command,
    gateway_program,
    run_cli_async,
    wait_for,
)
from workspaces import fake_server, write_workspace

from mcp_gateway.cli.main import build_parser
from mcp_gateway.client_names import ALIASES
from mcp_gateway.importing import CLIENTS

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MIN_DESCRIPTION_WORDS = 20
"""A description says what the command does and prints; the shortest one written is about 30 words."""
READER_LEFT_STATUS = 141
"""What a shell reports for a command SIGPIPE ended: the status a command whose reader left exits with."""
SECTION = re.compile(r"^(positional arguments|options|examples|clients \(.*\)):$", re.MULTILINE)


def help_sections(text: str) -> dict[str, str]:
    """A help text cut at its headings; the usage and the description come first, as "usage" and "description"."""
    usage, _, rest = text.partition("\n\n")
    headings = list(SECTION.finditer(rest))
    sections = {"usage": " ".join(usage.split()), "description": rest[: headings[0].start()] if headings else rest}
    for heading, following in zip(headings, [*headings[1:], None], strict=True):
        end = following.start() if following is not None else len(rest)
        sections[heading.group(1)] = rest[heading.end() : end]
    return sections


def listed_commands(section: str) -> list[str]:
    """The commands a "positional arguments" section lists, in its order."""
    return re.findall(r"^    (\w+)\s", section, re.MULTILINE)


def positionals(usage: str, command: list[str]) -> list[str]:
    """The positional arguments the usage line of `command` names (options and their values removed)."""
    words = re.sub(r"\[-[^\[\]]*(\[[^\]]*\])?[^\]]*\]", " ", usage).split()[2 + len(command) :]
    return [word.strip("[]") for word in words if word.strip("[]") not in ("...", "")]


def entry_text(section: str, name: str) -> str:
    """The help text of one entry of a section: on its own line, and the more indented lines below it."""
    lines = section.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"^\s+{re.escape(name)}(\s|$)", line)), None)
    if start is None:
        return ""
    indent = len(lines[start]) - len(lines[start].lstrip())
    text = [lines[start].strip()[len(name) :]]
    for line in lines[start + 1 :]:
        if not line.strip() or len(line) - len(line.lstrip()) <= indent:
            break
        text.append(line)
    return " ".join(" ".join(text).split())


def example_lines(section: str) -> list[str]:
    return [line.strip().split("  #", 1)[0].strip() for line in section.splitlines() if line.strip()]


def help_problems(command: list[str], text: str) -> list[str]:
    """What the help of one command lacks, for a person who reads it."""
    sections = help_sections(text)
    problems: list[str] = []
    if len(sections["description"].split()) < MIN_DESCRIPTION_WORDS:
        problems.append(f"a description of under {MIN_DESCRIPTION_WORDS} words: {sections['description']!r}")
    for name in positionals(sections["usage"], command):
        if name in ("COMMAND", "SUBCOMMAND"):
            continue
        if not entry_text(sections.get("positional arguments", ""), name):
            problems.append(f"the positional {name} is not described")
    if "--json" in sections.get("options", "") and "print" not in entry_text(sections["options"], "--json"):
        problems.append("--json does not say what it prints")
    examples = example_lines(sections.get("examples", ""))
    if not examples or not all(line.startswith("mcp-gateway") for line in examples):
        problems.append(f"no examples, or one that is not an mcp-gateway command: {examples}")
    for example in examples:
        if len(example.split()) > 1 and command[0] not in example.split():
            problems.append(f"the example {example!r} does not run {command[0]}")
        try:
            build_parser().parse_args(shlex.split(example)[1:])
        except SystemExit:
            problems.append(f"the example {example!r} does not parse")
    return problems


async def test_every_command_has_a_description_documented_arguments_and_examples() -> None:
    top = await run_cli_async("--help")
    assert top.returncode == 0, top.stderr
    commands = [[name] for name in listed_commands(help_sections(top.stdout)["positional arguments"])]
    config = await run_cli_async("config", "--help")
    commands += [["config", name] for name in listed_commands(help_sections(config.stdout)["positional arguments"])]
    assert len(commands) >= 12, commands

    texts: dict[str, str] = {}

    async def read_help(command: list[str]) -> None:
        done = await run_cli_async(*command, "--help")
        assert done.returncode == 0, done.stderr
        texts[" ".join(command)] = done.stdout

    async with anyio.create_task_group() as group:
        for command in commands:
            group.start_soon(read_help, command)
    problems = {" ".join(c): found for c in commands if (found := help_problems(c, texts[" ".join(c)]))}
    assert problems == {}


async def test_the_top_level_help_starts_with_the_demo_and_import_and_shows_how() -> None:
    done = await run_cli_async("--help")
    sections = help_sections(done.stdout)
    assert listed_commands(sections["positional arguments"])[:2] == ["demo", "import"]
    examples = example_lines(sections["examples"])
    assert examples[0] == "mcp-gateway demo"
    assert any(line.startswith("mcp-gateway import --client ") for line in examples), examples
    assert "mcp-gateway COMMAND --help" in done.stdout


async def test_serve_help_says_what_serving_is_and_what_a_person_runs_instead() -> None:
    done = await run_cli_async("serve", "--help")
    description = " ".join(help_sections(done.stdout)["description"].split())
    assert "MCP server" in description
    assert "AI client starts" in description
    assert "`mcp-gateway demo`" in description


async def test_import_help_lists_every_client_name_and_alias() -> None:
    done = await run_cli_async("import", "--help")
    table = next(text for heading, text in help_sections(done.stdout).items() if heading.startswith("clients"))
    rows = {row.split()[0]: row.split(maxsplit=1)[1:] for row in table.strip().splitlines()}
    assert list(rows) == [client.name for client in CLIENTS]
    listed_aliases = {alias.strip(): name for name, rest in rows.items() for alias in "".join(rest).split(",") if rest}
    assert listed_aliases == ALIASES


@pytest.mark.parametrize("command", [["import"], ["import", "--restore"]], ids=["import", "restore"])
async def test_a_mistyped_client_is_told_the_name_it_meant_and_nothing_is_written(
    tmp_path: Path, command: list[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = await run_cli_async(
        *command, "--client", "claud", "--dry-run", home=tmp_path / "gateway", extra_env={"HOME": str(home)}
    )
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert "unknown client 'claud'" in line
    assert "did you mean 'claude'?" in line
    assert not (tmp_path / "gateway").exists()
    assert list(home.iterdir()) == []


def daemons_of(home: Path) -> list[int]:
    """The gateway daemons serving `home`, shared or private (by their command line)."""
    found = subprocess.run(["pgrep", "-f", "--", f"--home {home} daemon"], check=False, capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


async def test_in_a_terminal_it_says_what_it_is_in_one_line_and_then_serves(tmp_path: Path) -> None:
    write_workspace(tmp_path, {})
    controller, terminal = pty.openpty()
    process = await anyio.open_process(
        gateway_command(tmp_path),
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=client_environment(),
    )
    os.close(terminal)
    try:
        assert process.stdout is not None
        assert process.stderr is not None
        stderr = BufferedByteReceiveStream(process.stderr)
        with anyio.fail_after(SESSION_SECONDS):
            said = (await stderr.receive_until(b"\n", MAX_LINE_BYTES)).decode()
            initialize = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "tty", "version": "1"},
                },
            }
            os.write(controller, json.dumps(initialize).encode() + b"\n")
            answer = json.loads(await BufferedByteReceiveStream(process.stdout).receive_until(b"\n", MAX_LINE_BYTES))
            os.write(controller, b"\x04")  # Ctrl-D, as the line says: the end of stdin
        with anyio.fail_after(PROCESS_GONE_SECONDS):
            assert await process.wait() == 0
        with anyio.fail_after(PROCESS_GONE_SECONDS):
            rest = b"".join([chunk async for chunk in stderr])
        # A terminal's session is its own: no daemon stays behind it.
        await wait_for(lambda: daemons_of(tmp_path) == [], PROCESS_GONE_SECONDS)
    finally:
        os.close(controller)
        if process.returncode is None:
            process.kill()
        with anyio.move_on_after(PROCESS_GONE_SECONDS):
            await process.aclose()
    assert "MCP server" in said
    assert "waiting for an AI client" in said
    assert "`mcp-gateway demo`" in said
    assert "`mcp-gateway --help`" in said
    assert answer["result"]["serverInfo"]["name"] == "mcp-gateway"
    assert rest == b"", "one line, then nothing but the server"


async def test_a_client_s_pipe_gets_no_terminal_line(tmp_path: Path) -> None:
    write_workspace(tmp_path, {})
    with anyio.fail_after(CLI_SECONDS):
        done = await anyio.run_process(gateway_command(tmp_path), input=b"", env=client_environment(), check=False)
    assert done.returncode == 0
    assert done.stderr == b""


async def run_into_a_closed_pipe(command: list[str], *, unbuffered: bool) -> subprocess.CompletedProcess[bytes]:
    """`command` with stdout a pipe whose reader has left already, and Python's stdout buffered or not."""
    environment: Mapping[str, str] = {
        key: value for key, value in client_environment().items() if key != "PYTHONUNBUFFERED"
    } | ({"PYTHONUNBUFFERED": "1"} if unbuffered else {})
    reading, writing = os.pipe()
    os.close(reading)
    try:
        with anyio.fail_after(CLI_SECONDS):
            return await anyio.run_process(command, stdout=writing, env=environment, check=False)
    finally:
        os.close(writing)


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("arguments", [["--help"], ["import", "--help"], ["--version"]], ids=" ".join)
async def test_help_into_a_closed_pipe_ends_quietly_with_argparse_s_status(
    arguments: list[str], unbuffered: bool
) -> None:
    done = await run_into_a_closed_pipe([*gateway_program(), *arguments], unbuffered=unbuffered)
    assert done.stderr == b""
    assert done.returncode == 0


@pytest.mark.parametrize(
    ("arguments", "unbuffered"),
    [
        (["status"], False),
        (["status"], True),
        (["search", "echo"], False),
        (["list", "fake"], True),
        (["call", "fake.echo", "--args", '{"message": "hi"}'], False),
        (["call", "fake.echo", "--args", '{"message": "hi"}'], True),
    ],
    ids=[
        "status-buffered",
        "status-unbuffered",
        "search-buffered",
        "list-unbuffered",
        "call-buffered",
        "call-unbuffered",
    ],
)
async def test_a_command_whose_reader_left_ends_without_a_traceback_and_stops_its_servers(
    tmp_path: Path, arguments: list[str], unbuffered: bool
) -> None:
    exits = tmp_path / "exits.log"
    write_workspace(tmp_path, {"fake": fake_server(exit_log=str(exits))})
    done = await run_into_a_closed_pipe([*gateway_command(tmp_path), *arguments], unbuffered=unbuffered)
    assert b"Traceback" not in done.stderr
    assert b"BrokenPipeError" not in done.stderr
    assert done.returncode == READER_LEFT_STATUS, done.stderr
    if arguments[0] != "status":  # the others start the server (to list its tools, or to call one)
        assert exits.read_text().split()[1:] == ["stdin-eof"], "stopped as the gateway stops it, once"
