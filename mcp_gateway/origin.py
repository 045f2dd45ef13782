"""A session's origin: the environment and working directory a gateway session was started with.

A standalone gateway has one origin, its own (`Origin.of_this_process`). A shared daemon serves many sessions,
each from the terminal, project and environment of the client that started its front (`front.hello` carries
them), and a server's `${VAR}`s, its inherited environment and its working directory come from the session
that uses it, as they would in a gateway that session's client had started itself
(`downstream/definitions.py` resolves a server for an origin). An origin is a value: frozen, compared by
identity (each session has its own, and the pool caches what it resolved for it while the session lives).
`session` is an opaque label for status ("which sessions use this process"), never used to decide anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

OWN_SESSION = "gateway"
"""The label of a gateway's own origin: its standalone client, or the daemon's background work."""


@dataclass(frozen=True, eq=False)
class Origin:
    environ: Mapping[str, str] = field(repr=False)
    """The session's whole environment (read-only); never printed: it holds the session's secrets."""
    cwd: str
    """The session's working directory, absolute."""
    session: str = OWN_SESSION

    @classmethod
    def of(cls, environ: Mapping[str, str], cwd: str, session: str = OWN_SESSION) -> Origin:
        """An origin holding its own read-only copy of `environ`."""
        return cls(MappingProxyType(dict(environ)), cwd, session)

    @classmethod
    def of_this_process(cls, environ: Mapping[str, str] | None = None) -> Origin:
        """This process's origin: `environ` (default `os.environ`) and its working directory."""
        return cls.of(os.environ if environ is None else environ, os.getcwd())
