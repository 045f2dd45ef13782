"""Argument parsing and dispatch for `mcp-gateway`: each command's options here, its words in `help_text`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from mcp_gateway import __version__
from mcp_gateway.cli import help_text
from mcp_gateway.client_names import canonical_client, unknown_client_message
from mcp_gateway.errors import GatewayError, ImportUsageError, ToolCallError
from mcp_gateway.front.launch import ServeRequest, serve_session
from mcp_gateway.terminal import guard_terminals

Option = tuple[tuple[str, ...], dict[str, Any]]


def _option(name: str, help: str, **settings: Any) -> Option:
    return (name,), {**settings, "help": help}


def _flag(name: str, help: str) -> Option:
    return (name,), {"action": "store_true", "help": help}


BARE_TOOL = "server.tool, or a tool name only one server has"
TOOLS_SERVER = "the tool's server, for a bare tool name"
OPTIONS: dict[str, tuple[Option, ...]] = {
    "demo": (_flag("--keep", "keep the demo workspace and print where it is"),),
    "import": (
        _option("--client", "the client to import from: a name or alias listed below (default: detect)"),
        _option("--from", "read this file instead of the client's own", dest="source", metavar="PATH"),
        _option("--scope", "which of the client's configs", choices=("user", "project", "local")),
        _option("--project", "the project for project/local scopes (default: cwd)", metavar="DIR"),
        _flag("--dry-run", "print what would happen; write nothing"),
        _flag("--write-client-config", "replace the imported servers in the client by the gateway"),
        _option(
            "--launcher",
            "how the client starts the gateway: path (this installation's script: a uv tool's, a venv's), uvx "
            "(uvx --from mcp-meta-gateway, from the package index), auto (path, but uvx for a gateway installed from "
            "the index other than as a uv tool, and uvx --from the same source for one run by uvx; the default)",
            choices=("auto", "uvx", "path"),  # importing.LAUNCHERS, spelt out: parsing imports no importer
            default="auto",
        ),
        _flag("--replace", "a server the gateway already has with another definition takes this client's"),
        _flag(
            "--no-probe",
            "send the client's remote servers no request: without it, import (a dry run too) sends each remote "
            "server that has no credentials in the client one request without them, to see whether it needs a "
            "sign-in (one that does is imported marked oauth, for `mcp-gateway login`), and prints which urls it "
            "contacted; with it, that is left unknown",
        ),
        _option(
            "--restore",
            "undo import's writes to a client file (with --client): alone, one step back (run it again to go "
            "one further); 'original', the file as it was before the gateway first changed it; a path, that kept "
            "version. Each restore keeps the version it replaces, so it can be undone too",
            nargs="?",
            const="",
            metavar="BACKUP",
        ),
        _flag(
            "--backups",
            "list the kept versions of the client's file (with --client; every client's without): when, which "
            "write made each, size, which is the original and which --restore puts back next",
        ),
        _flag("--prune", "with --backups: first remove every kept version but the original and the newest two"),
    ),
    "search": (
        _option("query", "what you want to do, in words; quote several words"),
        _option(
            "--or",
            "another phrasing of the same need, ranked too and fused with the query (up to 4, as "
            "search_tools' alternatives)",
            dest="alternatives",
            action="append",
            default=[],
            metavar="WORDS",
        ),
        _option("--server", "only this server (name or alias)"),
        _option("--limit", "number of results (1-20)", type=int),
        _flag(
            "--json",
            "print what search_tools returns to the model: results (tool, confidence, why, description, "
            "inputSchema) and notes",
        ),
    ),
    "list": (
        _option("server", "the server's name or one of its aliases (default: every server at a glance)", nargs="?"),
        _flag(
            "--json",
            "print what list_tools returns to the model: server, total, offset, tools (name, description), "
            "serverInstructions",
        ),
    ),
    "describe": (_option("tool", BARE_TOOL), _option("--server", TOOLS_SERVER)),
    "call": (
        _option("tool", BARE_TOOL),
        _option("--args", "arguments as a JSON object, e.g. '{\"a\": 2}'", default="{}"),
        _option("--server", TOOLS_SERVER),
        _flag("--json", "print the CallToolResult as the server sent it (content, structuredContent, isError)"),
    ),
    "status": (
        _flag(
            "--json",
            "print it as one JSON object: config, servers (cache, tools, running, lastError, …), rejected, "
            "backgroundProblems, workspaceProblems, cacheNotice, configProblem",
        ),
    ),
    "review": (
        _flag(
            "--json",
            "print it as JSON: awaiting, rejected (server, kind, name, state, reason, diff), firstSight, notice",
        ),
    ),
    "trust": (
        _option("server", "the server's name or one of its aliases"),
        _option("tools", "only these (default: all that awaits review)", nargs="*", metavar="TOOL"),
        _flag("--reject", "keep it out of the model's reach and stop asking"),
        _flag("--json", "print the decision as JSON: server, names, rejected"),
    ),
    "refresh": (_option("server", "only this server, by name or alias (default: every enabled one)", nargs="?"),),
    "doctor": (
        _option("servers", "only these servers (default: all)", nargs="*", metavar="SERVER"),
        _flag(
            "--json",
            "print the report as JSON: tokenizer, servers (listed, seconds, toolCount, schemaTokens, problem, "
            "…), summary (directTokens, gatewayTokens, …)",
        ),
    ),
    "login": (
        _option("server", "the remote server's name or one of its aliases"),
        _flag("--no-browser", "print the sign-in URL only; do not try to open a browser"),
    ),
    "logout": (_option("server", "the server's name, as when it signed in"),),
    "audit": (
        _option("--server", "only calls of this server (its name in config.json)"),
        _option("--tool", "only calls of this tool: a glob over server.tool or the tool's name"),
        _option("--outcome", "only calls that ended so: ok, tool-error, gateway-error, refused or cancelled"),
        _option("--since", "only calls since then: a time ago (10m, 2h, 1d) or an ISO time"),
        _option("--last", "the last N matching calls (default 20; 0: all)", type=int, metavar="N"),
    ),
    "enable": (_option("server", "the server's name in config.json, or one of its aliases"),),
    "help": (
        _option("topic", "a command, and its subcommand (default: the program's help)", nargs="*", metavar="COMMAND"),
    ),
    "serve": (
        _flag("--standalone", "serve through a gateway of this session's own, not the workspace's shared daemon"),
        # Also after the command, as the front reads it (`front.launch.serve_request`); not overriding the global one.
        _option("--home", argparse.SUPPRESS, default=argparse.SUPPRESS),
    ),
}
"""Each command's arguments, in the order its help lists them (`config`'s subcommands' by their own names)."""
OPTIONS["disable"] = OPTIONS["enable"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-gateway",
        description=help_text.PROGRAM.description,
        epilog=f"{help_text.examples_text(help_text.PROGRAM.examples)}\n\n{help_text.PROGRAM.notes}",
        formatter_class=help_text.Paragraphs,
    )
    parser.add_argument("--version", action="version", version=f"mcp-gateway {__version__}")
    parser.add_argument("--home", help="workspace directory (default: $MCP_GATEWAY_HOME, else the user config dir)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, texts in help_text.COMMANDS.items():
        command = commands.add_parser(name, **texts.parser_texts())
        _add(command, OPTIONS.get(name, ()))
        if name == "audit":
            output = command.add_mutually_exclusive_group()
            output.add_argument(
                "--format",
                choices=("jsonl", "csv"),
                help="export every matching call (or the --last N) as JSONL or CSV",
            )
            output.add_argument(
                "--json", action="store_true", help="print the calls as one JSON object: file, calls, shown"
            )
        if name == "config":
            _add_config_commands(command, commands)
    return parser


def _add(parser: argparse.ArgumentParser, options: tuple[Option, ...]) -> None:
    for names, settings in options:
        parser.add_argument(*names, **settings)


def _add_config_commands(config: argparse.ArgumentParser, commands: Any) -> None:
    """`config`'s subcommands, and the old top-level spellings of three of them (`commands`: the top level's
    subparsers), which still parse for one release but are not listed."""
    config_commands = config.add_subparsers(dest="config_command", metavar="SUBCOMMAND", required=True)
    for name, texts in help_text.CONFIG_COMMANDS.items():
        _add(config_commands.add_parser(name, **texts.parser_texts()), OPTIONS.get(name, ()))
    for old, new in help_text.RENAMED.items():
        # No `help`: argparse lists a subcommand only when it has one, and an old spelling is not listed.
        texts = help_text.CONFIG_COMMANDS[new.split()[-1]].parser_texts()
        texts.pop("help")
        texts["description"] = (
            f"Renamed `mcp-gateway {new}`; this spelling goes in the next release. " + texts["description"]
        )
        _add(commands.add_parser(old, **texts), OPTIONS.get(old, ()))


def _dispatch(args: argparse.Namespace) -> int:
    """Each command's module is imported when it runs, and not before: `serve` needs none of them."""
    if args.command in (None, "serve"):
        # The program runs the front before the command line is parsed (`front.launch.serve_request`); a `serve`
        # parsed here gets the same front: one way to serve, whichever way it was asked.
        return serve_session(ServeRequest(args.home, bool(getattr(args, "standalone", False))))
    _renamed(args)
    match args.command:
        case "search" | "list" | "describe" | "call":
            from mcp_gateway.cli.inspect import run
        case "status":
            from mcp_gateway.cli.status import run
        case "refresh" | "doctor":
            from mcp_gateway.cli.doctor import run
        case "review" | "trust":
            from mcp_gateway.cli.review import run
        case "login" | "logout":
            from mcp_gateway.cli.signing_in import run
        case "config":
            from mcp_gateway.cli.config import run
        case "audit":
            from mcp_gateway.cli.audit import run  # reads files only: no gateway, no service
        case "demo":
            from mcp_gateway.cli.demo import run
        case "import":
            if args.client is not None and canonical_client(args.client) is None:
                raise ImportUsageError(unknown_client_message(args.client))
            from mcp_gateway.cli.importing import run_import as run
        case _:
            return _help(args)
    return run(args)


def _renamed(args: argparse.Namespace) -> None:
    """An old spelling (`mcp-gateway enable`) read as its new one (`config enable`), with a note saying so."""
    if args.command not in help_text.RENAMED:
        return
    renamed = help_text.RENAMED[args.command]
    print(
        f"mcp-gateway: `mcp-gateway {args.command}` is now `mcp-gateway {renamed}`; the old spelling goes in the "
        "next release",
        file=sys.stderr,
    )
    args.command, args.config_command = renamed.split()


def _help(args: argparse.Namespace) -> int:
    """The program's help, or that of the command `args.topic` names, as its `--help` prints it."""
    parser = build_parser()
    if not args.topic:
        parser.print_help()
        return 0
    parser.parse_args([*args.topic, "--help"])  # prints it and exits 0; a command that is not one is argparse's error
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    guard_terminals()  # text from outside never reaches a person's terminal with its control characters
    try:
        status = _run(argv)
        sys.stdout.flush()  # a reader that left is met here, not in the interpreter's exit
    except SystemExit:
        # argparse after --help or --version. It ignores a failed write of that text (with an unbuffered
        # stdout it catches the error itself), so its status stands whether the reader stayed or not.
        from mcp_gateway.cli import closed_pipe  # only when needed: serving parses too, before its handshake

        with closed_pipe.reader_may_leave():
            sys.stdout.flush()
        raise
    except (BrokenPipeError, BaseExceptionGroup) as error:
        from mcp_gateway.cli import closed_pipe

        if not closed_pipe.reader_left(error):
            raise
        closed_pipe.quiet_stdout()
        return closed_pipe.READER_LEFT_STATUS
    return status


def _run(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except GatewayError as error:
        if isinstance(error, ToolCallError):  # worded for the model: its next steps become commands to type
            from mcp_gateway.cli.people import PersonWords

            error = PersonWords.of(args).failure(error)
        print(f"mcp-gateway: {error.message}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
