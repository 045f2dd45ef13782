"""What `mcp-gateway --help` and `mcp-gateway COMMAND --help` say: a description, and examples a person can copy.

Each command has a one-line summary (the top-level list), a description (what it does, what it prints, its
exit status) and examples that start with `mcp-gateway`. `Paragraphs` fills prose to the terminal's width
and keeps indented lines (examples, the client table) as written. The client names in `import --help` come
from `mcp_gateway.client_names`, the table `--client` is resolved with, so the two cannot drift; this module
imports nothing else, since the parser is built on every command's path, `serve`'s included.
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass
from typing import Any

from mcp_gateway.client_names import CLIENT_NAMES, aliases_of


class Paragraphs(argparse.HelpFormatter):
    """Fills each one-line paragraph of a description or epilog to the width; keeps a block of several lines
    (a heading with indented examples or rows) as it is written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(
            "\n".join(indent + line for line in block.splitlines())
            if "\n" in block
            else textwrap.fill(block, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)
            for block in text.strip("\n").split("\n\n")
        )


@dataclass(frozen=True)
class CommandHelp:
    summary: str
    """The command's line in `mcp-gateway --help`."""
    description: str
    examples: tuple[tuple[str, str], ...]
    """(command line, what it does), the comment possibly empty."""
    notes: str = ""
    """Printed between the options and the examples (the client table of `import`)."""

    def parser_texts(self) -> dict[str, Any]:
        return {
            "help": self.summary,
            "description": self.description,
            "epilog": "\n\n".join(part for part in (self.notes, examples_text(self.examples)) if part),
            "formatter_class": Paragraphs,
        }


def examples_text(examples: tuple[tuple[str, str], ...]) -> str:
    """The examples, their comments lined up two spaces past the longest command that has one."""
    column = max((len(command) for command, comment in examples if comment), default=0) + 2
    lines = [f"  {command:<{column}}# {comment}" if comment else f"  {command}" for command, comment in examples]
    return "examples:\n" + "\n".join(lines)


def client_table() -> str:
    width = max(len(name) for name in CLIENT_NAMES) + 2
    rows = [f"  {name:<{width}}{', '.join(aliases_of(name))}".rstrip() for name in CLIENT_NAMES]
    return "clients (--client takes a name, or one of the aliases beside it; any case):\n" + "\n".join(rows)


PROGRAM = CommandHelp(
    summary="",
    description=(
        "One MCP server in front of all of yours. An AI client (Claude Code, OpenCode, Codex, Cursor, …) "
        "starts `mcp-gateway` with no command, as its only MCP server, and sees four tools (search_tools, "
        "list_tools, describe_tool, execute_tool) instead of every server's; a server is started only when "
        "one of its tools is called. The commands below are for you, at a terminal, over the same workspace."
    ),
    examples=(
        ("mcp-gateway demo", "start here: no network needed"),
        ("mcp-gateway import --client claude --dry-run", "preview moving in"),
        ("mcp-gateway import --client claude --write-client-config", ""),
        ('mcp-gateway search "create a GitHub issue"', ""),
    ),
    notes="`mcp-gateway help COMMAND` (or `mcp-gateway COMMAND --help`) describes each command, with examples.",
)

COMMANDS: dict[str, CommandHelp] = {
    "demo": CommandHelp(
        summary="see the gateway work end to end on two bundled demo servers (start here)",
        description=(
            "Starts the real gateway as a subprocess in a throwaway workspace, in front of two small bundled "
            "MCP servers (notes, toolbox), and drives it as an AI client would: lists the four tools, searches "
            "in English and Chinese, describes and calls tools (waking a server on first use), shows an error "
            "the model can fix, and compares the tokens of tool definitions with and without the gateway."
            "\n\nNeeds no network and no npm. The workspace is deleted afterwards unless --keep."
        ),
        examples=(("mcp-gateway demo", ""), ("mcp-gateway demo --keep", "then look around with --home DIR")),
    ),
    "import": CommandHelp(
        summary="import a client's MCP servers, point the client at the gateway, or undo that",
        description=(
            "Reads the MCP servers a client already has (from its own config file, or --from FILE) and adds "
            "them to the gateway's config.json. With --write-client-config it also replaces them in the "
            "client's file by one mcp-gateway entry, after a backup, so the client starts the gateway "
            "instead; nothing else in that file changes. --dry-run prints all of it and writes nothing. "
            "A server the gateway cannot take over (a secret the client prompts for, headers from a helper "
            "command) is skipped, with the reason, and stays in the client. One that signs in with OAuth (an OAuth "
            "block in the client's config) is imported and needs its own sign-in: the import ends with the "
            "`mcp-gateway login` to run for it. One the client keeps turned off is imported disabled."
            "\n\nThe network: each remote server that has no credentials in the client is sent one request "
            "without them (a dry run too), to see whether it needs a sign-in; the urls contacted are printed. "
            "One that asks for a sign-in is imported marked oauth, and the import ends with the `mcp-gateway "
            "login` to run for it. --no-probe sends nothing and leaves that unknown."
            "\n\nThe way back: every write keeps a backup beside the client's file. --restore steps back one "
            "write at a time (run it again to go one further), --restore original goes straight to the file as "
            "it was before the gateway first changed it, --backups lists every kept version (each readable by you "
            "only: a client file holds tokens) and --backups --prune removes all but the original and the newest "
            "two; each restore keeps the version it replaces, so it can be undone too."
            "\n\nWithout --client, lists the client configs it finds and imports from the one that has "
            "servers. Exits 2 for an unknown client or scope, 1 when a file could not be read or written."
        ),
        examples=(
            ("mcp-gateway import", "which clients have servers"),
            ("mcp-gateway import --client claude --dry-run", "writes nothing"),
            ("mcp-gateway import --client claude --write-client-config", ""),
            ("mcp-gateway import --client cursor --scope project --dry-run", ""),
            ("mcp-gateway import --client claude --dry-run --no-probe", "contacts no server"),
            ("mcp-gateway import --backups --client claude", "every kept version"),
            ("mcp-gateway import --backups --prune --client claude", "all but the original and newest two"),
            ("mcp-gateway import --restore --client claude", "one write back"),
            ("mcp-gateway import --restore original --client claude", "as before the gateway"),
        ),
        notes=client_table(),
    ),
    "search": CommandHelp(
        summary="search the tool catalog as the model's search_tools does",
        description=(
            "Searches every server's tools the way search_tools does for the model: the words of names, "
            "descriptions and parameters, synonyms (English and Chinese) and typos. Prints each match as "
            "`server.tool [confidence]`, its description and why it matched. Servers whose tools are not "
            "cached yet are started to list them first, and stopped again."
        ),
        examples=(
            ('mcp-gateway search "create a GitHub issue"', ""),
            ('mcp-gateway search "read a file" --server filesystem --limit 3', ""),
            ('mcp-gateway search "bump the deployment to five replicas" --or "scale kubernetes deployment"', ""),
            ("mcp-gateway search 读取文件 --json", "what search_tools returns"),
        ),
    ),
    "list": CommandHelp(
        summary="every server at a glance, or one server's tools",
        description=(
            "With no server: one line per configured server with its tool count, its state (cached and when, "
            "never listed, failing, disabled, invalid entry) and whether a gateway runs it; this starts "
            "nothing. With a server: the tools it offers, one line each with a short description, from the "
            "catalog (the server is started only when its tools are not cached yet); fails with a suggestion "
            "when no server has that name."
        ),
        examples=(
            ("mcp-gateway list", "every server"),
            ("mcp-gateway list github", ""),
            ("mcp-gateway list github --json", "what list_tools returns"),
        ),
    ),
    "describe": CommandHelp(
        summary="show one tool's full definition",
        description=(
            "Prints one tool's full definition as JSON, as describe_tool gives it to the model: its input "
            "and output schemas, annotations, _meta and its server's own instructions (the output is JSON "
            "already, so there is no --json)."
        ),
        examples=(
            ("mcp-gateway describe github.create_issue", ""),
            ("mcp-gateway describe create_issue --server github", ""),
        ),
    ),
    "call": CommandHelp(
        summary="call a tool through the gateway and print its result",
        description=(
            "Calls one tool as execute_tool does: the arguments are checked against the tool's input schema "
            "before the call, then its server is started, called and stopped again. Prints the result for a "
            "person: text as it is, images and other content described, structured content as JSON. Exits 1 "
            "when the tool reports an error or the arguments do not fit its schema (the problem is printed "
            "on stderr)."
        ),
        examples=(
            ('mcp-gateway call everything.get-sum --args \'{"a": 2, "b": 3}\'', ""),
            ("mcp-gateway call memory.read_graph --json", "the result as the server sent it"),
        ),
    ),
    "status": CommandHelp(
        summary="each server: cache state, tools, running or not, last error",
        description=(
            "Says what this workspace knows, without starting anything: the config file, each server's "
            "cache state and tool count, whether a running gateway has it started (with its pid), its last "
            "error, what failed in a running gateway's background, and what keeps the workspace from working "
            "fully. Exits 0 even then (a serving gateway carries on); 2 when the config cannot be used."
        ),
        examples=(("mcp-gateway status", ""), ("mcp-gateway --home ~/.mcp-gateway status --json", "")),
    ),
    "review": CommandHelp(
        summary="what awaits your review: new, changed or flagged tools, with a diff",
        description=(
            "Lists every tool, prompt and resource template held back from the model until you approve it: new "
            "on a server already approved, changed since approved (a unified diff of its description and schema "
            "against what was approved), its hints less safe (destructiveHint false to true), or flagged by the "
            "poisoning screen (hidden characters, orders aimed at the model, references to secrets), and why; "
            "then the ones you rejected, and the servers whose first listing was trusted as you put them "
            "there. Secrets are masked; invisible and control characters are shown as their code points. "
            "Approve with `mcp-gateway trust SERVER`."
        ),
        examples=(("mcp-gateway review", ""), ("mcp-gateway review --json", "")),
    ),
    "trust": CommandHelp(
        summary="approve what awaits review on a server (or reject it)",
        description=(
            "Approves what of SERVER awaits review (only the TOOLs named, if any) as it is listed now: it is "
            "searchable and callable again, in a running gateway too, at its next request. --reject keeps it "
            "out and stops asking (review no longer lists it as new) until it changes again."
        ),
        examples=(
            ("mcp-gateway trust github", "all that awaits review on github"),
            ("mcp-gateway trust github create_issue", "only this tool"),
            ("mcp-gateway trust github --reject", "keep it out, ask no more"),
        ),
    ),
    "refresh": CommandHelp(
        summary="fetch tool lists again (all servers, or one)",
        description=(
            "Starts each enabled server (or only SERVER), lists its tools, saves them in the catalog "
            "(cache.json) and stops it again; prints one line per server with its tool count or why it "
            "failed, and exits 1 when one failed. The gateway lists a server by itself when its cached list "
            "expires (cacheTtlDays) or its config changes: refresh after a server's tools changed."
        ),
        examples=(("mcp-gateway refresh", ""), ("mcp-gateway refresh github", "only this one")),
    ),
    "doctor": CommandHelp(
        summary="start every server: does it work, what does it cost in tokens, what is wrong with it",
        description=(
            "Starts each enabled server (or the ones named), times its start and tool listing, counts its "
            "tool definitions in tokens, checks its tool names and says what is wrong and what to do; then "
            "compares what a client sends with every request directly and through the gateway. Progress "
            "goes to stderr; the servers are stopped again. Exits 1 when a server failed."
        ),
        examples=(("mcp-gateway doctor", ""), ("mcp-gateway doctor github slack --json", "")),
    ),
    "login": CommandHelp(
        summary="sign in to a remote server with OAuth, for every gateway of this workspace",
        description=(
            "Runs the MCP authorization flow for a configured Streamable HTTP or SSE server: it discovers the "
            "server's authorization server, registers the gateway as a client (or uses oauth.clientId from "
            "config.json), prints the sign-in URL and opens it in your browser where there is a display, and "
            "waits up to five minutes for the browser to come back to 127.0.0.1. The tokens are kept in the "
            "workspace (oauth/, readable by you only) and every gateway serving it uses them and renews them "
            "before they expire; they are never printed."
            "\n\nOn a machine without a display, or with --no-browser, open the printed URL in any browser on "
            "this machine. Exits 0 when signed in, 1 when the sign-in was refused, timed out or is not offered "
            "by the server, 2 when SERVER is not a configured remote server."
        ),
        examples=(
            ("mcp-gateway login linear", "opens the browser"),
            ("mcp-gateway login linear --no-browser", "prints the URL only"),
        ),
    ),
    "logout": CommandHelp(
        summary="forget a remote server's OAuth sign-in (and revoke its tokens)",
        description=(
            "Removes the tokens `mcp-gateway login` stored for SERVER, after asking its authorization server "
            "to revoke them when it offers revocation (a server that cannot be reached does not keep you "
            "signed in here). Gateways serving this workspace stop using them at the next request: a call to "
            "the server then says to sign in again. Exits 0, also when there was no sign-in to remove."
        ),
        examples=(("mcp-gateway logout linear", ""),),
    ),
    "audit": CommandHelp(
        summary="the last tool calls, prompt gets, resource reads and refusals, from the audit trail",
        description=(
            "Reads the audit trail (logs/audit.jsonl in the workspace, and its rotated files) and prints the last "
            "calls as a table: when, which client, which server and tool, how it ended (ok, tool-error, "
            "gateway-error, refused, cancelled) and why, how long it took and how large its result was. Filters "
            "by server, tool, outcome and time; --format exports the calls as JSONL or CSV. The trail records "
            'argument shapes (keys and types), and argument values only with "auditValues": true in settings, '
            "masked. Starts nothing; exits 2 for a filter that cannot be read."
        ),
        examples=(
            ("mcp-gateway audit", "the last 20 calls"),
            ("mcp-gateway audit --outcome refused --since 1d", ""),
            ("mcp-gateway audit --server github --tool 'github.delete_*'", ""),
            ("mcp-gateway audit --format csv", "every call, for a spreadsheet"),
        ),
    ),
    "config": CommandHelp(
        summary="the config file: where it is, whether it is valid, which servers are on",
        description=(
            "config.json holds your servers and the gateway's settings (docs/configuration.md lists every "
            "field). `config path` prints where it is; `config check` validates it; `config enable` and `config "
            "disable` turn one server on or off; `config reload` says what running gateways do with the file "
            "(they apply every save by themselves)."
        ),
        examples=(
            ("mcp-gateway config path", ""),
            ("mcp-gateway config check", ""),
            ("mcp-gateway config disable github", ""),
        ),
    ),
    "help": CommandHelp(
        summary="this help, or a command's: `mcp-gateway help import` is `mcp-gateway import --help`",
        description=(
            "Prints the help of the program, or of the command named (and of its subcommand: `mcp-gateway help "
            "config check`), exactly as COMMAND --help prints it: what the command does and prints, its options, "
            "and examples to copy. It starts nothing and reads no workspace."
        ),
        examples=(("mcp-gateway help", ""), ("mcp-gateway help import", "the same as: mcp-gateway import --help")),
    ),
    "serve": CommandHelp(
        summary="serve the four meta-tools over stdio: what an AI client runs (the default)",
        description=(
            "Runs the gateway as an MCP server on stdin and stdout. This is what an AI client starts, once "
            "per session, as its only MCP server; `mcp-gateway` with no command does the same. It answers "
            "the client's handshake at once from the catalog, starts a downstream server only when one of its "
            "tools is called, and stops them all when the client closes stdin."
            "\n\nA person does not run it: in a terminal it only waits for JSON-RPC on stdin (Ctrl-D ends "
            "it). To see it work, run `mcp-gateway demo`; to point your client at it, `mcp-gateway import`."
        ),
        examples=(
            ("mcp-gateway", "as a client's config starts it"),
            ("mcp-gateway --home ~/.mcp-gateway serve", "the same, for one workspace"),
        ),
    ),
}

RENAMED = {"reload": "config reload", "enable": "config enable", "disable": "config disable"}
"""Old spellings that still work for one release, each with a note on stderr naming its new one."""

CONFIG_COMMANDS: dict[str, CommandHelp] = {
    "path": CommandHelp(
        summary="print the config file's path (created from a template, with its folder, if missing)",
        description=(
            "Prints the path of this workspace's config.json, the file that holds your servers and settings: "
            "in --home, else in $MCP_GATEWAY_HOME, else in the platform's user config directory. If nothing is "
            "there, it first creates the file (and its folder) from the template, every setting at its default "
            "and no servers, and says so on stderr; an existing file is never changed. Only the path goes to "
            "stdout. `mcp-gateway config check` validates it."
        ),
        examples=(
            ("mcp-gateway config path", ""),
            ("mcp-gateway --home ./workspace config path", ""),
        ),
    ),
    "check": CommandHelp(
        summary="validate the config file and print every diagnostic",
        description=(
            "Validates config.json and prints each problem on stderr as an error or a warning, with its JSON "
            "path and, for a misspelt field, the field meant; then one line with the counts. Exits 1 when there "
            "is an error (a server with an invalid entry is left out; the others work), 2 when the file as a "
            "whole cannot be used."
        ),
        examples=(("mcp-gateway config check", ""),),
    ),
    "reload": CommandHelp(
        summary="check config.json as running gateways will read it, and say what they do with it",
        description=(
            "A serving gateway applies every save of config.json by itself, within a second and without a "
            "restart: new servers are listed and searchable, removed or disabled ones stop once their calls "
            "in flight end, a server whose command, arguments, environment, url or headers changed restarts "
            "on its next call, and the others keep their processes. `reload` reads the file as they will: it "
            "prints the enabled and disabled servers and every problem (on stderr). An edit that cannot be used "
            "is not applied: running gateways keep serving their last good config and say why in `status` and "
            "in the next search. Exit status: 0 when the file can be applied, 1 when it has errors, 2 when it "
            "cannot be read as JSON at all."
        ),
        examples=(("mcp-gateway config reload", "after editing config.json by hand"),),
    ),
    "enable": CommandHelp(
        summary="enable a server in config.json (running gateways apply it live)",
        description=(
            'Removes the server\'s "disabled": true from config.json, keeping every other byte of the file. '
            "SERVER is its name or one of its aliases. Running gateways list it and start it on its first call, "
            "within a second. Exit status: 0 when it is enabled (or already was), 2 when no server has that name "
            "(the error suggests the closest one) or the file cannot be read or written."
        ),
        examples=(("mcp-gateway config enable github", ""),),
    ),
    "disable": CommandHelp(
        summary="disable a server in config.json (running gateways stop it once its calls end)",
        description=(
            'Writes "disabled": true into the server\'s entry in config.json, keeping every other byte of '
            "the file; its tools leave search at once. SERVER is its name or one of its aliases. Running "
            "gateways take no new call for it and stop its process once the calls in flight end. Exit status: "
            "0 when it is disabled (or already was), 2 when no server has that name (the error suggests the "
            "closest one) or the file cannot be read or written."
        ),
        examples=(("mcp-gateway config disable github", "until `mcp-gateway config enable github`"),),
    ),
}
