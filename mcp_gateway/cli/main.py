"""Argument parsing and dispatch for `mcp-gateway`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mcp_gateway import __version__
from mcp_gateway.cli import help_text
from mcp_gateway.client_names import canonical_client, unknown_client_message
from mcp_gateway.errors import GatewayError, ImportUsageError, ToolCallError
from mcp_gateway.front.launch import ServeRequest, serve_session
from mcp_gateway.terminal import guard_terminals

Command = Callable[[argparse.Namespace], int]


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

    def command(name: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, **help_text.COMMANDS[name].parser_texts())

    demo = command("demo")
    demo.add_argument("--keep", action="store_true", help="keep the demo workspace and print where it is")

    importing = command("import")
    importing.add_argument("--client", help="the client to import from: a name or alias listed below (default: detect)")
    importing.add_argument("--from", dest="source", metavar="PATH", help="read this file instead of the client's own")
    importing.add_argument("--scope", choices=("user", "project", "local"), help="which of the client's configs")
    importing.add_argument("--project", metavar="DIR", help="the project for project/local scopes (default: cwd)")
    importing.add_argument("--dry-run", action="store_true", help="print what would happen; write nothing")
    importing.add_argument(
        "--write-client-config", action="store_true", help="replace the imported servers in the client by the gateway"
    )
    importing.add_argument(
        "--launcher",
        choices=("auto", "uvx", "path"),  # importing.LAUNCHERS, spelt out: parsing imports no importer
        default="auto",
        help="how the client starts the gateway: path (this installation's script: a uv tool's, a venv's), uvx "
        "(uvx --from mcp-meta-gateway, from the package index), auto (path, but uvx for a gateway installed from "
        "the index other than as a uv tool, and uvx --from the same source for one run by uvx; the default)",
    )
    importing.add_argument(
        "--replace",
        action="store_true",
        help="a server the gateway already has with another definition takes this client's",
    )
    importing.add_argument(
        "--no-probe",
        action="store_true",
        help="send the client's remote servers no request: without it, import (a dry run too) sends each "
        "remote server that has no credentials in the client one request without them, to see whether it needs "
        "a sign-in (one that does is imported marked oauth, for `mcp-gateway login`), and prints which urls it "
        "contacted; with it, that is left unknown",
    )
    importing.add_argument(
        "--restore",
        nargs="?",
        const="",
        metavar="BACKUP",
        help="undo import's writes to a client file (with --client): alone, one step back (run it again to go "
        "one further); 'original', the file as it was before the gateway first changed it; a path, that kept "
        "version. Each restore keeps the version it replaces, so it can be undone too",
    )
    importing.add_argument(
        "--backups",
        action="store_true",
        help="list the kept versions of the client's file (with --client; every client's without): when, "
        "which write made each, size, which is the original and which --restore puts back next",
    )
    importing.add_argument(
        "--prune",
        action="store_true",
        help="with --backups: first remove every kept version but the original and the newest two",
    )

    search = command("search")
    search.add_argument("query", help="what you want to do, in words; quote several words")
    search.add_argument(
        "--or",
        dest="alternatives",
        action="append",
        default=[],
        metavar="WORDS",
        help="another phrasing of the same need, ranked too and fused with the query (up to 4, as "
        "search_tools' alternatives)",
    )
    search.add_argument("--server", help="only this server (name or alias)")
    search.add_argument("--limit", type=int, help="number of results (1-20)")
    search.add_argument(
        "--json",
        action="store_true",
        help="print what search_tools returns to the model: results (tool, confidence, why, description, "
        "inputSchema) and notes",
    )

    listing = command("list")
    listing.add_argument(
        "server", nargs="?", help="the server's name or one of its aliases (default: every server at a glance)"
    )
    listing.add_argument(
        "--json",
        action="store_true",
        help="print what list_tools returns to the model: server, total, offset, tools (name, description), "
        "serverInstructions",
    )

    describe = command("describe")
    describe.add_argument("tool", help="server.tool, or a tool name only one server has")
    describe.add_argument("--server", help="the tool's server, for a bare tool name")

    call = command("call")
    call.add_argument("tool", help="server.tool, or a tool name only one server has")
    call.add_argument("--args", default="{}", help="arguments as a JSON object, e.g. '{\"a\": 2}'")
    call.add_argument("--server", help="the tool's server, for a bare tool name")
    call.add_argument(
        "--json",
        action="store_true",
        help="print the CallToolResult as the server sent it (content, structuredContent, isError)",
    )

    status = command("status")
    status.add_argument(
        "--json",
        action="store_true",
        help="print it as one JSON object: config, servers (cache, tools, running, lastError, …), rejected, "
        "backgroundProblems, workspaceProblems, cacheNotice, configProblem",
    )

    _add_review_commands(command)

    refresh = command("refresh")
    refresh.add_argument("server", nargs="?", help="only this server, by name or alias (default: every enabled one)")

    doctor = command("doctor")
    doctor.add_argument("servers", nargs="*", metavar="SERVER", help="only these servers (default: all)")
    doctor.add_argument(
        "--json",
        action="store_true",
        help="print the report as JSON: tokenizer, servers (listed, seconds, toolCount, schemaTokens, problem, "
        "…), summary (directTokens, gatewayTokens, …)",
    )

    _add_sign_in_commands(command)
    _add_audit_command(command("audit"))

    _add_config_commands(command("config"), commands)
    command("help").add_argument(
        "topic", nargs="*", metavar="COMMAND", help="a command, and its subcommand (default: the program's help)"
    )
    _add_serve_command(command("serve"))
    return parser


def _add_serve_command(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--standalone",
        action="store_true",
        help="serve through a gateway of this session's own, not the workspace's shared daemon",
    )
    # Also after the command, as the front reads it (`front.launch.serve_request`); not overriding the global one.
    serve.add_argument("--home", default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def _add_audit_command(audit: argparse.ArgumentParser) -> None:
    audit.add_argument("--server", help="only calls of this server (its name in config.json)")
    audit.add_argument("--tool", help="only calls of this tool: a glob over server.tool or the tool's name")
    audit.add_argument(
        "--outcome",
        help="only calls that ended so: ok, tool-error, gateway-error, refused or cancelled",
    )
    audit.add_argument("--since", help="only calls since then: a time ago (10m, 2h, 1d) or an ISO time")
    audit.add_argument("--last", type=int, metavar="N", help="the last N matching calls (default 20; 0: all)")
    output = audit.add_mutually_exclusive_group()
    output.add_argument(
        "--format", choices=("jsonl", "csv"), help="export every matching call (or the --last N) as JSONL or CSV"
    )
    output.add_argument("--json", action="store_true", help="print the calls as one JSON object: file, calls, shown")


def _add_config_commands(config: argparse.ArgumentParser, commands: Any) -> None:
    """`config`'s subcommands, and the old top-level spellings of three of them (`commands`: the top level's
    subparsers), which still parse for one release but are not listed."""
    config_commands = config.add_subparsers(dest="config_command", metavar="SUBCOMMAND", required=True)
    for name, texts in help_text.CONFIG_COMMANDS.items():
        _config_arguments(name, config_commands.add_parser(name, **texts.parser_texts()))
    for old, new in help_text.RENAMED.items():
        # No `help`: argparse lists a subcommand only when it has one, and an old spelling is not listed.
        texts = help_text.CONFIG_COMMANDS[new.split()[-1]].parser_texts()
        texts.pop("help")
        texts["description"] = (
            f"Renamed `mcp-gateway {new}`; this spelling goes in the next release. " + (texts["description"])
        )
        _config_arguments(old, commands.add_parser(old, **texts))


def _config_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    if name in ("enable", "disable"):
        parser.add_argument("server", help="the server's name in config.json, or one of its aliases")


def _add_review_commands(command: Callable[[str], argparse.ArgumentParser]) -> None:
    review = command("review")
    review.add_argument(
        "--json",
        action="store_true",
        help="print it as JSON: awaiting, rejected (server, kind, name, state, reason, diff), firstSight, notice",
    )
    trust = command("trust")
    trust.add_argument("server", help="the server's name or one of its aliases")
    trust.add_argument("tools", nargs="*", metavar="TOOL", help="only these (default: all that awaits review)")
    trust.add_argument("--reject", action="store_true", help="keep it out of the model's reach and stop asking")
    trust.add_argument("--json", action="store_true", help="print the decision as JSON: server, names, rejected")


def _add_sign_in_commands(command: Callable[[str], argparse.ArgumentParser]) -> None:
    login = command("login")
    login.add_argument("server", help="the remote server's name or one of its aliases")
    login.add_argument(
        "--no-browser", action="store_true", help="print the sign-in URL only; do not try to open a browser"
    )
    logout = command("logout")
    logout.add_argument("server", help="the server's name, as when it signed in")


def _dispatch(args: argparse.Namespace) -> int:
    if args.command in (None, "serve"):
        # The program runs the front before the command line is parsed (`front.launch.serve_request`); a `serve`
        # parsed here gets the same front: one way to serve, whichever way it was asked.
        return serve_session(ServeRequest(args.home, bool(getattr(args, "standalone", False))))
    _renamed(args)
    from mcp_gateway.cli import inspect, live, manage, review

    handlers: dict[str, Command] = {
        "search": inspect.run_search,
        "list": inspect.run_list,
        "describe": inspect.run_describe,
        "call": inspect.run_call,
        "refresh": manage.run_refresh,
        "status": manage.run_status,
        "review": review.run,
        "trust": review.run,
        "config": manage.run_config,
        "config reload": live.run_reload,
        "config enable": live.run_enable,
        "config disable": live.run_disable,
        "help": _help,
        "audit": _audit,
    }
    if args.command == "import":
        if args.client is not None and canonical_client(args.client) is None:
            raise ImportUsageError(unknown_client_message(args.client))
        from mcp_gateway.cli import importing

        return importing.run_import(args)
    if args.command in ("login", "logout"):
        from mcp_gateway.cli import signing_in

        return signing_in.run(args)
    if args.command == "doctor":
        from mcp_gateway.cli import doctor

        return doctor.run_doctor(args)
    if args.command == "demo":
        from mcp_gateway.cli import demo

        return demo.run_demo(args)
    live_edit = f"config {getattr(args, 'config_command', '')}"
    return handlers[live_edit if live_edit in handlers else args.command](args)


def _audit(args: argparse.Namespace) -> int:
    from mcp_gateway.cli import audit  # reads files only: no gateway, no service

    return audit.run_audit(args)


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
    """Run one command; its exit code."""
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
