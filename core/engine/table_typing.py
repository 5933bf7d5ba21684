"""The decisions taken on the whole table before any row is synthesised (SPEC section 2 step 1, section 10).

Each column's kind, conversion, profile (warnings) and identifier form depend on that column alone: a table in
memory is typed at once (:func:`type_frame`), a table too large for memory one column at a time
(:func:`type_column`, then :func:`typing_of_columns`), with the same functions, hence the same decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from core.dataset import Kind
from core.dataset.relations import Relation, RelationsAsked
from core.engine.identifiers import IdentifierForm, identifier_columns
from core.engine.kept_relations import KeptRelations
from core.engine.schema import ColumnProfile, WarningKind, apply_kinds, profile_columns, quoted, resolve_kinds
from core.engine.sources import GROUP_ROWS, TableInput, column_file, write_arrow
from core.errors import InputError
from core.i18n import _


@dataclass(frozen=True)
class TableTyping:
    """Every column's kind and profile; the columns set aside (``excluded``, re-attached afterwards) and the
    identifier-like ones that take no part and get new identifiers (``identifiers``); the relations kept
    (``relations``: their derived columns take no part either, see :mod:`core.engine.kept_relations`)."""

    kinds: dict[str, Kind]
    profiles: list[ColumnProfile]
    excluded: list[str]
    identifiers: list[IdentifierForm]
    relations: KeptRelations = field(default_factory=KeptRelations)
    texts: dict[str, Any] = field(default_factory=dict)  # categorical columns given as text: their given dtype

    @property
    def set_apart(self) -> list[str]:
        """The columns that take no part in the synthesis: excluded ones and identifiers."""
        return [*self.excluded, *(form.name for form in self.identifiers)]


def type_frame(
    frame: pd.DataFrame,
    column_kinds: Mapping[str, str] | None,
    exclude: Sequence[str],
    column_weights: Mapping[str, float] | None,
    in_place: bool = False,
    keys: Sequence[str] = (),
    relations: Sequence[Relation] | RelationsAsked = RelationsAsked(),
) -> tuple[pd.DataFrame, TableTyping]:
    """``frame`` typed (``in_place``: its columns replaced one by one), and the decisions on it; ``keys``, the
    table's key columns, are identifiers whatever their kind and profile; ``relations``, those to keep, or what the
    table's description asks of them (by default every one found on the typed columns that take part in the
    synthesis; see :meth:`~core.engine.kept_relations.KeptRelations.of`)."""
    _check_keys(keys, list(frame.columns), exclude, column_weights)
    kinds = resolve_kinds(frame, column_kinds)
    texts = given_texts(frame, kinds)  # before apply_kinds changes them in place
    typed = apply_kinds(frame, kinds, in_place=in_place)
    profiles = profile_columns(typed, kinds)
    excluded = checked_exclusions(exclude, list(typed.columns), column_weights)
    typing = _decided(kinds, profiles, excluded, column_kinds, lambda name: IdentifierForm.of(typed[name]), keys)
    return typed, replace(typing, relations=KeptRelations.of(typed, kinds, typing.set_apart, relations), texts=texts)


def given_texts(frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> dict[str, Any]:
    """The categorical columns of ``frame`` given as text (``object`` or ``str``, not ``category``), with their
    dtype: what the avatars give them back as (:func:`~core.engine.stages.as_text`)."""
    return {name: frame[name].dtype for name, kind in kinds.items() if kind is Kind.CATEGORICAL
            and (frame[name].dtype == object or pd.api.types.is_string_dtype(frame[name].dtype))
            and not isinstance(frame[name].dtype, pd.CategoricalDtype)}


@dataclass(frozen=True)
class ColumnTyping:
    """One column's kind and profile, its identifier form when it looks like an identifier, and the rows of each
    row group of its typed file."""

    kind: Kind
    profile: ColumnProfile
    identifier: IdentifierForm | None
    group_rows: tuple[int, ...]
    text: Any = None  # its given dtype when it is a categorical given as text (see given_texts)


def type_column(table: TableInput, position: int, column_kinds: Mapping[str, str] | None,
                folder: Path) -> ColumnTyping:
    """Column ``position`` of ``table`` read whole, typed as :func:`type_frame` types it, written to its typed
    file in ``folder`` (:func:`~core.engine.sources.column_file`)."""
    name = table.columns[position]
    frame = table.read_column(name).to_frame()
    kinds = resolve_kinds(frame, {name: column_kinds[name]} if column_kinds is not None and name in column_kinds
                          else None)
    text = given_texts(frame, kinds).get(name)
    typed = apply_kinds(frame, kinds, in_place=True)
    profile = profile_columns(typed, kinds)[0]
    looks_like_identifier = any(warning.kind is WarningKind.IDENTIFIER for warning in profile.warnings)
    sizes = write_arrow(pa.Table.from_pandas(typed, preserve_index=False), column_file(folder, position), GROUP_ROWS)
    return ColumnTyping(kinds[name], profile, IdentifierForm.of(typed[name]) if looks_like_identifier else None,
                        tuple(sizes), text)


def typing_of_columns(
    names: Sequence[str],
    columns: Sequence[ColumnTyping],
    column_kinds: Mapping[str, str] | None,
    exclude: Sequence[str],
    column_weights: Mapping[str, float] | None,
) -> TableTyping:
    """The decisions on a table typed one column at a time (:func:`type_column`)."""
    kinds = dict(zip(names, (column.kind for column in columns), strict=True))
    forms = {name: column.identifier for name, column in zip(names, columns, strict=True)
             if column.identifier is not None}  # the identifiers': each looks like one, so has its form
    excluded = checked_exclusions(exclude, list(names), column_weights)
    typing = _decided(kinds, [column.profile for column in columns], excluded, column_kinds, forms.__getitem__)
    return replace(typing, texts={name: column.text for name, column in zip(names, columns, strict=True)
                                  if column.text is not None})


def check_column_kinds(names: Sequence[str], column_kinds: Mapping[str, str] | None) -> None:
    """Refuse, before any column is read, a kind given to a column the table lacks or a kind that does not
    exist (:func:`~core.engine.schema.resolve_kinds`' checks, on the names alone)."""
    resolve_kinds(pd.DataFrame(columns=list(names)), column_kinds)


def checked_exclusions(exclude: Sequence[str], columns: list[str], column_weights: Mapping[str, float] | None
                       ) -> list[str]:
    """The columns ``exclude_variable_names`` sets aside, checked: in the table, without a weight, not all."""
    if isinstance(exclude, str):
        raise InputError(_("exclude_variable_names must be a list of column names, got the text {text}.").format(
            text=repr(exclude)))
    excluded = [str(name) for name in exclude]
    for name in excluded:
        if name not in columns:
            raise InputError(_(
                "exclude_variable_names names column '{name}', which is not in the table: check its spelling."
            ).format(name=name))
        if name in (column_weights or {}):
            raise InputError(_("column_weights names column '{name}', which is excluded: remove its weight.").format(
                name=name))
    if len(set(excluded)) == len(columns):
        raise InputError(_("exclude_variable_names excludes every column: keep at least one to avatarize."))
    return list(dict.fromkeys(excluded))


def _check_keys(keys: Sequence[str], columns: list[str], exclude: Sequence[str],
                column_weights: Mapping[str, float] | None) -> None:
    """Key columns in the table, neither set aside nor weighted."""
    for name in keys:
        if name not in columns:
            raise InputError(_("The key column '{name}' is not in the table: check its spelling.").format(name=name))
        if name in exclude or name in (column_weights or {}):
            raise InputError(_("The key column '{name}' takes no part in the synthesis: do not set it aside nor "
                               "weight it.").format(name=name))


def _decided(kinds: dict[str, Kind], profiles: list[ColumnProfile], excluded: list[str],
             column_kinds: Mapping[str, str] | None, form_of: Callable[[str], IdentifierForm],
             keys: Sequence[str] = ()) -> TableTyping:
    detected = identifier_columns(profiles, set(column_kinds or {}), set(excluded))
    identifiers = [profile.name for profile in profiles if profile.name in detected or profile.name in keys]
    _check_values(profiles, excluded, identifiers, keys)
    return TableTyping(kinds=kinds, profiles=profiles, excluded=excluded,
                       identifiers=[form_of(name) for name in identifiers])


def _check_values(profiles: list[ColumnProfile], excluded: list[str], identifiers: list[str],
                  keys: Sequence[str] = ()) -> None:
    """The columns to synthesise: at least one, none empty. With none, the advice fits why: a column set aside is
    given back to the synthesis by its role, one that looks like an identifier by a kind (a key never is)."""
    synthesised = [profile for profile in profiles if profile.name not in {*excluded, *identifiers}]
    if not synthesised and excluded and set(identifiers) <= set(keys):
        raise InputError(_(
            "Every column is set aside ({names}): there is nothing to synthesise. Synthesise at least one: drop it "
            "from --exclude on the command line, give it the role \"synthesized\" in a schema, or choose "
            "\"synthesize\" as its role on the Data page."
        ).format(names=", ".join(quoted(name) for name in excluded)))
    if not synthesised:
        names = ", ".join(quoted(name) for name in excluded + identifiers)
        raise InputError(_(
            "Every column is set aside or looks like an identifier ({names}): there is nothing to synthesise. Give "
            "a column a kind (column_kinds, or --column-kind NAME=categorical on the command line) to synthesise it."
        ).format(names=names))
    empty = [profile.name for profile in synthesised if profile.missing_share == 1.0]
    if len(empty) == len(synthesised):
        raise InputError(_("Every value of the table is missing: there is nothing to avatarize."))
    if empty:
        raise InputError(_("Column '{name}' has no values at all: remove it from the table, or exclude it.").format(
            name=empty[0]))
