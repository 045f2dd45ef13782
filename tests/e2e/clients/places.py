"""The scratch directories of one client session, and the environment a client CLI runs in.

Nothing of the user who runs the tests reaches a client: HOME is a scratch directory, the environment is
built from a short allow-list (what a shell session has that is not configuration), and each client gets
only what points it at the mock model API and its proxy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from process_leaks import TEST_RUN_ENV

GATEWAY_NAME = "mcp-gateway"
"""The entry `mcp-gateway import --write-client-config` writes into a client."""
INHERITED = ("PATH", "LANG", "LC_ALL", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "CI", TEST_RUN_ENV)
"""Variables a client keeps from the test process: none configures a client, and the test-run marker
lets the suite find every process a client starts (process_leaks.py)."""
NO_PROXY = "127.0.0.1,localhost"


@dataclass(frozen=True)
class Place:
    """Where one session lives: a HOME, a project directory, and the gateway workspace import fills."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def workspace(self) -> Path:
        return self.root / "gateway-home"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def make(self) -> Place:
        for directory in (self.home, self.project, self.logs):
            directory.mkdir(parents=True, exist_ok=True)
        return self


def base_environment(place: Place, proxy_url: str) -> dict[str, str]:
    """The environment every client runs in: scratch HOME and temp, offline through the refusing proxy."""
    env = {name: os.environ[name] for name in INHERITED if name in os.environ}
    tmp = place.root / "tmp"
    tmp.mkdir(exist_ok=True)
    proxies = dict.fromkeys(("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY"), proxy_url)
    return env | proxies | {"NO_PROXY": NO_PROXY, "no_proxy": NO_PROXY, "HOME": str(place.home), "TMPDIR": str(tmp)}


def merged(*layers: Mapping[str, str]) -> dict[str, str]:
    result: dict[str, str] = {}
    for layer in layers:
        result.update(layer)
    return result
