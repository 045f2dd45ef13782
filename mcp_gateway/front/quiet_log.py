"""Logging for the code a session front shares with the gateway, without importing `logging` in the front.

Importing `logging` costs a front about 7 ms of its start (it brings `traceback`, `string` and more), a tenth of
what a session waits for with its daemon running, and a front configures no logging: its debug lines would go
nowhere. So this logs through `logging` when the process has imported it (every gateway and daemon configures
it before serving), and otherwise writes what is a warning or worse to stderr, as `logging` would unconfigured.
It never imports anything itself, so it is safe to call from a thread that must not import
(`front.client_lines`).
"""

from __future__ import annotations

import sys

DEBUG = 10
WARNING = 30
ERROR = 40
"""`logging`'s own level numbers, which it documents as fixed."""


def log(name: str, level: int, message: str, *args: object) -> None:
    """`logging.getLogger(name).log(level, message, *args)`, where this process uses `logging`."""
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.getLogger(name).log(level, message, *args)
    elif level >= WARNING:
        print(message % args if args else message, file=sys.stderr, flush=True)
