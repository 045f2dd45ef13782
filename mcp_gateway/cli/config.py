"""`config path`, `check`, `reload`, `enable SERVER` and `disable SERVER`: the config file, and the servers of
running gateways.

A serving gateway applies every saved edit of config.json by itself within a second (`service/live_config.py`),
so these commands never signal a gateway: `enable` and `disable` edit the file (`service/switching.py`) and
the running gateways pick the edit up as they would a person's, and `reload` checks the file as they will
read it and says what they will do with it. `path` prints only the path on stdout, so it can be used in `$(…)`.
"""

from __future__ import annotations

import argparse
import sys

from mcp_gateway.cli.context import load
from mcp_gateway.service.home import config_path, ensure_config_file
from mcp_gateway.service.live_config import CONFIG_POLL_SECONDS
from mcp_gateway.service.switching import set_disabled
from mcp_gateway.wording import counted

CONFIG_HAS_ERRORS = 1


def run(args: argparse.Namespace) -> int:
    if args.config_command == "path":
        path, created = ensure_config_file(args.home)
        if created:
            print(f"mcp-gateway: created {path} from the template (no servers yet)", file=sys.stderr)
        print(path)
        return 0
    if args.config_command in ("enable", "disable"):
        return _switch(args, disabled=args.config_command == "disable")
    config = load(args)  # its diagnostics go to stderr; a file that is not usable at all raises (exit 2)
    if args.config_command == "check":
        counts = (
            f"{counted(len(config.enabled_servers), 'enabled server')}, {len(config.rejected)} invalid, "
            f"{counted(len(config.diagnostics), 'diagnostic')}"
        )
        print(f"{config.path}: {counts}")
        return CONFIG_HAS_ERRORS if config.errors else 0
    enabled = config.enabled_servers
    disabled = [name for name, server in config.servers.items() if server.spec.disabled]
    print(f"{config.path}: {counted(len(enabled), 'enabled server')}{': ' + ', '.join(enabled) if enabled else ''}")
    if disabled:
        print(f"disabled: {', '.join(disabled)}")
    if config.errors:
        print(
            f"{counted(len(config.errors), 'error')} (above): a running gateway keeps serving its last good config "
            "until they are fixed; run `mcp-gateway config check` after each fix",
            file=sys.stderr,
        )
        return CONFIG_HAS_ERRORS
    print(
        f"Running gateways of this workspace apply it within {CONFIG_POLL_SECONDS:g}s of each save (no restart): "
        "new servers are listed, removed or disabled ones stop once their calls end, changed ones restart on "
        "their next call."
    )
    return 0


def _switch(args: argparse.Namespace, *, disabled: bool) -> int:
    switched = set_disabled(config_path(args.home), args.server, disabled)
    state = "disabled" if disabled else "enabled"
    if not switched.changed:
        print(f"{switched.server}: already {state} in {switched.path}; nothing written")
        return 0
    then = "stop it once its calls in flight end" if disabled else "list it and start it on its first call"
    print(f"{switched.server}: {state} in {switched.path}; running gateways {then} (within {CONFIG_POLL_SECONDS:g}s)")
    return 0
