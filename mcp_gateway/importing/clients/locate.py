"""Where clients keep their configs on Linux, macOS and Windows, derived from a `Where`.

Every path starts from `Where.home`, `Where.project` and `Where.environ`, never from the real home or
environment, so tests and first-time users can point a scratch HOME at `import`. Clients honour a few
variables of their own (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_CONFIG_HOME`, `APPDATA`, …); those are
read from `Where.environ` too. A client may keep its file in several places (an older location, an
editor variant): `first_existing` picks the one in use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from mcp_gateway.importing.clients.model import Where

VSCODE_FAMILY = ("Code", "Code - Insiders", "Cursor", "Windsurf", "VSCodium")
"""Editors whose user data folders hold VS Code extension storage (Cline and Roo live there)."""


def config_home(where: Where) -> Path:
    """`$XDG_CONFIG_HOME`, else `~/.config`: Linux apps and several CLIs on every OS."""
    xdg = where.environ.get("XDG_CONFIG_HOME")
    return Path(xdg) if xdg and not where.windows else where.home / ".config"


def app_data(where: Where) -> Path:
    """Windows `%APPDATA%` (Roaming)."""
    value = where.environ.get("APPDATA")
    return Path(value) if value else where.home / "AppData" / "Roaming"


def local_app_data(where: Where) -> Path:
    value = where.environ.get("LOCALAPPDATA")
    return Path(value) if value else where.home / "AppData" / "Local"


def app_support(where: Where, app: str) -> Path:
    """An Electron app's user data folder: the place VS Code-family editors and Claude Desktop use."""
    if where.macos:
        return where.home / "Library" / "Application Support" / app
    if where.windows:
        return app_data(where) / app
    return config_home(where) / app


def vscode_user_dirs(where: Where, editors: Sequence[str] = VSCODE_FAMILY) -> list[Path]:
    return [app_support(where, editor) / "User" for editor in editors]


def env_path(where: Where, name: str) -> Path | None:
    value = where.environ.get(name)
    return Path(value).expanduser() if value else None


def first_existing(candidates: Iterable[Path]) -> Path | None:
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None
