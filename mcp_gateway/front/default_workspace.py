"""Where the default workspace's config is, for a front started without `--home` or `MCP_GATEWAY_HOME`,
found without importing platformdirs on the way to a running daemon.

`platformdirs` decides where the default config lives (`paths.Workspace`), and it stays the one that decides:
no second rule is written here. But importing it costs a front about 13 ms (it brings `tempfile`, `shutil`
and `random`), a quarter of a front's whole start with its daemon running, and its answer depends only on a
few environment variables (`HOME` and the `XDG_` and `ANDROID_` families), the platform and the user. So a
front asks it once per such environment and keeps the answer in the private runtime directory: one small
file per environment, named by a digest of everything the answer depends on and of the gateway's version
(an upgrade asks again). Any variable of those families takes part, not only the ones platformdirs reads
today: one it starts reading later then asks again instead of being answered wrongly.

A remembered answer is trusted only from the private runtime directory (`rendezvous.private_directory`), read
bounded and never through a link, and written whole (a temporary file, then a rename). Where any of that
fails, platformdirs is asked, as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from mcp_gateway import __version__
from mcp_gateway.front.private_files import keep, read_kept
from mcp_gateway.front.rendezvous import NoRendezvous, private_directory, sha256_hex

INPUT_NAMES = frozenset({"HOME"})
INPUT_PREFIXES = ("XDG_", "ANDROID_")
"""The environment platformdirs answers from on Linux and macOS (`expand_user`, `xdg_dir`, its Android test)."""
MAX_PATH_BYTES = 4096
"""PATH_MAX on Linux: no config path is longer."""


def default_config_path(directory: Path, ask: Callable[[], Path], environ: Mapping[str, str] | None = None) -> Path:
    """The default workspace's config path: remembered in `directory` for this environment, else `ask()`ed."""
    env = os.environ if environ is None else environ
    try:
        remembered = private_directory(directory) / f"default-{_inputs_digest(env)[:20]}.path"
    except NoRendezvous:
        return ask()  # the front says why it serves standalone, once it tries to use the directory itself
    known = _read(remembered)
    if known is not None:
        return known
    found = ask()
    keep(remembered, os.fsencode(found))
    return found


def _inputs_digest(environ: Mapping[str, str]) -> str:
    inputs = sorted(
        f"{name}={value}" for name, value in environ.items() if name in INPUT_NAMES or name.startswith(INPUT_PREFIXES)
    )
    said = "\0".join([__version__, sys.platform, str(os.getuid()), *inputs])
    return sha256_hex(said.encode(errors="surrogateescape"))


def _read(path: Path) -> Path | None:
    raw = read_kept(path, MAX_PATH_BYTES)
    said = None if raw is None else os.fsdecode(raw)
    if said is None or not os.path.isabs(said) or "\0" in said:
        return None
    return Path(said)
