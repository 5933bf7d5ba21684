"""Rows dealt to batches, and each batch's rows set down apart (SPEC section 10).

A row's batch depends on the seed and on its position in the table alone (a counter-based hash, SplitMix64, of
the row number), never on how the input is cut into files or row groups nor on which worker reads it: every
batch gets about ``batch_rows`` rows, drawn at random from the whole table, and keeps them in the table's order.
With one batch every row is in batch 0, in order: the batch is the table.

Each row group's rows are written to one file per batch (:func:`stage_group`, Arrow IPC: typed, no pickle),
so that a batch is read back whole (:func:`read_batch`) without reading the table again. A categorical column is
staged as its codes: its categories, read once from the typed column's own file, are put back as a batch is read
(written into every staged file, a 400 000-value identifier's would be repeated batches x row groups times).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from core.engine.sources import TypedColumns, read_arrow, write_arrow

_DEAL_STREAM = 0xBA7C4  # the dealing's own stream of the seed: no other random step draws it
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


def batch_count(n_rows: int, batch_rows: int) -> int:
    """The number of batches of about ``batch_rows`` rows (``--batch-rows``, checked by the caller) that ``n_rows``
    rows make."""
    return max(1, -(-n_rows // batch_rows))


def deal(seed: int, start: int, n_rows: int, n_batches: int) -> np.ndarray:
    """The batch of rows ``start`` to ``start + n_rows`` of the table: uniform on ``range(n_batches)``, from the
    seed and the row number alone (SplitMix64 of the row number offset by a key drawn from the seed)."""
    if n_batches == 1:
        return np.zeros(n_rows, dtype=np.int64)
    key = np.random.SeedSequence([seed, _DEAL_STREAM]).generate_state(1, dtype=np.uint64)[0]
    with np.errstate(over="ignore"):
        state = key + (np.arange(start, start + n_rows, dtype=np.uint64) + np.uint64(1)) * _GOLDEN
        state = (state ^ (state >> np.uint64(30))) * _MIX_1
        state = (state ^ (state >> np.uint64(27))) * _MIX_2
        state ^= state >> np.uint64(31)
    uniform = (state >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return np.minimum((uniform * n_batches).astype(np.int64), n_batches - 1)


def batch_sizes(seed: int, group_rows: tuple[int, ...], n_batches: int) -> list[int]:
    """The rows each batch gets, dealt row group by row group as :func:`stage_group` deals them: known before any
    row is staged."""
    sizes, start = np.zeros(n_batches, dtype=np.int64), 0
    for rows in group_rows:
        sizes += np.bincount(deal(seed, start, rows, n_batches), minlength=n_batches)
        start += rows
    return sizes.tolist()


def stage_group(columns: TypedColumns, group: int, seed: int, n_batches: int, folder: Path) -> dict[int, int]:
    """Row group ``group``'s rows written to one file per batch under ``folder``, each row dealt by :func:`deal`;
    the rows each batch got."""
    start = columns.group_start(group)
    return stage_rows(columns, group, deal(seed, start, columns.group_rows[group], n_batches), folder)


def stage_rows(columns: TypedColumns, group: int, batches: np.ndarray, folder: Path) -> dict[int, int]:
    """Row group ``group``'s rows written to one file per batch under ``folder``, row ``i`` to batch
    ``batches[i]``; the rows each batch got."""
    frame = columns.read_rows(group)
    for name in frame.columns:
        if isinstance(frame[name].dtype, pd.CategoricalDtype):
            frame[name] = frame[name].cat.codes  # the smallest integer type the categories allow; -1: missing
    counts = {}
    for batch in np.unique(batches):
        rows = frame[batches == batch]
        target = staged_file(folder, int(batch), group)
        target.parent.mkdir(exist_ok=True)  # under the run's folder, which a task left over never makes again
        write_arrow(pa.Table.from_pandas(rows, preserve_index=False), target, len(rows))
        counts[int(batch)] = len(rows)
    return counts


def read_batch(columns: TypedColumns, folder: Path, batch: int) -> pd.DataFrame:
    """Batch ``batch``'s rows, staged under ``folder`` from ``columns``, in the table's order, typed as they are."""
    parts = [read_arrow(path) for group in range(len(columns.group_rows))
             if (path := staged_file(folder, batch, group)).exists()]
    frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    for name, dtype in columns.dtypes().items():
        if isinstance(dtype, pd.CategoricalDtype):
            frame[name] = pd.Categorical.from_codes(frame[name].to_numpy(), dtype=dtype)
    return frame


def staged_file(folder: Path, batch: int, group: int) -> Path:
    return folder / f"batch-{batch:05d}" / f"group-{group:06d}.arrow"

