"""A table's header as read: names stripped, an empty cell named ``column_N`` (both said), duplicates refused."""

from __future__ import annotations

from collections.abc import Sequence

from core.engine.io.said import say
from core.errors import InputError
from core.i18n import _, enumeration

SHOWN_RENAMED = 5  # the renamed columns named in the warning, then "and N more"


def name_columns(names: Sequence[str | None], file_name: str) -> list[str]:
    """Strip names, name empty header cells ``column_N`` and refuse duplicates; a name changed is said (the avatars'
    file is written with the names read)."""
    named = [(name or "").strip() or f"column_{position}" for position, name in enumerate(names, start=1)]
    check_column_names(named, file_name)
    renamed = [f"'{name or ''}' -> '{new}'" for name, new in zip(names, named, strict=True) if name != new]
    if renamed:
        shown = renamed[:SHOWN_RENAMED] + ([_("{count} more").format(count=len(renamed) - SHOWN_RENAMED)]
                                           if len(renamed) > SHOWN_RENAMED else [])
        say(_("{file_name}: column names changed as they were read (the spaces around a name removed, an empty name "
              "replaced by its place, column_N): {renamed}. The avatars' columns have these names.").format(
            file_name=file_name, renamed=enumeration(shown)))
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
