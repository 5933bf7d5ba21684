"""Avatars of a table larger than memory, batch by batch on Dask (SPEC section 10).

``dask.distributed`` runs the steps of :mod:`core.engine.batched` on a cluster: one given by its scheduler's
address, else a ``LocalCluster`` of this machine's cores (one single-threaded worker process each, listening on
127.0.0.1, no diagnostics dashboard). Every worker reads and writes the work folder (``OUT/.work``), so it must be
on a file system every worker sees, as the input.

1. Each column is read whole and typed by one task (:func:`~core.engine.table_typing.type_column`);
2. each row group's rows are dealt to the batches (:func:`~core.engine.batches.stage_group`);
3. the decisions on the whole table (:func:`~core.engine.batched.decide`);
4. each batch's avatars are written to their part (``part-00000.parquet`` or ``.csv``) as the batch finishes,
   whole or not at all, and scored against the batch's own holdout half when metrics are asked for.

A batch that fails is named once the others are done (each batch is independent of the others); the parts
finished stay, and the same command run again (same input, seed and settings) keeps them and makes the others.
The work folder goes once every part is written.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import shutil
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.dataset.relations import RelationsAsked
from core.engine.batched import Batches, WholeTable, avatarize_batch, checked_seed, decide
from core.engine.batches import batch_count, batch_sizes, stage_group
from core.engine.io import write_table
from core.engine.kept_relations import KeptRelations
from core.engine.parameters import HOLDOUT_MIN_ROWS, PART_FORMATS, Parameters
from core.engine.projection import Projection
from core.engine.schema import column_warning_lines
from core.engine.sources import TableInput, TypedColumns
from core.engine.split import working_rows
from core.engine.table_typing import (
    TableTyping,
    check_column_kinds,
    checked_exclusions,
    type_column,
    typing_of_columns,
)
from core.errors import InputError
from core.metrics.attack import Knowledge
from core.metrics.batch_summary import batch_summary
from core.metrics.evaluation import evaluate_avatarization
from core.metrics.risk_profile import RiskProfile, risk_profile
from core.validation import check_whole_number

if TYPE_CHECKING:
    from dask.distributed import Client, Future, Worker

WORK_FOLDER = ".work"
WORKER_WAIT_S = 30
SETTLE_POLL_S = 0.2
NO_PROJECT = ("the Dask scheduler or a worker cannot import this project (core): start `dask scheduler` and "
              "`dask worker` from the project's folder with PYTHONPATH set to it.")


@dataclass
class BatchRun:
    """What a batch run made: the parts written, the rows and avatars, the seed, each batch's rows, seconds and
    metrics (when scored) and their summary, the projection of every row, the seconds per stage."""

    parts: list[Path]
    n_rows: int
    n_avatars: int
    seed: int
    rows_per_batch: list[int]
    batches: list[dict]
    latent_sample_rows: int | None  # AvatarFastDP: the rows its bounds were fitted on
    batch_seconds: list[float]  # each batch's avatars (and metrics), on its worker
    projection: Projection  # fitted on every row avatarized, from the batches' statistics summed
    summary: dict | None
    timings_s: dict[str, float] = field(default_factory=dict)
    risk_profile: RiskProfile | None = None  # who the known variables single out among every row (SPEC 6.4)


@dataclass(frozen=True)
class BatchSettings:
    """How to run: rows per batch, the cluster (None: a local one), the parts' format, whether to score each batch,
    what an attacker could know, the columns dropped and the relations asked (found on the whole table, kept in
    every batch)."""

    batch_rows: int
    scheduler: str | None = None
    part_format: str = "parquet"
    scored: bool = False
    knowledge: Knowledge = Knowledge()
    dropped: tuple[str, ...] = ()
    relations: RelationsAsked = RelationsAsked()


def avatarize_in_batches(spec: str, out: Path, params: dict, settings: BatchSettings,
                         say: Callable[[str], None] = lambda line: None) -> BatchRun:
    """The avatars of the table ``spec`` (a CSV or Parquet file, a folder of Parquet files, a glob) made with the
    :class:`~core.engine.pipeline.Avatarizer` parameters ``params``, batch by batch, written to the folder ``out``;
    ``say`` is told each stage and each batch finished."""
    if settings.part_format not in PART_FORMATS:
        raise InputError(f"part_format must be one of {', '.join(PART_FORMATS)}, got {settings.part_format!r}.")
    check_whole_number("batch_rows", settings.batch_rows, minimum=2,
                       hint="batch_rows is the rows of one batch, for example 1000000.")
    seed_given = params.get("seed") is not None
    params = {**params, "seed": checked_seed(Parameters.of(params))}
    table = TableInput.open(spec)
    names = _kept_columns(table, settings.dropped)
    check_column_kinds(names, params.get("column_kinds"))
    checked_exclusions(params.get("exclude_variable_names", ()), names, params.get("column_weights"))
    work, params = _work_folder(out, table, params, settings, seed_given)
    timings: dict[str, float] = {}
    with _cleared_on_failure(out, work), dask_client(settings.scheduler) as client:
        run = partial(run_tasks, client, out)
        start = time.perf_counter()
        typing, typed = _typed_columns(run, table, names, params, work)
        timings["typing"] = time.perf_counter() - start
        n_rows, n_batches = typed.n_rows, batch_count(typed.n_rows, settings.batch_rows)
        say(f"{n_rows:,} rows, {len(names)} columns typed in {timings['typing']:.1f} s; {n_batches} "
            f"{'batch' if n_batches == 1 else 'batches'} of about {n_rows // n_batches:,} rows")
        for line in column_warning_lines(typing.profiles, params.get("column_kinds") or {}, excluded=typing.excluded,
                                         reduced=params.get("use_categorical_reduction")):
            say(f"warning: {line}")
        knowledge = settings.knowledge.checked(typing.kinds)  # a misspelt --known stops here, before any row is dealt
        # what reads whole columns runs on a worker: the client holds no column of the table
        profile = run(partial(_risk_profile, typed, typing, knowledge), [0])[0] \
            if settings.scored and knowledge.known else None
        typing = replace(typing, relations=run(partial(_relations, typed, typing, settings.relations), [0])[0])
        for relation in typing.relations.relations:
            say(f"relation: {relation.line()}")
        start = time.perf_counter()
        sizes = batch_sizes(params["seed"], typed.group_rows, n_batches)
        _check_batches(sizes, params)  # before a row is staged: --batch-rows 2 wrote 2.5 GB before refusing
        _check_space(out, work / "columns")
        run(partial(stage_group, typed, seed=params["seed"], n_batches=n_batches, folder=work / "batches"),
            list(range(len(typed.group_rows))))
        batches = Batches(typed, work / "batches", n_batches)
        whole = decide(Parameters.of(params), WholeTable(typing), batches, run)
        timings["whole table"] = time.perf_counter() - start
        say(f"projection fitted on all {n_rows:,} rows in {timings['whole table']:.1f} s")
        if whole.synthesizer is not None and whole.latent_sample_rows < whole.rows:
            fitted = "clipping bounds and the mixture" if params.get("mechanism") == "gmm" else "clipping bounds"
            say(f"AvatarFastDP: its {fitted} fitted on a random sample of {whole.latent_sample_rows:,} of the "
                f"{whole.rows:,} rows avatarized, its statistics on every row")
        results = _finish_batches(client, out, work, params, settings, whole, batches, sizes, say)
    timings["batches"] = sum(result["seconds"] for result in results)
    shutil.rmtree(work, ignore_errors=True)
    scores = [result["metrics"] for result in results] if settings.scored else []
    assert whole.projection is not None  # fitted by decide
    return BatchRun(parts=[Path(result["part"]) for result in results], n_rows=n_rows,
                    n_avatars=sum(result["avatars"] for result in results), seed=params["seed"],
                    rows_per_batch=[result["rows"] for result in results], batches=scores,
                    latent_sample_rows=whole.latent_sample_rows if whole.synthesizer is not None else None,
                    batch_seconds=[result["seconds"] for result in results], projection=whole.projection,
                    summary=batch_summary(scores) if scores else None, timings_s=timings, risk_profile=profile)


def _typed_columns(run: Callable, table: TableInput, names: list[str], params: dict, work: Path
                   ) -> tuple[TableTyping, TypedColumns]:
    """Step 1: each column read whole and typed by one task, written to its Arrow file; the typing of them all."""
    positions = tuple(table.columns.index(name) for name in names)
    columns = run(partial(type_column, table, column_kinds=params.get("column_kinds"), folder=work / "columns"),
                  list(positions))
    typing = typing_of_columns(names, columns, params.get("column_kinds"), params.get("exclude_variable_names", ()),
                               params.get("column_weights"))
    return typing, TypedColumns(work / "columns", tuple(names), positions, columns[0].group_rows)


def _risk_profile(typed: TypedColumns, typing: TableTyping, knowledge: Knowledge, _task: int) -> RiskProfile:
    """Who the known variables single out among every row (SPEC 6.4), their columns read whole."""
    return risk_profile(typed.whole(list(knowledge.known)), typing.kinds, knowledge.known, dict(knowledge.precision))


def _relations(typed: TypedColumns, typing: TableTyping, asked: RelationsAsked, _task: int) -> KeptRelations:
    """The relations found on the whole table (a sample, and a few columns read whole)."""
    return KeptRelations.of(typed, typing.kinds, typing.set_apart, asked)


def _finish_batches(client: Client, out: Path, work: Path, params: dict, settings: BatchSettings, whole: WholeTable,
                    batches: Batches, sizes: list[int], say: Callable[[str], None]) -> list[dict]:
    """Step 4 on every batch not finished by an earlier run, as the workers free up; a progress line per batch."""
    from dask.distributed import as_completed

    avatars = [_working_rows(size, params) for size in sizes]
    numbering = [(int(sum(avatars[:batch])), int(sum(avatars))) for batch in range(len(sizes))]
    done_folder = work / "done"
    results: dict[int, dict] = {}
    for batch in range(len(sizes)):
        marker = done_folder / f"batch-{batch:05d}.json"
        if marker.exists() and _part(out, batch, settings.part_format).exists():
            results[batch] = json.loads(marker.read_text())
    if results:
        say(f"{len(results)} batches already written by an earlier run with the same settings: kept")
    todo = [batch for batch in range(len(sizes)) if batch not in results]
    task = partial(_avatarize_batch, out=out, params=params, settings=settings, whole=whole, batches=batches)
    futures = {client.submit(saying, task, batch, numbering[batch], key=f"batch-{batch:05d}", pure=False): batch
               for batch in todo}
    told: set[str] = set()
    start, rows_done, rows_todo = time.perf_counter(), 0, sum(sizes[batch] for batch in todo)
    failures: list[tuple[int, BaseException]] = []
    with settled_on_failure(client, futures):  # a failure lets the other batches finish: each one done is kept
        for future in as_completed(futures):
            batch = futures[future]
            if future.status == "error":
                failures.append((batch, future.exception()))
                say(f"batch {batch + 1} of {len(sizes)} failed")
                continue
            result, said = future.result()
            retold(said, told)
            (done_folder / f"batch-{batch:05d}.json").write_text(json.dumps(result, allow_nan=False))
            results[batch] = result
            rows_done += sizes[batch]
            elapsed = time.perf_counter() - start
            left = elapsed / rows_done * (rows_todo - rows_done)
            say(f"batch {batch + 1} of {len(sizes)} written, {len(results)} done: {rows_done:,} of {rows_todo:,} rows "
                f"in {elapsed:.0f} s, about {left:.0f} s left")
    if failures:
        batch, error = min(failures, key=lambda failure: failure[0])
        raise BatchFailed(batch, error, out, len(failures))
    return [results[batch] for batch in range(len(sizes))]


class BatchFailed(InputError):
    """A batch could not be made: which one, why, and that the finished parts are kept for a re-run."""

    def __init__(self, batch: int, error: BaseException, out: Path, count: int = 1):
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        others = f" and {count - 1} other {'batch' if count == 2 else 'batches'}" if count > 1 else ""
        super().__init__(f"batch {batch + 1}{others} failed ({type(error).__name__}: {reason}); the parts finished "
                         f"are kept in {out}: run the same command again to make the others.")


def _avatarize_batch(batch: int, numbering: tuple[int, int], *, out: Path, params: dict, settings: BatchSettings,
                     whole: WholeTable, batches: Batches) -> dict:
    """One batch's avatars written to its part, whole or not at all; its metrics when scored."""
    start = time.perf_counter()
    cache = batches.cache(batch)
    avatarizer = avatarize_batch(Parameters.of(params), batches.rows(batch), batch, whole, cache, numbering)
    cache.clear()
    part = _part(out, batch, settings.part_format)
    write_table(avatarizer.avatars_, part)
    metrics = None
    if settings.scored:
        evaluation = evaluate_avatarization(avatarizer, knowledge=settings.knowledge)
        evaluation.risk_profile = None  # a batch's rows single out fewer people than the table's: the run's, once
        metrics = {**evaluation.to_json(), "timings_s": {**avatarizer.timings_s_, **evaluation.timings_s}}
    return {"part": str(part), "rows": avatarizer.split_.n_total, "avatars": len(avatarizer.avatars_),
            "metrics": metrics, "seconds": time.perf_counter() - start}


def _part(out: Path, batch: int, part_format: str) -> Path:
    return out / f"part-{batch:05d}.{part_format}"


def run_tasks(client: Client, out: Path, function: Callable[[int], object], items: list[int]) -> list:
    """``function`` on every item on the cluster, the results in the items' order, what the tasks said (warnings)
    said again here, once each, as one process says it; a file that cannot be written (a full disk) is one line."""
    futures = client.map(partial(saying, function), items, pure=False)
    try:
        with settled_on_failure(client, futures):
            results = client.gather(futures)
    except OSError as error:
        raise cannot_write(out, error) from None
    except RuntimeError as error:
        if "deserialization" not in str(error):
            raise
        raise InputError(NO_PROJECT) from None
    told: set[str] = set()
    for _result, said in results:
        retold(said, told)
    return [result for result, _said in results]


def saying(function: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """``function(*args, **kwargs)`` in a task, with the user's warnings it gives (a worker would print them raw,
    with its code: :func:`retold` says them in the run); other warnings shown as the worker shows them."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", UserWarning)
        result = function(*args, **kwargs)
    for other in (warning for warning in said if not issubclass(warning.category, UserWarning)):
        warnings.showwarning(other.message, other.category, other.filename, other.lineno)
    return result, [str(warning.message) for warning in said if issubclass(warning.category, UserWarning)]


def retold(said: Iterable[str], told: set[str]) -> None:
    """What a task said (:func:`saying`) said again by the run, as one process says it: each message once."""
    for message in said:
        if message not in told:
            told.add(message)
            warnings.warn(message, UserWarning, stacklevel=3)


@contextmanager
def settled_on_failure(client: Client, futures: Iterable[Future]) -> Iterator[None]:
    """When the run stops (a task's error, an interruption) on a cluster that outlives it (a scheduler's address),
    the tasks not started cancelled and those running waited for: a task still running would write in the work
    folder as it is removed. A local cluster's workers stop with the run."""
    try:
        yield
    except BaseException:
        if client.cluster is None:
            _settle(client, list(futures))
        raise


def _settle(client: Client, futures: list[Future]) -> None:
    keys = {future.key for future in futures}
    client.cancel(futures)
    try:
        while any(client.run(_executing, keys).values()):
            time.sleep(SETTLE_POLL_S)
    except (OSError, TimeoutError):  # the scheduler or a worker gone: nothing of theirs left running to wait for
        pass


def _executing(keys: set, dask_worker: Worker) -> int:
    """How many of ``keys`` run on this worker (a task cancelled while running stays there until it ends)."""
    return sum(task.key in keys for task in dask_worker.state.executing)


def cannot_write(out: Path, error: OSError) -> InputError:
    """A file of the run that cannot be written (a full disk), in one line."""
    return InputError(f"--out {out}: cannot write {error.filename or out} ({error.strerror or error}). Free some space "
                      "there or choose another --out.")


@contextmanager
def dask_client(scheduler: str | None) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler``, else of a local cluster of this machine's cores; Dask's warning
    on the large graphs we send on purpose left out (and its tracebacks when the run is interrupted:
    :func:`_quiet_when_interrupted`)."""
    from dask.distributed import Client, LocalCluster

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
        if scheduler:
            try:
                client = Client(scheduler, timeout="10s")
            except Exception as error:  # refused, unreachable, or something else than Dask answering there
                raise InputError(f"--scheduler {scheduler}: no Dask scheduler answers there ({error}). Start one "
                                 "(dask scheduler), or leave --scheduler out to run on this machine.") from None
            with client, _quiet_when_interrupted():
                _check_workers(client, scheduler)
                yield client
            return
        # the workers' semaphores, released when they stop, are reported as leaked by multiprocessing's tracker
        # process, which reads this at its start: a warning about nothing of the run's, raw on stderr
        os.environ.setdefault("PYTHONWARNINGS", "ignore::UserWarning:multiprocessing.resource_tracker")
        with _quiet_when_interrupted(), LocalCluster(**local_cluster_options(os.cpu_count() or 1)) as cluster, \
                Client(cluster) as client, _quiet_when_interrupted():
            yield client


@contextmanager
def _quiet_when_interrupted() -> Iterator[None]:
    """An interruption (Ctrl+C, SIGTERM) passed on without what Dask says of it as the client and the cluster
    close: asyncio's "Task exception was never retrieved" for each of the client's tasks stopped, and, for a local
    worker stopped while it started, "AssertionError: Status.init" from Dask's closing of its clusters at exit (the
    cluster is closed as the run stops); a traceback each."""
    from distributed.deploy.spec import close_clusters

    try:
        yield
    except KeyboardInterrupt:
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        atexit.unregister(close_clusters)
        raise


def _check_workers(client: Client, scheduler: str) -> None:
    """A worker there, within ``WORKER_WAIT_S``, that imports this project: else the run would wait for ever."""
    import importlib

    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_S)
    except TimeoutError:
        raise InputError(f"--scheduler {scheduler}: no worker joined it within {WORKER_WAIT_S} s. Start one "
                         f"(dask worker {scheduler}) from the project's folder, or leave --scheduler out to run on "
                         "this machine.") from None
    try:
        client.run(importlib.import_module, "core.workflows.batch_run")
    except Exception:  # a worker without the project: ModuleNotFoundError, or its own error about the function
        raise InputError(NO_PROJECT) from None


def local_cluster_options(workers: int, processes: bool = True) -> dict:
    """A ``LocalCluster``'s options: ``workers`` single-threaded workers (processes, or threads of this one), every
    address on 127.0.0.1, no diagnostics dashboard (its HTTP server on a free port of 127.0.0.1, not 8787 for
    all), quiet logs."""

    return {"n_workers": workers, "threads_per_worker": 1, "processes": processes, "host": "127.0.0.1",
            "protocol": "tcp://", "dashboard_address": None, "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"},
            "silence_logs": logging.CRITICAL}  # a batch's error reaches the command as one line


@contextmanager
def _cleared_on_failure(out: Path, work: Path) -> Iterator[None]:
    """The work folder removed (and ``out`` when it holds nothing else) when the run stops before any part is
    written: nothing of it is worth keeping, and a run with corrected settings starts afresh. Once a part exists,
    the work folder stays, for the same command to resume."""
    try:
        yield
    except BaseException:
        if not any(out.glob("part-*")):
            shutil.rmtree(work, ignore_errors=True)
            if out.is_dir() and not any(out.iterdir()):
                out.rmdir()
        raise


def _kept_columns(table: TableInput, dropped: tuple[str, ...]) -> list[str]:
    for name in dropped:
        if name not in table.columns:
            raise InputError(f"--drop names column '{name}', which is not in {table.name}: check its spelling.")
    names = [name for name in table.columns if name not in dropped]
    if not names:
        raise InputError("--drop leaves no column: keep at least one to avatarize.")
    return names


def _working_rows(size: int, params: dict) -> int:
    """The rows a batch of ``size`` rows avatarizes: half with a holdout (SPEC section 5), else all."""
    return working_rows(size, params.get("holdout", True), params.get("holdout_min_rows", HOLDOUT_MIN_ROWS))


def _check_batches(sizes: list[int], params: dict) -> None:
    """Every batch with rows, and large enough for k neighbours."""
    k = params.get("k")
    smallest = min(_working_rows(size, params) for size in sizes)
    if len(sizes) == 1 and k is not None and k >= smallest:
        raise InputError(f"k must be smaller than the number of rows avatarized, {smallest}, got {k}. Lower k.")
    if smallest < 2 or (k is not None and k >= smallest):
        need = f"k = {k} neighbours" if k is not None else "a model"
        raise InputError(f"--batch-rows is too small: the smallest batch avatarizes {smallest} rows, too few for "
                         f"{need}. Give more rows per batch.")


def _check_space(out: Path, columns: Path) -> None:
    """Room to stage the batches: the rows dealt take about as much as the typed columns already written."""
    need = sum(path.stat().st_size for path in columns.iterdir())
    free = shutil.disk_usage(columns).free
    if free < need:
        raise InputError(f"--out {out}: staging the batches needs about {need / 2**20:,.0f} MB and "
                         f"{free / 2**20:,.0f} MB are free there. Free some space or choose another --out.")


def _work_folder(out: Path, table: TableInput, params: dict, settings: BatchSettings, seed_given: bool = True
                 ) -> tuple[Path, dict]:
    """``out/.work`` (readable by you only: it holds copies of the real rows), new, or kept from an earlier run of
    the same input and settings (its finished batches are kept), and the run's parameters: without a seed given,
    an earlier run's seed is taken back, so that the same command resumes it. ``out`` must not hold another run's
    parts."""
    def manifest(params: dict) -> str:
        return json.dumps({
            "input": [[str(path.resolve()), path.stat().st_size, path.stat().st_mtime_ns] for path in table.files],
            "params": params, "batch_rows": settings.batch_rows, "part_format": settings.part_format,
            "dropped": list(settings.dropped), "scored": settings.scored, "relations": asdict(settings.relations),
            "knowledge": [list(settings.knowledge.known), list(settings.knowledge.sensitive)]},
            sort_keys=True, default=str)

    work = out / WORK_FOLDER
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} is a file: with --batch-rows it is the folder of the parts. Give a folder.")
    for partial_file in out.glob(".part-*.partial"):  # a part being written when a run stopped
        partial_file.unlink()
    earlier = (work / "manifest.json").read_text() if (work / "manifest.json").is_file() else None
    if earlier is not None and not seed_given:
        seed = json.loads(earlier).get("params", {}).get("seed")
        if isinstance(seed, int) and manifest({**params, "seed": seed}) == earlier:
            params = {**params, "seed": seed}
    text = manifest(params)
    resumed = earlier == text
    if not resumed and work.is_dir() and not any(out.glob("part-*")):
        shutil.rmtree(work, ignore_errors=True)  # a run stopped before any part: nothing of it to keep
    if not resumed and out.is_dir() and any(out.iterdir()):
        raise InputError(f"--out {out} already holds files (of another run or settings): give an empty or new folder.")
    try:
        for stale in ("columns", "batches"):
            shutil.rmtree(work / stale, ignore_errors=True)
        out.mkdir(parents=True, exist_ok=True)
        work.mkdir(mode=0o700, exist_ok=True)
        work.chmod(0o700)
        for folder in (work / "columns", work / "batches" / "cache", work / "done"):
            folder.mkdir(parents=True, exist_ok=True)
        (work / "manifest.json").write_text(text)
    except OSError as error:
        raise InputError(f"--out {out}: cannot write there ({error.strerror}). Choose a folder you can write in.") \
            from None
    return work, params
