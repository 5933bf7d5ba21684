"""Linked tables larger than memory, family by family in batches on Dask (SPEC 10 and 12).

The cluster is :mod:`core.workflows.batch_run`'s (a scheduler's address, else a ``LocalCluster`` of this machine's
cores); every worker reads and writes the work folder (``OUT/.work``).

1. Each column of each table is read whole by one task into its Arrow file
   (:func:`~core.engine.family_batches.read_raw_column`);
2. the tables are dealt to batches top down, families whole (:func:`~core.engine.family_batches.deal_table`),
   about ``batch_rows`` rows of all the tables in each batch, then each row group's rows set down by batch;
3. each batch is avatarized as linked tables in memory are (:class:`~core.engine.dataset_avatarizer.
   DatasetAvatarizer`: its families' holdout, each table's typing and projection on the batch's rows, the
   linkage within the batch) with its own seed (the run's for batch 0: one batch is the run in memory, byte for
   byte);
4. with several batches, the avatars' identifiers are numbered one after the other across the batches (each
   foreign key its parent's new key), then every table's part of each batch written to ``OUT/<table>/``.

Every part, or none: they are made in the work folder and moved into ``OUT`` once all are written; the work folder
goes at the end, whether the run finished or stopped.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from core.dataset import Dataset
from core.dataset.keys import Unparented, check_named_columns
from core.engine.batches import batch_count, read_batch, stage_rows
from core.engine.dataset_avatarizer import DatasetAvatarizer, check_methods, existing_table_path
from core.engine.family_batches import (
    DealtTable,
    RawColumn,
    batch_seed,
    check_family_tree,
    deal_table,
    dealt_file,
    read_raw_column,
    renumbered,
    with_whole_kinds,
)
from core.engine.identifiers import IdentifierForm
from core.engine.io import write_table
from core.engine.link_kinds import named
from core.engine.parameters import PART_FORMATS, Parameters
from core.engine.sources import TableInput, TypedColumns, read_arrow, write_arrow
from core.engine.stages import drawn_seed
from core.errors import InputError
from core.validation import check_seed, check_whole_number
from core.workflows.batch_run import (
    WORK_FOLDER,
    BatchSettings,
    cannot_write,
    dask_client,
    retold,
    run_tasks,
    saying,
    settled_on_failure,
)

if TYPE_CHECKING:
    from dask.distributed import Client

CROWDED = 2  # a batch holding more than this many times --batch-rows is said


@dataclass
class LinkedBatchRun:
    """What a linked batch run made: each table's folder of parts, its rows and avatars; the rows set aside as the
    batches' holdouts; the seed, the batches, the links' children without a parent, the seconds per stage."""

    folders: dict[str, Path]
    rows: dict[str, int]
    avatars: dict[str, int]
    held_out: int
    seed: int
    n_batches: int
    unparented: list[Unparented]
    timings_s: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class _Staged:
    """Where a run's tables are set down: each table's raw columns, and the work folder."""

    dataset: Dataset
    columns: dict[str, TypedColumns]
    work: Path
    n_batches: int
    part_format: str

    def made(self, batch: int, name: str) -> Path:
        return self.work / "made" / f"batch-{batch:05d}" / f"{name}.arrow"

    def part(self, batch: int, name: str) -> Path:
        return self.work / "parts" / name / f"part-{batch:05d}.{self.part_format}"


def avatarize_linked_in_batches(dataset: Dataset, out: Path, params: dict, settings: BatchSettings,
                                say: Callable[[str], None] = lambda line: None) -> LinkedBatchRun:
    """The avatars of the linked tables of ``dataset``, batch by batch with their families whole, each table's
    parts written to ``out/<table>/``; ``params`` the run's :class:`~core.engine.pipeline.Avatarizer` parameters
    (each table's own in the dataset); ``say`` told each stage and each batch finished."""
    if settings.part_format not in PART_FORMATS:
        raise InputError(f"part_format must be one of {', '.join(PART_FORMATS)}, got {settings.part_format!r}.")
    check_whole_number("batch_rows", settings.batch_rows, minimum=2,
                       hint="batch_rows is the rows of one batch, all tables together, for example 1000000.")
    check_family_tree(dataset)
    check_methods(dataset, Parameters.of(params))
    given = check_seed(params.get("seed"))
    params = {**params, "seed": drawn_seed() if given is None else given}
    inputs = {name: _opened(dataset, name) for name in dataset.tables}
    check_named_columns(dataset, {name: table.columns for name, table in inputs.items()})
    work = _work_folder(out)
    timings: dict[str, float] = {}
    with _removed_on_failure(out, work), dask_client(settings.scheduler) as client:
        run = partial(run_tasks, client, out)
        start = time.perf_counter()
        staged, dealt = _dealt(run, dataset, inputs, params["seed"], settings, work)
        timings["dealing"] = time.perf_counter() - start
        rows = {name: columns.n_rows for name, columns in staged.columns.items()}
        say(f"{sum(rows.values()):,} rows of {len(rows)} tables read and dealt by family in "
            f"{timings['dealing']:.1f} s; {staged.n_batches} {'batch' if staged.n_batches == 1 else 'batches'} of "
            f"about {sum(rows.values()) // staged.n_batches:,} rows")
        unparented = [table.unparented for table in dealt.values() if table.unparented is not None]
        crowded = _crowded_batch(dealt, settings.batch_rows)
        if crowded:
            say(f"warning: {crowded}")
        for table in unparented:
            say(f"warning: {table.message}")
        start = time.perf_counter()
        results = _avatarized(client, staged, params, out, say)
        timings["batches"] = time.perf_counter() - start
        _warn_kinds(results, say)
        avatars = {name: sum(result["avatars"][name] for result in results) for name in dataset.tables}
        if staged.n_batches > 1:
            start = time.perf_counter()
            _renumbered_parts(run, staged, results, avatars)
            timings["identifiers"] = time.perf_counter() - start
        folders = _moved_in(staged, out)
    shutil.rmtree(work, ignore_errors=True)
    return LinkedBatchRun(folders, rows, avatars, sum(result["held"] for result in results), params["seed"],
                          staged.n_batches, unparented, timings)


def _opened(dataset: Dataset, name: str) -> TableInput:
    """The file of table ``name``, a CSV or Parquet file (or folder of Parquet files) read by columns."""
    path = existing_table_path(dataset, name)
    with named(name):
        return TableInput.open(str(path))


def _dealt(run: Callable, dataset: Dataset, inputs: Mapping[str, TableInput], seed: int, settings: BatchSettings,
           work: Path) -> tuple[_Staged, dict[str, DealtTable]]:
    """Steps 1 and 2: every column read, the tables dealt top down, each row group set down by batch."""
    names = list(dataset.tables)
    tasks = [(name, position) for name in names for position in range(len(inputs[name].columns))]
    raw = dict(zip(tasks, run(partial(_read_column, inputs, work), tasks), strict=True))
    columns = {}
    for name in names:
        positions = tuple(range(len(inputs[name].columns)))
        columns[name] = TypedColumns(_columns_folder(work, name), inputs[name].columns, positions,
                                     raw[name, 0].group_rows)
    n_batches = batch_count(sum(table.n_rows for table in columns.values()), settings.batch_rows)
    if n_batches > 1:  # one batch is the tables themselves, read as in memory
        dataset = with_whole_kinds(dataset, {name: {inputs[name].columns[position]: column.kind for (table, position),
                                                    column in raw.items() if table == name and column.kind is not None}
                                             for name in names})
    dealt: dict[str, DealtTable] = {}
    for level in _levels(dataset):
        dealt |= dict(zip(level, run(partial(deal_table, dataset, columns=columns, seed=seed, n_batches=n_batches,
                                              folder=work), level), strict=True))
    _check_batches(dataset, dealt)
    staged = _Staged(dataset, columns, work, n_batches, settings.part_format)
    run(partial(_stage, staged), [(name, group) for name in names for group in range(len(columns[name].group_rows))])
    return staged, dealt


def _read_column(inputs: Mapping[str, TableInput], work: Path, task: tuple[str, int]) -> RawColumn:
    name, position = task
    folder = _columns_folder(work, name)
    folder.mkdir(parents=True, exist_ok=True)
    return read_raw_column(inputs[name], position, folder, f"Table '{name}'")


def _columns_folder(work: Path, name: str) -> Path:
    return work / "columns" / name


def _levels(dataset: Dataset) -> list[list[str]]:
    """The tables by depth: those without a parent, then their children, and so on (a level dealt at once)."""
    depth: dict[str, int] = {}
    for name in dataset.top_down():
        depth[name] = max((depth[link.parent] + 1 for link in dataset.parent_links(name)), default=0)
    return [[name for name in depth if depth[name] == level] for level in range(max(depth.values()) + 1)]


def _check_batches(dataset: Dataset, dealt: Mapping[str, DealtTable]) -> None:
    """Every batch with at least two rows of every table (a projection needs two)."""
    for name, table in dealt.items():
        smallest = min(table.counts)
        if smallest < 2:
            batch = table.counts.index(smallest)
            raise InputError(f"--batch-rows is too small: batch {batch + 1} of {len(table.counts)} holds {smallest} "
                             f"{'row' if smallest == 1 else 'rows'} of table '{name}' ({dataset.tables[name].path}). "
                             "Give more rows per batch.")


def _crowded_batch(dealt: Mapping[str, DealtTable], batch_rows: int) -> str | None:
    """The largest batch when its families made it hold over ``CROWDED`` times ``batch_rows`` rows (a family is never
    split: a parent with millions of children is one batch), said with what its worker will hold; else None."""
    rows = np.sum([table.counts for table in dealt.values()], axis=0)
    batch = int(np.argmax(rows))
    if len(rows) == 1 or rows[batch] <= CROWDED * batch_rows:
        return None
    return (f"batch {batch + 1} of {len(rows)} holds {int(rows[batch]):,} rows, {rows[batch] / batch_rows:.1f} times "
            f"--batch-rows: a family is never split, and some are large; the worker that avatarizes it holds that many "
            "rows.")


def _stage(staged: _Staged, task: tuple[str, int]) -> dict[int, int]:
    name, group = task
    columns = staged.columns[name]
    start = columns.group_start(group)
    batches = np.load(dealt_file(staged.work, name), mmap_mode="r")[start:start + columns.group_rows[group]]
    return stage_rows(columns, group, np.asarray(batches), _batches_folder(staged.work, name))


def _batches_folder(work: Path, name: str) -> Path:
    folder = work / "batches" / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _avatarized(client: Client, staged: _Staged, params: dict, out: Path, say: Callable[[str], None]) -> list[dict]:
    """Step 3 on every batch, as the workers free up; a progress line per batch; a part that cannot be written (a
    full disk) one line."""
    from dask.distributed import as_completed

    futures = {client.submit(saying, _avatarize_batch, batch, staged=staged, params=params,
                             key=f"family-batch-{batch:05d}", pure=False): batch for batch in range(staged.n_batches)}
    results: dict[int, dict] = {}
    told: set[str] = set()
    start = time.perf_counter()
    with settled_on_failure(client, futures):
        for future in as_completed(futures):
            batch = futures[future]
            try:
                results[batch], said = future.result()  # a batch's refusal names it
            except OSError as error:
                raise cannot_write(out, error) from None
            retold(said, told)
            say(f"batch {batch + 1} of {staged.n_batches} avatarized, {len(results)} done in "
                f"{time.perf_counter() - start:.0f} s")
    return [results[batch] for batch in range(staged.n_batches)]


def _avatarize_batch(batch: int, *, staged: _Staged, params: dict) -> dict:
    """One batch's linked avatars: its parts (one batch), else its avatars kept for their identifiers' numbering;
    what the numbering and the run's lines need."""
    start = time.perf_counter()
    dataset = staged.dataset
    frames = {name: read_batch(columns, _batches_folder(staged.work, name), batch)
              for name, columns in staged.columns.items()}
    try:
        fitted = DatasetAvatarizer(dataset, Parameters.of({**params, "seed": batch_seed(params["seed"], batch)})
                                   ).fit(frames)
    except InputError as error:
        raise InputError(f"batch {batch + 1} of {staged.n_batches}: {error}") from None
    for name, avatars in fitted.avatars_.items():
        if staged.n_batches == 1:
            target = staged.part(batch, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_table(avatars, target)
        else:
            staged.made(batch, name).parent.mkdir(parents=True, exist_ok=True)
            write_arrow(pa.Table.from_pandas(avatars, preserve_index=False), staged.made(batch, name), len(avatars))
    return {"avatars": {name: len(avatars) for name, avatars in fitted.avatars_.items()},
            "identifiers": {name: _identifiers(dataset, fitted, name) for name in dataset.tables},
            "kinds": {name: {column: kind.value for column, kind in avatarizer.kinds_.items()}
                      for name, avatarizer in fitted.avatarizers_.items()},
            "held": sum(len(frame) for frame in fitted.holdout_data_.values() if frame is not None),
            "seconds": time.perf_counter() - start}


def _identifiers(dataset: Dataset, fitted: DatasetAvatarizer, name: str) -> list[str]:
    """The columns of table ``name`` holding new identifiers: its primary key and the identifier-like columns."""
    primary = dataset.tables[name].primary_key
    made = fitted.avatarizers_[name].identifier_columns_ if name in fitted.avatarizers_ else []
    return list(dict.fromkeys([*([primary] if primary else []), *made]))


def _warn_kinds(results: list[dict], say: Callable[[str], None]) -> None:
    """A column read as another kind in some batches than in the first, said once."""
    for name, kinds in results[0]["kinds"].items():
        for result in results[1:]:
            other = result["kinds"][name]
            column = next((column for column in kinds if other.get(column) != kinds[column]), None)
            if column is not None:
                say(f"warning: Table '{name}', column '{column}' is read as {kinds[column]} in some batches and as "
                    f"{other.get(column)} in others: give its kind in the table's \"columns\" in the schema.")
                break


def _renumbered_parts(run: Callable, staged: _Staged, results: list[dict], avatars: Mapping[str, int]) -> None:
    """Step 4: the identifiers of every batch in their whole column's form, numbered one batch after the other,
    then every part written."""
    identifiers = {name: list(dict.fromkeys(column for result in results for column in result["identifiers"][name]))
                   for name in staged.dataset.tables}
    wanted = [(name, column) for name, columns in identifiers.items() for column in columns]
    forms = dict(zip(wanted, run(partial(_form, staged), wanted), strict=True))
    firsts = [{name: sum(result["avatars"][name] for result in results[:batch]) for name in avatars}
              for batch in range(len(results))]
    run(partial(_write_parts, staged, identifiers, forms, dict(avatars)),
        [(batch, firsts[batch]) for batch in range(len(results))])


def _form(staged: _Staged, task: tuple[str, str]) -> IdentifierForm:
    name, column = task
    return IdentifierForm.of(staged.columns[name].whole([column])[column])


def _write_parts(staged: _Staged, identifiers: Mapping[str, list[str]], forms: Mapping[tuple[str, str], IdentifierForm],
                 totals: dict[str, int], task: tuple[int, dict[str, int]]) -> None:
    batch, first = task
    made = {name: read_arrow(staged.made(batch, name)) for name in staged.dataset.tables}
    for name, frame in renumbered(staged.dataset, made, identifiers, forms, first, totals).items():
        staged.part(batch, name).parent.mkdir(parents=True, exist_ok=True)
        write_table(frame, staged.part(batch, name))


def _moved_in(staged: _Staged, out: Path) -> dict[str, Path]:
    """Every table's parts moved from the work folder into ``out/<table>/``, together."""
    folders = {}
    for name in staged.dataset.tables:
        folders[name] = out / name
        (staged.work / "parts" / name).replace(folders[name])
    return folders


def _work_folder(out: Path) -> Path:
    """``out/.work`` (readable by you only: it holds copies of the real rows), in ``out``, new or empty."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} is a file: with --tables and --batch-rows it is the folder of each table's "
                         "parts. Give a folder.")
    if out.is_dir() and any(out.iterdir()):
        raise InputError(f"--out {out} already holds files: give an empty or new folder.")
    work = out / WORK_FOLDER
    try:
        out.mkdir(parents=True, exist_ok=True)
        work.mkdir(mode=0o700)
    except OSError as error:
        raise InputError(f"--out {out}: cannot write there ({error.strerror}). Choose a folder you can write in.") \
            from None
    return work


@contextmanager
def _removed_on_failure(out: Path, work: Path) -> Iterator[None]:
    """The work folder removed when the run stops, and ``out`` when it holds nothing else: no part is moved in
    before every one is written."""
    try:
        yield
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        if out.is_dir() and not any(out.iterdir()):
            out.rmdir()
        raise
