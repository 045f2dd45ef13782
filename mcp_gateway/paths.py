"""The workspace: where one gateway keeps its config, its tool catalog, its logs and its process records.

`MCP_GATEWAY_HOME` puts everything under one directory (each AI client may point its own gateway entry at
its own home). Without it, the config lives in the platform's user config directory and everything the
gateway writes for itself (catalog, logs, process records) in the user cache directory. Directories are
created 0700 and files 0600 (the config and logs can name secrets); the mode of a directory or file the
gateway did not create is left alone. The two roots may be symbolic links (a home the user chose); `logs`
and `run` are the gateway's own and must be real directories, never links. A workspace where one of those
cannot be had still serves, without the feature it holds (`Workspace.ensure` says which and why).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

HOME_ENV_VAR = "MCP_GATEWAY_HOME"
APP_NAME = "mcp-gateway"
DIR_MODE = 0o700
FILE_MODE = 0o600


class Workspace(NamedTuple):
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

    @property
    def sign_ins_dir(self) -> Path:
        """One private file per remote server signed in with OAuth (`sign_in.SignInStore`); beside the
        config, not in the cache directory: a sign-in must outlive a cleaned cache."""
        return self.config_dir / "oauth"

    @property
    def pins_path(self) -> Path:
        """What a person (or a server's first listing) approved of each server's tools (`mcp_gateway.integrity`);
        beside the config, like sign-ins: an approval must outlive a cleaned cache."""
        return self.config_dir / "pins.json"

    def stderr_log_path(self, server: str) -> Path:
        return self.logs_dir / f"{safe_file_name(server)}.stderr.log"

    def ensure(self) -> tuple[str, ...]:
        """Create the workspace directories; return, one sentence each, what does not work for want of one.

        Never raises: a workspace missing a directory still serves (a catalog it cannot write is kept in
        memory, servers whose stderr cannot be logged still run).
        """
        problems: list[str] = []
        for directory, own, loses in (
            (self.config_dir, False, "the config file cannot be created"),
            (self.state_dir, False, "the tool catalog is kept in memory only"),
            (self.logs_dir, True, "the stderr of servers is not logged"),
            (
                self.process_records_dir,
                True,
                "the processes of servers are not recorded, so servers left by a killed gateway are not stopped",
            ),
        ):
            problem = directory_problem(directory, allow_link=not own)
            if problem is not None:
                problems.append(f"{directory} {problem}, so {loses}; {_fix(problem)}")
        return tuple(problems)


def ensure_private_dir(directory: Path) -> None:
    """Create `directory` (and missing parents) with private permissions; an existing one is left as it is."""
    directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)


def directory_problem(directory: Path, *, allow_link: bool) -> str | None:
    """Create `directory` if missing; None when it is usable, else what is wrong with it (a phrase)."""
    try:
        ensure_private_dir(directory)
    except FileExistsError:
        pass  # something that is not a directory is there; described below
    except OSError as exc:
        return f"cannot be created ({exc.strerror or type(exc).__name__})"
    try:
        info = os.stat(directory, follow_symlinks=allow_link)
    except OSError as exc:
        return f"cannot be examined ({exc.strerror or type(exc).__name__})"
    if stat.S_ISDIR(info.st_mode):
        return None
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    return "is a regular file" if stat.S_ISREG(info.st_mode) else "is not a directory"


def _fix(problem: str) -> str:
    if problem.startswith("is "):
        return "move it away and restart the gateway to create a directory there"
    return "check the permissions of its parent directory"


def safe_file_name(name: str) -> str:
    """A server key as a file name: keys may hold dots, spaces or slashes."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name).strip(".")
    return cleaned or "_"
