"""The command a client runs to start the gateway, before each client puts it in its own shape.

Two launchers, chosen by how this gateway is installed (`--launcher auto`, the default) or by the user:

- `uvx`: `uvx --from mcp-meta-gateway mcp-gateway`, for a gateway installed from the package index. The
  distribution is `mcp-meta-gateway` because the PyPI name `mcp-gateway` belongs to another project (a
  bare `uvx mcp-gateway` would run that one). It always runs the newest release.
- `path`: the absolute path of this installation's `mcp-gateway` script (a checkout's venv, pipx, `uv tool`),
  for a gateway installed from a directory or a URL, and for any `uv tool install` (from the index too): its
  script stays where it is until `uv tool uninstall`, needs no network to start, and runs the version the
  person installed, while `uvx --from mcp-meta-gateway` would fetch the index's release instead, or nothing at
  all while the package is not published. `uv tool install <checkout>` then `mcp-gateway import` is the
  documented way in. When this installation lives in uv's cache (it was run by `uvx --from <source>`), its
  path is not kept (uv may clear it), so the entry runs `uvx --from <that source> mcp-gateway` instead.

`MCP_GATEWAY_HOME` points the client's gateway at the workspace the servers were imported into. GUI apps
started from a dock or menu get a minimal PATH without `~/.local/bin`, so for them `uvx` is resolved to an
absolute path now. The facts about this installation are passed in (`Installation`), so each rule is tested
without installing anything.

An entry that cannot start fails only later, inside the client, often silently (a server shown as failed, or
tools that never appear). So before a client file is rewritten, its gateway command is run with `--version`
(`check_launch`), in the environment the client will give it (the import's environment plus the entry's own
`env`), and must answer like this gateway does. It runs in a session of its own, so a launcher that hangs is
stopped with everything it started (uvx runs the gateway as its child).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from mcp_gateway.importing.clients import GATEWAY_DISTRIBUTION, GATEWAY_NAME, Launch
from mcp_gateway.paths import HOME_ENV_VAR

UVX = "uvx"
UVX_ARGS = ("--from", GATEWAY_DISTRIBUTION, GATEWAY_NAME)
UV_INSTALL_HINT = "install uv (https://docs.astral.sh/uv/)"
UV_TOOL_RECEIPT = "uv-receipt.toml"
"""What `uv tool install` leaves at the root of each tool's environment."""
UV_CACHE_MARKERS = ("archive-v0", "builds-v0")
"""Directories of uv's cache that `uvx` runs tools from (uv ≥ 0.4); a path through one is not kept."""

Launcher = Literal["auto", "uvx", "path"]
LAUNCHERS: tuple[Launcher, ...] = ("auto", "uvx", "path")

Which = Callable[[str], str | None]
LAUNCH_CHECK_SECONDS = 120.0
"""A first `uvx --from mcp-meta-gateway` run downloads the gateway and its dependencies (about 40 MB)."""
DETAIL_CHARS = 300
"""How much of what a failing command printed is quoted: its last line is what says why."""

LaunchChecker = Callable[[Launch, Mapping[str, str]], str | None]
"""Runs a launch; returns None when it starts the gateway, else the problem in one sentence."""


@dataclass(frozen=True)
class Installation:
    """Where the running gateway came from: what `--launcher auto` decides by."""

    from_index: bool
    """Installed from the package index (it has no PEP 610 `direct_url.json`)."""
    directory: Path | None
    """The local directory it was installed from (a checkout), when it was."""
    script: Path | None
    """This environment's `mcp-gateway` script, when it has one."""
    python: Path
    """This environment's interpreter (not resolved: a venv's `python` is a link out of the venv)."""
    source: str | None = None
    """What it was installed from when that is not a directory: a wheel or archive's path, or a URL."""
    uv_tool: bool = False
    """Installed by `uv tool install`: its environment and script stay until `uv tool uninstall`."""

    @property
    def in_uv_cache(self) -> bool:
        """Run by `uvx`: uv may delete this environment at any time, so its paths must not be written."""
        return any(part in UV_CACHE_MARKERS for part in self.python.parts)

    @property
    def origin(self) -> str:
        if self.from_index:
            return "the package index"
        return str(self.directory or self.source or "a URL or an archive")


def this_installation() -> Installation:
    scripts = Path(sysconfig.get_path("scripts"))
    names = [f"{GATEWAY_NAME}.exe", GATEWAY_NAME] if sys.platform == "win32" else [GATEWAY_NAME]
    script = next((scripts / name for name in names if (scripts / name).is_file()), None)
    python = Path(sys.executable).absolute()
    uv_tool = (Path(sys.prefix) / UV_TOOL_RECEIPT).is_file()
    # Only this environment's own site-packages: a checkout's egg-info on sys.path (the current directory
    # under `python -m`) says nothing about how this environment got the gateway.
    installed = metadata.distributions(name=GATEWAY_DISTRIBUTION, path=[sysconfig.get_path("purelib")])
    distribution = next(iter(installed), None)
    if distribution is None:  # a source tree on sys.path, never installed
        return Installation(False, Path(__file__).resolve().parents[2], script, python)
    direct_url = distribution.read_text("direct_url.json")
    if not direct_url:
        return Installation(True, None, script, python, uv_tool=uv_tool)
    directory, source = _installed_from(direct_url)
    return Installation(False, directory, script, python, source, uv_tool)


def _installed_from(direct_url: str) -> tuple[Path | None, str | None]:
    """(the local directory, else the archive's path or the URL) PEP 610's `direct_url.json` names."""
    try:
        url = json.loads(direct_url).get("url")
    except (ValueError, AttributeError):
        return None, None
    if not isinstance(url, str):
        return None, None
    if urlparse(url).scheme != "file":
        return None, url
    local = Path(unquote(urlparse(url).path))
    return (local, None) if local.is_dir() else (None, str(local))


@dataclass(frozen=True)
class LaunchPlan:
    launch: Launch
    launcher: Literal["uvx", "path"]
    """The launcher used: `--launcher auto` resolved."""
    why: str
    """Why this launcher, for the report."""
    warnings: tuple[str, ...]


def gateway_launch(
    workspace: Path,
    *,
    gui: bool,
    client: str,
    installation: Installation,
    launcher: Launcher = "auto",
    needed: Sequence[str] = (),
    which: Which = shutil.which,
) -> LaunchPlan:
    """The gateway command for one client; `workspace` is the gateway home the servers went into."""
    env = {HOME_ENV_VAR: str(workspace)}
    variables = tuple(dict.fromkeys(needed))
    uvx = which(UVX)
    auto = launcher == "auto"
    if launcher == "uvx" or (auto and installation.from_index and uvx and not installation.uv_tool):
        why = "asked for" if launcher == "uvx" else "this gateway was installed from the package index"
        return _uvx_plan(UVX_ARGS, env, variables, why, gui=gui, client=client, uvx=uvx)
    warnings: list[str] = []
    if installation.in_uv_cache:
        source = installation.directory or installation.source
        if auto and source is not None:
            # uvx ran this gateway from a checkout, a wheel or a URL: the entry asks uvx for the same, never
            # for a path in uv's cache, which uv may clear.
            args = ("--from", str(source), GATEWAY_NAME)
            why = f"this gateway was run by uvx from {source}"
            stable = f"uv tool install {source}, then import again, for an entry that needs no uvx at each start"
            plan = _uvx_plan(args, env, variables, why, gui=gui, client=client, uvx=uvx)
            return plan if installation.directory is not None else replace(plan, warnings=(*plan.warnings, stable))
        warnings.append(
            "this gateway runs from uv's cache, which uv may clear: install it (uv tool install, pipx or a venv) "
            "and import again"
        )
    if launcher == "path":
        why = "asked for"
    elif installation.uv_tool:
        why = f"this gateway is a uv tool (from {installation.origin}): its script stays until uv tool uninstall"
    elif installation.from_index:
        why = f"uvx is not on this PATH ({UV_INSTALL_HINT} for an entry that follows releases)"
    else:
        why = f"this gateway was installed from {installation.origin}, not from the package index"
    if installation.script is not None:
        launch = Launch(str(installation.script), (), env, variables)
    else:
        launch = Launch(str(installation.python), ("-m", "mcp_gateway"), env, variables)
    return LaunchPlan(launch, "path", why, tuple(warnings))


def _uvx_plan(
    args: tuple[str, ...],
    env: dict[str, str],
    variables: tuple[str, ...],
    why: str,
    *,
    gui: bool,
    client: str,
    uvx: str | None,
) -> LaunchPlan:
    warnings: list[str] = []
    command = UVX
    if uvx is None:
        warnings.append(
            f"uvx is not on this PATH, so {client} cannot start the gateway with this entry: "
            f"{UV_INSTALL_HINT} and import again, or use --launcher path"
        )
    elif gui:
        command = str(Path(uvx).absolute())  # a GUI app's minimal PATH may not hold uvx
    return LaunchPlan(Launch(command, args, env, variables), "uvx", why, tuple(warnings))


def check_launch(launch: Launch, environ: Mapping[str, str], timeout: float = LAUNCH_CHECK_SECONDS) -> str | None:
    """Start `launch` with `--version` as a client would; None when it answers as the gateway."""
    command = [launch.command, *launch.args, "--version"]
    env = {**environ, **launch.env}
    shown = " ".join(command[:-1])
    try:
        process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=sys.platform != "win32",
        )
    except OSError as error:
        return f"'{launch.command}' cannot be run ({error.strerror or error})"
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(process)
        return f"'{shown}' did not answer --version within {timeout:g} s"
    if process.returncode != 0:
        return f"'{shown}' exited with status {process.returncode}: {_last_line(err or out)}"
    if not out.startswith(f"{GATEWAY_NAME} "):
        return f"'{shown}' is not this gateway: it answered --version with {_last_line(out)!r}"
    return None


def _stop(process: subprocess.Popen[str]) -> None:
    """Stop the command and all it started: its own session, whose leader it still is (not yet reaped)."""
    if sys.platform == "win32":
        process.kill()
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else "(it printed nothing)"
    return last if len(last) <= DETAIL_CHARS else last[: DETAIL_CHARS - 1] + "…"
