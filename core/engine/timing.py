"""Seconds per step, the one timer of the engine, the metrics and the workflows (reported in ``timings_s``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def timed(timings: dict[str, float], step: str, *, added: bool = False) -> Iterator[None]:
    """Record in ``timings[step]`` the seconds the ``with`` block takes (``added``: to those of its earlier passes, a
    step made of several blocks)."""
    start = time.perf_counter()
    yield
    timings[step] = (timings.get(step, 0.0) if added else 0.0) + time.perf_counter() - start
