"""One table of a dataset: where it is, its primary key, the role, kind and weight the user gave its columns, and
the parameters of its synthesis that differ from the run's (SPEC 12: a table takes every option of ``avatarize``
that concerns one table)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.dataset.relations.asked import RelationsAsked
from core.dataset.roles import Kind, Role
from core.errors import InputError
from core.i18n import _


@dataclass(frozen=True)
class Column:
    """What the user said of one column: its role, its kind (None: detected) and its weight in the projection (None:
    one variable's)."""

    role: Role = Role.SYNTHESIZED
    kind: Kind | None = None
    weight: float | None = None


@dataclass(frozen=True)
class Table:
    """A table: ``path`` as written in the schema (relative to its folder) or None for a table given in memory;
    ``individual_level``: one row per person (None: decided by the links, true for a table without a parent);
    ``columns``: the columns the user described (the others are synthesized, their kind detected);
    ``parameters``: this table's values of the engine's parameters (``k``, ``ncp``...), checked by the engine;
    ``relations``: what the synthesis keeps of the relations between its columns (issue 30: by default every one
    found exact on the originals)."""

    name: str
    path: str | None = None
    primary_key: str | None = None
    time: str | None = None
    individual_level: bool | None = None
    relations: RelationsAsked = RelationsAsked()
    columns: Mapping[str, Column] = field(default_factory=dict)
    parameters: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def described(cls, name: str, *, roles: Mapping[str, Role] | None = None, kinds: Mapping[str, Kind] | None = None,
                  weights: Mapping[str, float] | None = None, **entries: object) -> Table:
        """The table whose columns have these ``roles``, ``kinds`` and ``weights`` (each column once, in the order
        named); ``entries``: the table's other fields (``path``, ``primary_key``, ``parameters``...)."""
        roles, kinds, weights = roles or {}, kinds or {}, weights or {}
        columns = {column: Column(role=roles.get(column, Role.SYNTHESIZED), kind=kinds.get(column),
                                  weight=weights.get(column)) for column in dict.fromkeys([*roles, *kinds, *weights])}
        return cls(name, columns=columns, **entries)  # type: ignore[arg-type]

    def with_role(self, role: Role) -> list[str]:
        """The columns the user gave ``role``, in the order described."""
        return [name for name, column in self.columns.items() if column.role is role]

    def with_column_role(self, name: str, role: Role) -> Table:
        """This table with the column ``name`` given ``role`` (its kind and weight kept)."""
        column = replace(self.columns.get(name, Column()), role=role)
        return replace(self, columns={**self.columns, name: column})

    @property
    def keys(self) -> list[str]:
        """The columns that get new values of their form, decided before any kind: the primary key and the
        identifiers."""
        return [*([self.primary_key] if self.primary_key else []), *self.with_role(Role.IDENTIFIER)]

    @property
    def column_kinds(self) -> dict[str, str]:
        return {name: column.kind.value for name, column in self.columns.items() if column.kind is not None}

    @property
    def column_weights(self) -> dict[str, float]:
        return {name: column.weight for name, column in self.columns.items() if column.weight is not None}

    @property
    def named_columns(self) -> dict[str, str]:
        """Every column the description names, with what names it (for a message when the data lack one)."""
        named = {name: f"columns.{name}" for name in self.columns}
        named |= {name: "ignored_relations" for name in self.relations.ignored if name not in named}  # issue 47
        if self.time:
            named[self.time] = "time"
        if self.primary_key:
            named[self.primary_key] = "primary_key"
        return named

    def resolved_path(self, folder: Path | None) -> Path | None:
        """The table's file, relative to the schema's ``folder``."""
        if self.path is None:
            return None
        try:
            path = Path(self.path).expanduser()
        except RuntimeError:  # issue 47: "~nosuchuser/x.csv" was a traceback
            raise InputError(_("Table '{table}': the path '{path}' starts with the home folder of a user this computer "
                               "does not know: write the folder in full.").format(table=self.name, path=self.path)
                             ) from None
        return path if path.is_absolute() or folder is None else folder / path
