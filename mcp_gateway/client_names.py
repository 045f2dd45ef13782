"""The names `import --client` accepts: each client's canonical name and its aliases, and a near miss's suggestion.

This is the one table of those names. It stands apart from `importing/` (whose package imports every
client's reader) so that the command line can list the names in `import --help` and check `--client`
before anything heavier is imported: building the parser is on every command's path, `serve`'s included.
`importing.clients` builds its client table in the same order and resolves names through `ALIASES`
(`tests/unit/importing/test_client_names.py` holds the two tables together).
"""

from __future__ import annotations

CLIENT_NAMES: tuple[str, ...] = (
    "claude-code",
    "claude-desktop",
    "opencode",
    "cursor",
    "vscode",
    "windsurf",
    "codex",
    "gemini",
    "zed",
    "cline",
    "roo",
    "servers-json",
)
ALIASES: dict[str, str] = {
    "claude": "claude-code",
    "claudecode": "claude-code",
    "claude-desktop-app": "claude-desktop",
    "code": "vscode",
    "vs-code": "vscode",
    "copilot": "vscode",
    "codex-cli": "codex",
    "gemini-cli": "gemini",
    "roo-code": "roo",
    "roocode": "roo",
    "epoch": "servers-json",
    "epoch-agent": "servers-json",
    "servers": "servers-json",
}
SUGGESTION_CUTOFF = 0.6
"""difflib's own default ratio: `claud` → `claude` scores 0.91, `opncode` → `opencode` 0.93, `windserf` →
`windsurf` 0.88, while an unrelated word stays below it (`notepad`: 0.4 at best)."""


def canonical_client(name: str) -> str | None:
    """The canonical name `name` stands for (itself or an alias, any case), or None when it is no client's."""
    folded = name.lower()
    wanted = ALIASES.get(folded, folded)
    return wanted if wanted in CLIENT_NAMES else None


def aliases_of(client: str) -> list[str]:
    return [alias for alias, canonical in ALIASES.items() if canonical == client]


def unknown_client_message(name: str) -> str:
    """One sentence for a `--client` that names no client: the nearest accepted name, else all of them."""
    import difflib  # only for a mistake: the parser reads this module on every command's path

    accepted = [*CLIENT_NAMES, *ALIASES]
    near = difflib.get_close_matches(name.lower(), accepted, n=1, cutoff=SUGGESTION_CUTOFF)
    if near:
        return f"unknown client '{name}': did you mean '{near[0]}'? (`mcp-gateway import --help` lists every name)"
    return (
        f"unknown client '{name}': use one of {', '.join(CLIENT_NAMES)} "
        "(`mcp-gateway import --help` lists their aliases too)"
    )
