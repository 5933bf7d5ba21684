"""The process's memory around large reads: Arrow on the C allocator, and what it frees handed back to the system."""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import pyarrow as pa


def use_system_memory_pool() -> None:
    """Make Arrow allocate with the C allocator, process-wide: called by the programs (the command line, the
    dashboard), never on import.

    Arrow's own allocator (mimalloc) keeps what the parser and pandas' text columns free for later use: a
    million-row table left 70 MB held that way. The C allocator's memory goes back with release_freed_memory.
    """
    pa.set_memory_pool(pa.system_memory_pool())


def release_freed_memory() -> None:
    """Hand the memory the C allocator keeps after large frees back to the system (glibc's ``malloc_trim``).

    Reading a file frees several times the table's size in buffers that glibc would
    otherwise keep for the rest of the process. Elsewhere (no glibc) this does nothing.
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _glibc_malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, Windows, musl)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None


_MALLOC_TRIM = _glibc_malloc_trim()
