"""How much memory the engines may take, and giving memory freed by a large scan back.

Arrow's memory pool (mimalloc or jemalloc) and glibc's malloc keep freed pages for reuse
by the same allocator; numpy, Arrow and DuckDB allocate from different ones, so pages one
phase freed can sit beside the next phase's allocations. Measured on a 5 x 10^7-row click
log after the counting scan: 1,097 MB resident, 777 MB once both allocators let go.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os

__all__ = ["CGROUP_LIMIT_FILES", "physical_memory", "release_freed_memory"]


#: where Linux states a container's memory limit (cgroup v2, then v1)
CGROUP_LIMIT_FILES = (
    "/sys/fs/cgroup/memory.max",
    "/sys/fs/cgroup/memory/memory.limit_in_bytes",
)


def _cgroup_limit() -> int | None:
    """This process's cgroup memory limit in bytes, or ``None`` (none set, not Linux)."""
    for name in CGROUP_LIMIT_FILES:
        try:
            with open(name, encoding="ascii") as handle:
                text = handle.read().strip()
        except (OSError, ValueError):
            continue
        if text.isdigit() and int(text) > 0:  # v2 writes "max" when there is none
            return int(text)
    return None


def physical_memory() -> int:
    """Bytes of memory this process may use: the machine's (8 GiB where the system does
    not say), or its container's limit where that is lower (a quarter of the host's
    memory could exceed what a container allows)."""
    try:
        host = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        host = 8 * 2**30
    limit = _cgroup_limit()
    return host if limit is None else min(host, limit)


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or ``None`` (another C library, another system)."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


def release_freed_memory() -> None:
    """Return the pages Arrow's pool and glibc's malloc hold free to the system."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
