"""Argument parsing and dispatch for `mcp-gateway`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from mcp_gateway import __version__
from mcp_gateway.cli.serve import Serve, run_serve
from mcp_gateway.errors import GatewayError, ToolCallError

Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-gateway",
        description="One MCP server in front of all of yours. With no command, serves MCP over stdio.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-gateway {__version__}")
    parser.add_argument("--home", help="workspace directory (default: $MCP_GATEWAY_HOME, else the user config dir)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    commands.add_parser("serve", help="serve the four meta-tools over stdio (the default)")

    search = commands.add_parser("search", help="search the tool catalog like search_tools does")
    search.add_argument("query")
    search.add_argument("--server", help="only this server (name or alias)")
    search.add_argument("--limit", type=int, help="number of results (1-20)")
    search.add_argument("--json", action="store_true", help="print what search_tools returns to the model")

    listing = commands.add_parser("list", help="list one server's tools, or with no server every server")
    listing.add_argument("server", nargs="?", help="a server's name or alias (default: every server at a glance)")
    listing.add_argument("--json", action="store_true")

    describe = commands.add_parser("describe", help="show one tool's full definition")
    describe.add_argument("tool", help="server.tool, or a tool name only one server has")
    describe.add_argument("--server")

    call = commands.add_parser("call", help="call a tool through the gateway and print its result")
    call.add_argument("tool", help="server.tool, or a tool name only one server has")
    call.add_argument("--args", default="{}", help="arguments as a JSON object, e.g. '{\"a\": 2}'")
    call.add_argument("--server")
    call.add_argument("--json", action="store_true", help="print the raw CallToolResult")

    refresh = commands.add_parser("refresh", help="fetch tool lists again (all servers, or one)")
    refresh.add_argument("server", nargs="?")

    status = commands.add_parser("status", help="each server: cache state, tools, running or not, last error")
    status.add_argument("--json", action="store_true")

    doctor = commands.add_parser(
        "doctor", help="start every server: does it work, what does it cost in tokens, what is wrong with it"
    )
    doctor.add_argument("servers", nargs="*", metavar="SERVER", help="only these servers (default: all)")
    doctor.add_argument("--json", action="store_true")

    config = commands.add_parser("config", help="config file commands")
    config_commands = config.add_subparsers(dest="config_command", metavar="SUBCOMMAND", required=True)
    config_commands.add_parser("path", help="print the config file's path")
    config_commands.add_parser("check", help="validate the config file and print every diagnostic")

    importing = commands.add_parser(
        "import", help="import a client's MCP servers, point the client at the gateway, or undo that"
    )
    importing.add_argument(
        "--client",
        help="claude-code, claude-desktop, opencode, cursor, vscode, windsurf, "
        "codex, gemini, zed, cline, roo, servers-json (default: detect)",
    )
    importing.add_argument("--from", dest="source", metavar="PATH", help="read this file instead of the client's own")
    importing.add_argument("--scope", choices=("user", "project", "local"), help="which of the client's configs")
    importing.add_argument("--project", metavar="DIR", help="the project for project/local scopes (default: cwd)")
    importing.add_argument("--dry-run", action="store_true", help="print what would happen; write nothing")
    importing.add_argument(
        "--write-client-config", action="store_true", help="replace the imported servers in the client by the gateway"
    )
    importing.add_argument(
        "--launcher",
        choices=("auto", "uvx", "path"),  # importers.launch.LAUNCHERS, spelt out: parsing imports no importer
        default="auto",
        help="how the client starts the gateway: uvx (from the package index), path (this installation), "
        "auto (uvx when installed from the index, else path; the default)",
    )
    importing.add_argument(
        "--replace",
        action="store_true",
        help="a server the gateway already has with another definition takes this client's",
    )
    importing.add_argument(
        "--restore", nargs="?", const="", metavar="BACKUP", help="put a client file back from its backup"
    )

    demo = commands.add_parser("demo", help="see the gateway work end to end on two bundled demo servers")
    demo.add_argument("--keep", action="store_true", help="keep the demo workspace and print where it is")
    return parser


def _dispatch(args: argparse.Namespace, serve: Serve | None) -> int:
    if args.command in (None, "serve"):
        # Before anything else is imported: a client waits for this one's handshake at every session start.
        return run_serve(args, serve)
    from mcp_gateway.cli import inspect, manage

    handlers: dict[str, Command] = {
        "search": inspect.run_search,
        "list": inspect.run_list,
        "describe": inspect.run_describe,
        "call": inspect.run_call,
        "refresh": manage.run_refresh,
        "status": manage.run_status,
        "config": manage.run_config,
    }
    if args.command == "import":
        from mcp_gateway.cli import importing

        return importing.run_import(args)
    if args.command == "doctor":
        from mcp_gateway.cli import doctor

        return doctor.run_doctor(args)
    if args.command == "demo":
        from mcp_gateway.cli import demo

        return demo.run_demo(args)
    return handlers[args.command](args)


def main(argv: Sequence[str] | None = None, *, serve: Serve | None = None) -> int:
    """Run one command; its exit code. `serve` is the MCP server, for the `serve` command (and no command)."""
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args, serve)
    except ToolCallError as error:  # one no command turned into its own failure: told to a person all the same
        from mcp_gateway.cli.people import PersonWords

        print(f"mcp-gateway: {PersonWords.of(args).told(error.said)}", file=sys.stderr)
        return error.exit_code
    except GatewayError as error:
        print(f"mcp-gateway: {error.message}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
