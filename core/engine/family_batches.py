"""Linked tables dealt to batches by family (SPEC 10 and 12): a family, a parent with its children and their own
children, is never split across batches.

Each table is read one column at a time (:meth:`~core.engine.sources.TableInput.read_column`, as
:func:`~core.engine.io.read_table` reads it) into its own Arrow file (:func:`read_raw_column`), then dealt top down
(:func:`deal_table`): a table without a parent by its row number (:func:`~core.engine.batches.deal`, the single
table's rule), each child row to its parent's batch, a child without a parent by its own row number. A table has
one parent at most: the parent of a table of several could sit in another batch than its other parent.

A batch is then the rows of every table dealt to it (:func:`~core.engine.batches.stage_rows`,
:func:`~core.engine.batches.read_batch`), read exactly as the tables' files are read: with one batch, every
table is its file.

The avatars of the batches get new identifiers numbered one after the other (:func:`renumbered`): each batch's
numbered after those of the batches before it, in the form read on the whole column, and each foreign key its
parent's new key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from core.dataset import Dataset, Kind
from core.dataset.table import Column
from core.dataset.keys import (
    ORPHANS_LOOKED_AT,
    Unparented,
    check_exact_keys,
    check_primary_key,
    exact_in_arrow,
    key_texts,
    unparented,
    written_apart,
)
from core.dataset.links import Link
from core.engine.batches import deal
from core.engine.identifiers import IdentifierForm
from core.engine.schema import IDENTIFIER_SHARE, check_finite, detect_kind
from core.engine.sources import GROUP_ROWS, TableInput, TypedColumns, column_file, write_arrow
from core.errors import InputError
from core.i18n import _

_BATCH_STREAM = 0xFA3B1  # the batches' seeds' own stream of the run's seed


@dataclass(frozen=True)
class DealtTable:
    """A table dealt to the batches: the rows each batch got, and its children without a parent (None: all have
    one, or it has no parent)."""

    counts: tuple[int, ...]
    unparented: Unparented | None


@dataclass(frozen=True)
class RawColumn:
    """A column read whole into its Arrow file: the rows of each group, and its kind decided on the whole table
    when batches could decide it otherwise (:func:`whole_kind`)."""

    group_rows: tuple[int, ...]
    kind: Kind | None


def read_raw_column(table: TableInput, position: int, folder: Path, where: str) -> RawColumn:
    """Column ``position`` of ``table`` read whole as :func:`~core.engine.io.read_table` reads it, written to its
    Arrow file in ``folder``. ``where`` names the table in a refusal."""
    name = table.columns[position]
    column = table.read_column(name).to_frame()
    if pd.api.types.is_float_dtype(column[name]):  # refused on the table's rows: a batch's would be misnumbered
        try:
            check_finite(column[name], name)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
    try:
        arrow = pa.Table.from_pandas(column, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        raise InputError(_("{where}, column '{column}': its values are of several types (numbers and texts); write "
                           "them alike.").format(where=where, column=name)) from None
    return RawColumn(tuple(write_arrow(arrow, column_file(folder, position), GROUP_ROWS)), whole_kind(column[name]))


def whole_kind(column: pd.Series) -> Kind | None:
    """The kind of a column of numbers decided on every row (:func:`~core.engine.schema.detect_kind`: at most
    ``CODE_MAX_DISTINCT`` whole values are codes, and a batch holds fewer values than the table), for every batch
    to read it alike; None for the others, decided alike in every batch from their values' form, and for a column
    that looks like an identifier (new values of its form, decided in each batch)."""
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return None
    values = column.dropna()
    if values.empty or values.nunique() >= IDENTIFIER_SHARE * len(values):
        return None
    return detect_kind(column)


def with_whole_kinds(dataset: Dataset, kinds: Mapping[str, Mapping[str, Kind]]) -> Dataset:
    """``dataset`` with each table's columns of numbers given their ``kinds`` decided on the whole table, but for
    the columns the schema describes or names (keys, foreign keys, a series' time)."""
    for name, table in dataset.tables.items():
        named = {*table.named_columns, *(link.foreign_key for link in dataset.parent_links(name))}
        columns = {column: Column(kind=kind) for column, kind in kinds[name].items() if column not in named}
        dataset = dataset.with_table(replace(table, columns={**table.columns, **columns}))
    return dataset


def dealt_file(folder: Path, name: str) -> Path:
    """The batch of each row of table ``name``."""
    return folder / f"dealt-{name}.npy"


def deal_table(dataset: Dataset, name: str, columns: Mapping[str, TypedColumns], seed: int, n_batches: int,
               folder: Path) -> DealtTable:
    """Each row of table ``name`` dealt to a batch (its parent's, dealt before it, else by its row number), saved to
    :func:`dealt_file`; its primary key checked on the whole table. The keys are read as Arrow holds them: tens of
    millions of Python texts took gigabytes."""
    table, own = dataset.tables[name], columns[name]
    if table.primary_key:
        _check_primary_key(name, table.primary_key, own.arrow(table.primary_key))
    batches = deal(seed, 0, own.n_rows, n_batches)
    unparented = None
    for link in dataset.parent_links(name)[:1]:  # one at most (check_family_tree)
        rows, unparented = parent_rows(link, own.arrow(link.foreign_key), columns[link.parent].arrow(link.key))
        placed = rows >= 0
        batches[placed] = np.load(dealt_file(folder, link.parent))[rows[placed]]
    np.save(dealt_file(folder, name), batches, allow_pickle=False)
    return DealtTable(tuple(np.bincount(batches, minlength=n_batches).tolist()), unparented)


def parent_rows(link: Link, foreign: pa.ChunkedArray, keys: pa.ChunkedArray) -> tuple[np.ndarray, Unparented | None]:
    """:func:`~core.engine.linked_tables.parent_rows_of` and :func:`~core.dataset.keys.unparented_of` on the
    child's ``foreign`` keys and the parent's ``keys`` in Arrow (the same rows and counts, tested): the row of each
    child's parent, -1 without one, and the children without a parent."""
    if pa.types.is_floating(foreign.type):
        check_exact_keys(link, pc.max(pc.abs(foreign)).as_py())
    texts = key_texts(foreign)
    parents = key_texts(keys).combine_chunks()
    found = pc.index_in(texts, options=pc.SetLookupOptions(parents, skip_nulls=True))
    rows = found.fill_null(-1).to_numpy()
    missing = texts.null_count
    orphans = int(np.count_nonzero(rows < 0)) - missing

    def example() -> tuple[str, str] | None:
        unfound = pc.and_(pc.is_valid(texts), pc.is_null(found))
        return written_apart(pc.filter(texts, unfound).slice(0, ORPHANS_LOOKED_AT).to_pandas(), parents.to_pandas())

    return rows, unparented(link, missing, orphans, len(foreign), example)


def _check_primary_key(table: str, column: str, values: pa.ChunkedArray) -> None:
    """:func:`~core.dataset.keys.check_primary_key`, counted in Arrow for texts and whole numbers; the column turned
    to Python values only to word a refusal, or for another type."""
    if not exact_in_arrow(values.type) or values.null_count or pc.count_distinct(values, mode="only_valid").as_py() < len(values):
        check_primary_key(table, column, values.to_pandas())


def check_family_tree(dataset: Dataset) -> None:
    """Every table with one parent at most: a family is then a tree, kept whole in its batch."""
    for name in dataset.tables:
        parents = dataset.parent_links(name)
        if len(parents) > 1:
            raise InputError(_(
                "Table '{table}' has several parents ({parents}): in batches each family is dealt whole with its "
                "one parent, so a table of several cannot be dealt yet; avatarize these tables without "
                "--batch-rows, or keep one of its links."
            ).format(table=name, parents=", ".join(link.parent for link in parents)))


def batch_seed(seed: int, batch: int) -> int:
    """The seed of batch ``batch``'s linked run: the run's own for batch 0 (one batch is the run in memory), else
    drawn from the run's seed and the batch."""
    if batch == 0:
        return seed
    return int(np.random.SeedSequence([seed, _BATCH_STREAM, batch]).generate_state(1)[0])


def renumbered(dataset: Dataset, avatars: Mapping[str, pd.DataFrame], identifiers: Mapping[str, list[str]],
               forms: Mapping[tuple[str, str], IdentifierForm], first: Mapping[str, int], totals: Mapping[str, int]
               ) -> dict[str, pd.DataFrame]:
    """One batch's ``avatars`` with new identifiers numbered after the ``first`` of the batches before it (among
    ``totals``) in each column's whole-table ``forms``, and each foreign key its parent's new key."""
    made: dict[str, pd.DataFrame] = {}
    keys: dict[tuple[str, str], pd.Series] = {}
    for name in dataset.top_down():
        frame = avatars[name].copy()
        for column in identifiers[name]:
            new = forms[name, column].new_values(len(frame), first[name], totals[name]).to_numpy()
            keys[name, column] = pd.Series(new, index=pd.Index(frame[column]))
            frame[column] = new
        for link in dataset.parent_links(name):
            if (link.parent, link.key) in keys:
                frame[link.foreign_key] = frame[link.foreign_key].map(keys[link.parent, link.key])
        made[name] = frame
    return made
