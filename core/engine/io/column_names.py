"""A table's header as read: names stripped, an empty cell named ``column_N``, duplicates refused."""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import InputError
from core.i18n import _


def name_columns(names: Sequence[str | None], file_name: str) -> list[str]:
    """Strip names, name empty header cells ``column_N`` and refuse duplicates."""
    named = [(name or "").strip() or f"column_{position}" for position, name in enumerate(names, start=1)]
    check_column_names(named, file_name)
    return named


def check_column_names(names: list[str], file_name: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(
                _("{file_name} has two columns named '{name}': rename one of them so that every column name is "
                  "unique.").format(file_name=file_name, name=name)
            )
        seen.add(name)
