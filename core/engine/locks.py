"""One run at a time per output (issue 46): two ``avatarize --batch-rows ... --out OUT/`` at once mixed their parts
and one of them ended on a ``FileNotFoundError``; two ``--tables`` runs into one folder mixed their files, unsaid.

Each output (a file, or a folder of files) is locked while a command writes it: an exclusive ``flock`` on a hidden
``.NAME.lock`` beside it, holding the process number. The system releases a lock when its process ends, however it
ends (Ctrl+C, ``kill -9``): a killed run leaves no lock that stops the next one. A second command on an output in
use is refused in one line, before any work.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from core.errors import InputError


@contextmanager
def output_locks(outputs: Sequence[tuple[str, Path]]) -> Iterator[None]:
    """Every ``(option, path)`` locked for the duration (in the order of their paths, a path named twice once: the
    command refuses that itself), or the command refused."""
    distinct = {str(Path(path).resolve()): (option, Path(path)) for option, path in reversed(list(outputs))}
    with ExitStack() as stack:
        for key in sorted(distinct):
            stack.enter_context(_locked(*distinct[key]))
        yield


@contextmanager
def _locked(option: str, path: Path) -> Iterator[None]:
    parent = path.resolve().parent
    if not parent.is_dir():
        yield  # the command refuses the path itself, naming its folder
        return
    lock = parent / f".{path.name}.lock"
    while True:
        try:
            handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            yield  # a folder that takes no file: the command's own check says so
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 32, 0).decode(errors="replace").strip() or "?"
            os.close(handle)
            raise InputError(f"{option} {path} is being written by another run (process {holder}): wait for it to "
                             "end, or choose another path.") from None
        if _same_file(handle, lock):  # not a lock file another run removed while we opened it
            break
        os.close(handle)
    try:
        os.ftruncate(handle, 0)
        os.pwrite(handle, str(os.getpid()).encode(), 0)
        yield
    finally:
        try:
            lock.unlink()
        except OSError:
            pass
        os.close(handle)


def _same_file(handle: int, path: Path) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(handle).st_ino
    except OSError:
        return False
