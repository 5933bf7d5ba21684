"""What reading a file says (a column's name changed, times at several UTC offsets): a warning where nothing
gathers it (the command line prints it in one line), else gathered for the page that shows it. Gathered per
context (:mod:`contextvars`: each thread its own), so that a dashboard session never gathers what another's
reading said, as a global warnings filter swapped by each session's thread would."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_GATHERED: ContextVar[list[str] | None] = ContextVar("gathered_while_reading", default=None)


def say(message: str) -> None:
    """``message`` gathered by the :func:`gathering` around this read, else warned."""
    gathered = _GATHERED.get()
    if gathered is None:
        warnings.warn(message, UserWarning, stacklevel=3)
    elif message not in gathered:
        gathered.append(message)


@contextmanager
def gathering() -> Iterator[list[str]]:
    """What the reads within say, in order, each once (in this context only)."""
    gathered: list[str] = []
    token = _GATHERED.set(gathered)
    try:
        yield gathered
    finally:
        _GATHERED.reset(token)
