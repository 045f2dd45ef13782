"""Memory a daemon freed goes back to the system: large blocks are allocated apart from the heap.

glibc's malloc serves a block of at least its mmap threshold (128 KiB) with a mapping of its own, returned to the
system when freed, but it raises that threshold to the size of each such block freed, up to 32 MiB: after one
10 MB result the next ones come from the heap and its arenas, whose freed space a long-lived daemon keeps.
Measured with `python -m benchmarks.fairness`: the shared daemon kept 44 MB after three 10 MB results and three
50 MB lines; fixing the threshold, 10 MB (and the other sessions' echo p99 during the load fell by a third).
Setting the threshold explicitly stops glibc from adjusting it. Elsewhere (macOS, musl) this does nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys

M_MMAP_THRESHOLD = -3
"""glibc's mallopt parameter (malloc.h)."""
MMAP_THRESHOLD_BYTES = 128 * 1024


def allocate_large_blocks_apart() -> None:
    """Keep large blocks out of the heap for the life of the process, where the C library allows it."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        mallopt = ctypes.CDLL(None).mallopt
        mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        mallopt.restype = ctypes.c_int
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
