"""The workspace: where one gateway keeps its config, its tool catalog, its logs and its process records.

`MCP_GATEWAY_HOME` puts everything under one directory (each AI client may point its own gateway entry at
its own home). Without it, the config lives in the platform's user config directory and everything the
gateway writes for itself (catalog, logs, process records) in the user cache directory. Directories are
created 0700 and files 0600: the config and logs can name secrets.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

HOME_ENV_VAR = "MCP_GATEWAY_HOME"
APP_NAME = "mcp-gateway"
DIR_MODE = 0o700
FILE_MODE = 0o600


@dataclass(frozen=True)
class Workspace:
    config_dir: Path
    state_dir: Path

    @classmethod
    def from_environment(cls, home: str | os.PathLike[str] | None = None) -> Workspace:
        """The workspace named by `home`, else `$MCP_GATEWAY_HOME`, else the platform directories."""
        chosen = home if home is not None else os.environ.get(HOME_ENV_VAR) or None
        if chosen is not None:
            root = Path(chosen).expanduser().absolute()
            return cls(config_dir=root, state_dir=root)
        import platformdirs

        return cls(
            config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            state_dir=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
        )

    @property
    def config_path(self) -> Path:
        return self.config_dir / "config.json"

    @property
    def cache_path(self) -> Path:
        return self.state_dir / "cache.json"

    @property
    def cache_lock_path(self) -> Path:
        return self.state_dir / "cache.json.lock"

    @property
    def errors_path(self) -> Path:
        """Each server's last error, for `mcp-gateway status` run in another process."""
        return self.state_dir / "errors.json"

    @property
    def background_problems_path(self) -> Path:
        """What failed in the background of each running gateway, for `mcp-gateway status`."""
        return self.state_dir / "background-problems.json"

    @property
    def logs_dir(self) -> Path:
        return self.state_dir / "logs"

    @property
    def process_records_dir(self) -> Path:
        """One file per running gateway listing the process groups it started (reaped after a SIGKILL)."""
        return self.state_dir / "run"

    def stderr_log_path(self, server: str) -> Path:
        return self.logs_dir / f"{safe_file_name(server)}.stderr.log"

    def ensure(self) -> None:
        """Create the workspace directories with private permissions."""
        for directory in (self.config_dir, self.state_dir, self.logs_dir, self.process_records_dir):
            ensure_private_dir(directory)


def ensure_private_dir(directory: Path) -> None:
    directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    # A directory we do not own (a shared home) is still usable; permissions are best effort.
    with contextlib.suppress(OSError):
        os.chmod(directory, DIR_MODE)


def safe_file_name(name: str) -> str:
    """A server key as a file name: keys may hold dots, spaces or slashes."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name).strip(".")
    return cleaned or "_"
