"""A small, realistic multi-server catalog for search tests (written by hand, not taken from bench data).

Imported by the search tests as `search_catalog` (pytest puts this directory on the path).
"""

from __future__ import annotations

from collections.abc import Mapping

from mcp_gateway.search import SearchEngine, SearchResult, ServerEntry, ToolEntry

Tool = tuple[str, str, tuple[tuple[str, str], ...]]

SERVERS: dict[str, tuple[tuple[str, ...], list[Tool]]] = {
    "filesystem": (
        ("fs",),
        [
            (
                "read_file",
                "Read the complete contents of a file from the file system.",
                (("path", "Path of the file"),),
            ),
            (
                "write_file",
                "Create a new file or completely overwrite an existing file with new content.",
                (("path", "Path of the file"), ("content", "Text to write")),
            ),
            ("delete_file", "Delete a file", (("path", "Path of the file to delete"),)),
            (
                "list_directory",
                "Get a detailed listing of all files and directories in a specified path.",
                (("path", "Directory to list"),),
            ),
        ],
    ),
    "github": (
        ("gh",),
        [
            (
                "create_issue",
                "Create a new issue in a GitHub repository.",
                (("owner", "Repository owner"), ("repo", "Repository name"), ("title", "Issue title")),
            ),
            ("delete_repository", "Delete a GitHub repository permanently.", (("owner", ""), ("repo", ""))),
            ("search_code", "Search for code across all GitHub repositories.", (("q", "Search query"),)),
            ("listPullRequests", "List pull requests in a repository.", (("owner", ""), ("repo", ""))),
        ],
    ),
    "kubernetes": (
        ("k8s",),
        [
            ("pods_list", "List all the pods in the current cluster.", (("namespace", "Namespace to list"),)),
            ("get-deployment-logs", "Fetch the logs of a deployment.", (("name", "Deployment name"),)),
        ],
    ),
    "weather": ((), [("get_forecast", "获取指定城市未来几天的天气预报", (("city", "城市名称"),))]),
    "slack": (
        (),
        [
            ("send_message", "Send a message to a Slack channel.", (("channel", "Channel id"), ("text", "Text"))),
            ("remove_reaction", "Remove an emoji reaction from a message.", (("name", "Emoji name"),)),
        ],
    ),
}


def add_server(engine: SearchEngine, name: str, aliases: tuple[str, ...], tools: list[Tool]) -> None:
    engine.replace_server(
        ServerEntry(name, aliases),
        [ToolEntry(name, tool, description, parameters=parameters) for tool, description, parameters in tools],
    )


def build_engine(servers: dict[str, tuple[tuple[str, ...], list[Tool]]] = SERVERS) -> SearchEngine:
    engine = SearchEngine()
    for name, (aliases, tools) in servers.items():
        add_server(engine, name, aliases, tools)
    return engine


def engine_with(servers: Mapping[str, list[tuple[str, str]]]) -> SearchEngine:
    """An engine of tools given by name and description only, each server without aliases."""
    engine = SearchEngine()
    for server, tools in servers.items():
        engine.replace_server(ServerEntry(server), [ToolEntry(server, name, text) for name, text in tools])
    return engine


def ranked(result: SearchResult) -> list[str]:
    """The hits as `server.tool`, best first."""
    return [f"{hit.server}.{hit.tool}" for hit in result.hits]
