"""Seconds per step, the one timer of the engine, the metrics and the workflows (reported in ``timings_s``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def timed(timings: dict[str, float], step: str) -> Iterator[None]:
    """Record in ``timings[step]`` the seconds the ``with`` block takes."""
    start = time.perf_counter()
    yield
    timings[step] = time.perf_counter() - start
