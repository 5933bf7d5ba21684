"""The rules of SPEC 12 that need the data: every column the schema names is in its table, a primary key is
unique and never missing; children without a parent (a missing foreign key, or an orphan: a value no parent has)
are counted, not refused. And, without a schema, the keys and links the data suggest: a primary key is a column
whose name says it is an identifier, unique and never missing; a link, a column whose name matches a table's
primary key and whose values lie among its (at least ``LINK_CONTAINED_SHARE``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from core.dataset.dataset import Dataset
from core.dataset.links import Link, LinkMethod
from core.errors import InputError
from core.i18n import _, ngettext, number, percent

ID_NAME = re.compile(r"(^|[^a-z])(id|ids|identifier|uuid)($|[^a-z])|id$|^id", re.IGNORECASE)
LINK_CONTAINED_SHARE = 0.95
_EXACT_FLOATS = 2**53  # the whole numbers a float64 holds exactly lie below this
_SHOWN_VALUES = 3
ORPHANS_LOOKED_AT = 100_000
_LEADING_ZEROS = r"(?<![\d.,])0+(?=\d)"  # the zeros a number starts with: 007, P052 (not 0 alone, nor 1.05)


@dataclass(frozen=True)
class Unparented:
    """The children of ``link`` without a parent: ``missing`` foreign keys and ``orphans`` (a value no parent
    has), among ``rows`` children."""

    link: Link
    missing: int
    orphans: int
    rows: int
    written_apart: tuple[str, str] | None = None  # an orphan's key and the parent's it equals but for spaces and zeros

    @property
    def count(self) -> int:
        return self.missing + self.orphans

    @property
    def message(self) -> str:
        return _(
            "Table '{table}', column '{column}': {count} of {rows} rows ({share}) have no '{parent}' ({missing} "
            "missing, {orphans} whose value no '{parent}' row has); the avatars keep the same share of children "
            "without a parent."
        ).format(table=self.link.child, column=self.link.foreign_key, count=number(self.count, ","),
                 rows=number(self.rows, ","), share=percent(100 * self.count / self.rows), parent=self.link.parent,
                 missing=number(self.missing, ","), orphans=number(self.orphans, ",")) + (" " + _(
            "Some are written apart from their parent's key only by spaces or leading zeros ('{child}' and "
            "'{parent}'): write the keys the same way in both tables."
        ).format(child=self.written_apart[0], parent=self.written_apart[1]) if self.written_apart else "")


def check_keys(dataset: Dataset, frames: Mapping[str, pd.DataFrame]) -> list[Unparented]:
    """The rules on the data of every table (``frames`` by table name); the links with children without a
    parent (a time series' measure without its person refused)."""
    check_named_columns(dataset, {name: [str(column) for column in frame.columns] for name, frame in frames.items()})
    for name, table in dataset.tables.items():
        if table.primary_key:
            check_primary_key(name, table.primary_key, frames[name][table.primary_key])
        if table.time and frames[name][table.time].isna().all():  # issue 47: "reads as categories"
            raise InputError(_("Table '{table}', column '{column}': the time of a series has no value on any row; "
                               "fill it with each measure's time, or take \"time\" out of the table's entry if the "
                               "table is not a time series.").format(table=name, column=table.time))
    found = (unparented_of(link, frames[link.child][link.foreign_key], frames[link.parent][link.key])
             for link in dataset.links)
    return [unparented for unparented in found if unparented is not None]


def check_named_columns(dataset: Dataset, columns: Mapping[str, Sequence[str]]) -> None:
    """Every column the schema names (a key, a foreign key, a column's kind or role) among its table's
    ``columns``, else one line naming it."""
    for name, table in dataset.tables.items():
        named = {**table.named_columns, **{link.foreign_key: _("the foreign key of the link from '{parent}'").format(
            parent=link.parent) for link in dataset.parent_links(name)}}
        for column, what in named.items():
            if column not in columns[name]:
                raise InputError(_(
                    "Table '{table}', column '{column}' ({what}): the table has no such column; check its spelling "
                    "(its columns: {columns})."
                ).format(table=name, column=column, what=what, columns=_listed(list(columns[name]))))


def unparented_of(link: Link, foreign: pd.Series, keys: pd.Series) -> Unparented | None:
    """The children of ``link`` without a parent (their foreign keys ``foreign``, the parents' ``keys``), or None
    when every child has one; refused in one line when the keys cannot be compared or a time series' measure has
    no person."""
    if pd.api.types.is_float_dtype(foreign):
        check_exact_keys(link, foreign.abs().max())
    present = foreign.notna()
    known = key_values(foreign[present]).isin(key_values(keys))
    orphans = foreign[present][~known.to_numpy()]
    return unparented(link, int((~present).sum()), len(orphans), len(foreign),
                      lambda: written_apart(orphans.iloc[:ORPHANS_LOOKED_AT], keys))


def check_exact_keys(link: Link, largest: float | None) -> None:
    """Foreign keys of decimals refused when the ``largest`` in magnitude reaches the whole numbers a decimal no
    longer holds exactly."""
    if largest is not None and largest >= _EXACT_FLOATS:
        raise InputError(_(
            "Table '{table}', column '{column}': its keys are whole numbers read as decimals (the column has "
            "empty cells), and from {limit} on a decimal does not hold every digit, so a key would name another "
            "parent; write these keys as text, or fill the empty cells."
        ).format(table=link.child, column=link.foreign_key, limit=number(_EXACT_FLOATS, ",")))


def unparented(link: Link, missing: int, orphans: int, rows: int,
               example: Callable[[], tuple[str, str] | None]) -> Unparented | None:
    """The children of ``link`` without a parent, ``missing`` foreign keys and ``orphans`` among ``rows``, or None;
    a time series' measure without its person refused. ``example`` finds an orphan written apart from its parent's
    key (:func:`written_apart`), asked only when there are orphans."""
    if not (missing or orphans):
        return None
    if link.method is LinkMethod.TIME_SERIES:
        raise InputError(_(
            "Table '{table}', column '{column}': {count} measures name no '{parent}' row ({missing} missing, "
            "{orphans} whose value no '{parent}' row has); a time series is each person's measures: give them "
            "their person or remove them."
        ).format(table=link.child, column=link.foreign_key, count=number(missing + orphans, ","),
                 parent=link.parent, missing=number(missing, ","), orphans=number(orphans, ",")))
    return Unparented(link, missing, orphans, rows, example() if orphans else None)


def written_apart(orphans: pd.Series, keys: pd.Series) -> tuple[str, str] | None:
    """An orphan's key and the parent key it equals once spaces around it and the leading zeros of its numbers are
    set aside (issue 47: `` P1001 `` against ``P1001``, ``00007`` against ``7``, ``P052`` against ``P52`` left every
    child an orphan with no hint why), or None. The first ``ORPHANS_LOOKED_AT`` orphans are enough to find one: a
    table written apart is so on most rows."""
    def loose(values: pd.Series) -> pd.Series:
        return key_values(values).str.strip().str.replace(_LEADING_ZEROS, "", regex=True)

    loose_keys = pd.Series(key_values(keys).to_numpy(), index=loose(keys).to_numpy())
    loose_keys = loose_keys[~loose_keys.index.duplicated()]
    loose_orphans = loose(orphans)
    matched = loose_orphans.isin(loose_keys.index).to_numpy()
    if not matched.any():
        return None
    first = int(matched.argmax())
    return str(key_values(orphans).iloc[first]), str(loose_keys[loose_orphans.iloc[first]])


def check_primary_key(table: str, column: str, values: pd.Series) -> None:
    missing = int(values.isna().sum())
    if missing:
        raise InputError(ngettext(
            "Table '{table}', column '{column}': the primary key is missing on {count} row; a primary key is never "
            "missing (fill it, or choose another primary key).",
            "Table '{table}', column '{column}': the primary key is missing on {count} rows; a primary key is never "
            "missing (fill it, or choose another primary key).", missing,
        ).format(table=table, column=column, count=number(missing, ",")))
    repeated = values[values.duplicated(keep=False)]
    if len(repeated):
        examples = ", ".join(str(value) for value in pd.unique(repeated)[:_SHOWN_VALUES])
        raise InputError(_(
            "Table '{table}', column '{column}': the primary key repeats {count} values ({examples}); a primary key "
            "is unique (choose another, or remove the repeated rows)."
        ).format(table=table, column=column, count=number(repeated.nunique(), ","), examples=examples))


def key_values(values: pd.Series) -> pd.Series:
    """Key values as comparable texts: a whole number read as a decimal (``12.0``, a column with a missing value) is
    the whole number it is (``12``), value by value: a key does not depend on the other rows (a batch's or the
    table's)."""
    if not pd.api.types.is_float_dtype(values):
        return values.astype("string")
    texts = values.astype("string")
    whole = (values.mod(1).eq(0) & values.abs().lt(2**63)).to_numpy()  # NaN and inf are not whole
    texts[whole] = values[whole].astype("int64").astype("string")
    return texts


def key_texts(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """:func:`key_values` of an Arrow column, kept in Arrow: tens of millions of keys in a few hundred MB, where
    Python texts took gigabytes. Texts, whole numbers, and decimals that are all whole numbers are cast as
    :func:`key_values` writes them (tested against it); any other type goes through it."""
    if pa.types.is_floating(values.type) and _all_whole(values):
        try:
            values = values.cast(pa.int64())
        except pa.ArrowInvalid:  # not a number, or beyond int64: as key_values writes them
            pass
    if exact_in_arrow(values.type):
        return values.cast(pa.large_string())
    return pa.chunked_array([pa.array(key_values(values.to_pandas()), type=pa.large_string())])


def exact_in_arrow(kind: pa.DataType) -> bool:
    """Texts and whole numbers: Arrow compares and counts them as pandas does (not decimals: ``-0.0``, ``NaN``)."""
    return pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _all_whole(values: pa.ChunkedArray) -> bool:
    """Every decimal, missing ones apart, a whole number."""
    return pc.all(pc.equal(pc.floor(values), values)).as_py() is not False


def primary_key_candidates(frame: pd.DataFrame) -> list[str]:
    """The columns that could be the table's primary key: named as an identifier, unique, never missing."""
    return [str(name) for name in frame.columns if ID_NAME.search(str(name)) and frame[name].notna().all()
            and frame[name].is_unique]


def proposed_primary_keys(frames: Mapping[str, pd.DataFrame]) -> dict[str, str | None]:
    """Each table's proposed primary key: its first :func:`primary_key_candidates`; without one, a column unique and
    never missing, not of decimals, that another table also has by name (``Cow`` in a table of cows and in their
    weekly measures: a person named without "id", as public longitudinal tables often are); else None."""
    proposed = {}
    for name, frame in frames.items():
        named = primary_key_candidates(frame)
        shared = {str(column) for other, table in frames.items() if other != name for column in table.columns}
        unnamed = [str(column) for column in frame.columns if str(column) in shared and frame[column].notna().all()
                   and frame[column].is_unique and not pd.api.types.is_float_dtype(frame[column])]
        proposed[name] = next(iter(named or unnamed), None)
    return proposed


def proposed_links(frames: Mapping[str, pd.DataFrame], primary_keys: Mapping[str, str]) -> list[Link]:
    """The links the data suggest: a column of a table named as another table's primary key (or ending with it),
    whose values lie among that key's values (at least ``LINK_CONTAINED_SHARE`` of them)."""
    proposed = []
    for parent, key in primary_keys.items():
        parent_values = key_values(frames[parent][key])
        for child, frame in frames.items():
            if child == parent:
                continue
            for column in frame.columns:
                if not _names_match(str(column), key):
                    continue
                values = frame[column].dropna()
                if len(values) and key_values(values).isin(parent_values).mean() >= LINK_CONTAINED_SHARE:
                    proposed.append(Link(parent, key, child, str(column)))
    return proposed


def _names_match(column: str, key: str) -> bool:
    plain = [re.sub(r"[^a-z0-9]", "", name.lower()) for name in (column, key)]
    return bool(plain[1]) and plain[0].endswith(plain[1])


def _listed(columns: list[str]) -> str:
    shown = ", ".join(columns[:10])
    return shown + (", ..." if len(columns) > 10 else "")
