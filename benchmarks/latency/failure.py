"""Why a latency run could not measure: its own error, or the errors inside the task groups that raised,
with the last lines the servers and gateways wrote to stderr while that stderr still exists."""

from __future__ import annotations

from pathlib import Path
from typing import cast

STDERR_LINES_SHOWN = 10


class BenchError(Exception):
    """The benchmark could not measure what it set out to (a server missing, a wrong result)."""


def leaf_messages(error: BaseException) -> list[str]:
    """The errors inside (nested) exception groups, as task groups raise them."""
    if isinstance(error, BaseExceptionGroup):
        group = cast(BaseExceptionGroup[BaseException], error)
        return [message for inner in group.exceptions for message in leaf_messages(inner)]
    return [str(error) if isinstance(error, BenchError) else f"{type(error).__name__}: {error}"]


def failure(error: Exception, stderr_log: Path) -> str:
    stderr = stderr_log.read_text(errors="replace").splitlines()[-STDERR_LINES_SHOWN:]
    shown = "".join(f"\n  {line}" for line in stderr)
    return "; ".join(leaf_messages(error)) + (
        f"\nlast lines the servers and gateways wrote to stderr:{shown}" if shown else ""
    )
