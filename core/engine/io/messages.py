"""The sentences every reader of a table shares: an empty file, an error's first line."""

from __future__ import annotations

from core.i18n import _


def empty_message(file_name: str) -> str:
    return _("{file_name} is empty: choose a file with a header row and at least one data row.").format(
        file_name=file_name)


def first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
