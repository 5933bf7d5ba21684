"""Files that appear whole or not at all: written beside their destination and renamed into place, alone or a set
together (:func:`together`); an output's folder checked before any work."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO

from core.errors import InputError
from core.i18n import _


def check_writable(path: Path, what: str) -> None:
    """Refuse, before any work, an output whose folder cannot take a new file (read-only, full, no permission)."""
    directory = path.parent if str(path.parent) else Path(".")
    if _too_long(path):
        raise InputError(_("{what} {path}: the file name is longer than the 255 bytes a file system takes; choose a "
                           "shorter one (for a table of a schema, a shorter table name).").format(what=what, path=path))
    try:
        handle, probe = tempfile.mkstemp(prefix=_temporary_prefix(path), suffix=".probe", dir=directory)
    except OSError as error:
        raise InputError(_("{what} {path}: cannot write in {directory} ({error}). Choose another path.").format(
            what=what, path=path, directory=directory, error=error.strerror)) from None
    os.close(handle)
    os.unlink(probe)


def _too_long(path: Path) -> bool:
    """Whether ``path``'s name is beyond the 255 bytes a file system takes."""
    return len(os.fsencode(path.name)) > 255


def _temporary_prefix(path: Path) -> str:
    """The name a file written beside ``path`` starts with: its name, cut so that the whole temporary name fits in
    a file system's 255 bytes (issue 47: a 250-character table name was refused for its temporary file's name)."""
    return "." + path.name.encode()[:200].decode(errors="ignore") + "."


_staged: ContextVar[list[tuple[str, Path]] | None] = ContextVar("staged", default=None)


@contextmanager
def together() -> Iterator[None]:
    """The files written inside appear together or not at all: each is written whole beside its destination, and
    only once every one is written are they renamed into place; when one fails (a full disk), none is kept (issue 47:
    a linked run left ``patients.csv`` without its ``stays.csv``). A rename in one folder takes no space, so once
    written they all go in."""
    staged: list[tuple[str, Path]] = []
    token = _staged.set(staged)
    try:
        yield
    except BaseException:
        for temporary, _path in staged:
            Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        _staged.reset(token)
    for position, (temporary, path) in enumerate(staged):
        try:
            os.replace(temporary, path)
        except OSError as error:  # none of the others moved in: theirs were checked as this one (write_atomically)
            for other, _path in staged[position:]:
                Path(other).unlink(missing_ok=True)
            raise OSError(error.errno, error.strerror, str(path)) from error


def write_atomically(write: Callable[[BinaryIO], object], path: Path, private: bool = False) -> None:
    """The file appears whole or not at all: written next to its destination by ``write``, then renamed (inside
    :func:`together`, with the others). Its permissions follow the user's umask, as any file they create
    (``private``: readable by the owner only)."""
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(_("{path}: the folder {directory} does not exist. Create it or choose another output "
                           "path.").format(path=path, directory=directory))
    if _too_long(path):  # refused before any is written, not at the rename (issue 47)
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), str(path))
    if path.is_dir():  # likewise: its rename would fail after the others' had replaced their files
        raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=_temporary_prefix(path), suffix=".partial", dir=directory)
    except OSError as error:  # named by the file wanted, not by its temporary name
        raise OSError(error.errno, error.strerror, str(path)) from error
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
        os.chmod(temporary, 0o600 if private else 0o666 & ~_umask())
        staged = _staged.get()
        if staged is None:
            os.replace(temporary, path)
        else:
            staged.append((temporary, path))
    except OSError as error:  # a full disk, a rename refused: named by the file wanted
        Path(temporary).unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(path)) from error
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
