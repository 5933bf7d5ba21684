"""``python -m core avatarize``: the avatars of a table, and on request their metrics and report."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from core.cli.options import (
    refuse_release_unscored,
    release_of,
    report_path,
    write_all,
    column_plan,
    given_parameters,
    knowledge,
    check_output_folder,
    output_folder,
    output_path,
    refuse_given,
    table_of_options,
    table_parameters,
)
from core.cli.parser import say
from core.dataset import Dataset, LinkMethod
from core.dataset.keys import check_keys
from core.engine.dataset_avatarizer import DatasetAvatarizer, check_supported, dataset_frames, table_path
from core.engine.io import TABLE_SUFFIXES, check_writable, read_table, write_bytes, write_json, write_table, write_text
from core.engine.methods import Method, method_of
from core.engine.parameters import Parameters
from core.engine.schema import column_warning_lines, drop_columns
from core.engine.sources import input_files
from core.engine.split import Holdout
from core.errors import InputError
from core.i18n import SOURCE_LANGUAGE, language
from core.metrics.linked_evaluation import attacked_tables
from core.presentation.format import formula_warning
from core.presentation.metrics_json import batch_json
from core.presentation.summary import batch_summary_lines, risk_profile_lines, run_lines
from core.workflows.linked_run import (
    PersonAnalysis,
    TrendRequest,
    analysed_linked,
    generate_linked,
    linked_analysis,
)
from core.workflows.run import build_avatarizer, file_fingerprint, judged, scored_run

if TYPE_CHECKING:
    import pandas as pd

    from core.engine.pipeline import Avatarizer
    from core.metrics.analysis.request import AnalysisRequest
    from core.metrics.attack import Knowledge
    from core.workflows.linked_run import LinkedRun
    from core.workflows.plan import ColumnPlan
    from core.workflows.release import Release
    from core.workflows.run import GenerationRun
    from core.workflows.runs import Run


@dataclass(frozen=True)
class Outputs:
    """The files ``avatarize`` writes (None: not asked), checked before any work: none is an input or another."""

    avatars: Path
    metrics: Path | None
    report: Path | None
    paired: Path | None
    holdout: Path | None

    @classmethod
    def of(cls, arguments: argparse.Namespace, source: Path, avatars: Path) -> Outputs:
        taken = [str(source)]  # inputs and outputs so far: no output may be one of them

        def checked(option: str, text: str | Path) -> Path:
            path = output_path(option, str(text), taken)
            if option in ("--out", "--paired-out", "--holdout-out") and path.suffix.lower() not in TABLE_SUFFIXES:
                raise InputError(f"{option} {text}: the avatars are written as CSV (.csv) or Parquet (.parquet); "
                                 "name the file with one of these.")  # issue 47: CSV text was written under any name
            taken.append(str(text))
            return path

        def given(option: str, text: str | None) -> Path | None:
            return checked(option, text) if text else None

        out, metrics = checked("--out", avatars), given("--json", arguments.json)
        report = report_path(arguments, taken)
        taken.extend([str(report)] if report else [])
        outputs = cls(out, metrics, report, given("--paired-out", arguments.paired_out),
                      given("--holdout-out", arguments.holdout_out))
        if outputs.holdout and arguments.holdout is False:
            raise InputError("--holdout-out writes the rows set aside, and --no-holdout sets none aside: leave one out.")
        return outputs


def avatarize(arguments: argparse.Namespace) -> int:
    if arguments.tables:
        return _from_schema(arguments)
    if not arguments.input:
        raise InputError("give the table to avatarize (INPUT) or the schema of its tables (--tables SCHEMA.json).")
    if arguments.k is None and arguments.fast_dp_epsilon is None:
        raise InputError("give --k K (Avatar, for example --k 10) or --fast-dp-epsilon EPS (AvatarFastDP, for example 1.0).")
    if arguments.batch_rows is not None:
        return _in_batches(arguments)
    source = Path(arguments.input)
    table = table_of_options(arguments, source)  # a dataset of one table, as a schema of one table describes it
    return _avatarize_one(arguments, Dataset.of_table(table), table.name, Path(arguments.out),
                          Parameters.of(given_parameters(arguments)), read=lambda: read_table(source))


def _from_schema(arguments: argparse.Namespace) -> int:
    """``avatarize --tables SCHEMA.json --out FOLDER``: every rule of the schema checked on its tables' data before
    any work, then each table avatarized into ``FOLDER/<table>.csv``."""
    if arguments.input:
        raise InputError(f"give INPUT ({arguments.input}) or --tables {arguments.tables}, not both.")
    refuse_given((("--column-kind", arguments.column_kind), ("--column-weight", arguments.column_weight),
                  ("--drop", arguments.drop), ("--exclude", arguments.exclude)),
                 "{option} names a column of one table: with --tables, describe it in its table's \"columns\" in "
                 "the schema.")
    refuse_given((("--relation", arguments.relation), ("--no-relations", arguments.no_relations)),
                 "{option} concerns one table's columns: with --tables, write it in its table's \"relations\" in "
                 "the schema.")
    dataset = Dataset.read(Path(arguments.tables))
    if arguments.batch_rows is not None:
        return _linked_in_batches(arguments, dataset)
    chosen = {name: table_parameters(arguments, table) for name, table in dataset.tables.items()
              if not dataset.is_series(name)}  # a series is rebuilt from its persons' avatars: no method
    frames = dataset_frames(dataset, {})
    for unparented in check_keys(dataset, frames):
        say("warning", unparented.message)
    check_supported(dataset, Parameters.of(given_parameters(arguments)))
    if len(dataset.tables) > 1:
        return _avatarize_linked(arguments, dataset, frames)
    name = next(iter(dataset.tables))
    folder = output_folder(Path(arguments.out), [table_path(dataset, name)])

    def read() -> pd.DataFrame:  # the frame checked, once; again when asked again (a fix's re-run)
        frame = frames.pop(name, None)
        return read_table(table_path(dataset, name)) if frame is None else frame

    return _avatarize_one(arguments, dataset, name, folder / f"{name}.csv", chosen[name], read=read)


def _avatarize_linked(arguments: argparse.Namespace, dataset: Dataset, frames: dict[str, pd.DataFrame]) -> int:
    """Linked tables avatarized together (SPEC 12), each into ``FOLDER/<table>.csv`` (``--part-format parquet``:
    ``.parquet``), with their metrics and one verdict when ``--json`` or ``--report`` asks (the attacks on the
    individual-level table that has the variables ``--known`` and ``--sensitive`` name); their paired or holdout
    files and analyses are not built yet, so asking for one is refused in one line before any work."""
    refuse_given((("--paired-out", arguments.paired_out), ("--holdout-out", arguments.holdout_out),
                  ("--scheduler", arguments.scheduler)),
                 "{option} is not available yet for linked tables (" + ", ".join(dataset.tables) + "): leave it "
                 "out; the avatars of every table are written to --out.")
    inputs = [Path(arguments.tables), *(table_path(dataset, name) for name in dataset.tables)]
    paths = {name: Path(arguments.out) / f"{name}.{arguments.part_format or 'csv'}" for name in dataset.tables}
    taken = [*map(str, [*inputs, *paths.values()])]
    metrics = output_path("--json", arguments.json, taken) if arguments.json else None
    report = report_path(arguments, [*taken, str(metrics)])
    refuse_release_unscored(arguments, bool(metrics or report or arguments.analysis))
    release = release_of(arguments)
    attacker = knowledge(arguments)
    attacked_tables(dataset, frames, attacker)  # every variable named checked before any work
    asked = linked_analysis(dataset, frames, arguments.analysis) if arguments.analysis else None
    made_folder = not Path(arguments.out).exists()
    output_folder(Path(arguments.out), inputs)
    try:
        for path in paths.values():
            check_writable(path, "--out")
        start = time.perf_counter()
        fitted, run = _linked_outputs(arguments, dataset, frames, attacker, asked, paths, metrics, report, release)
    except InputError:
        if made_folder and not any(Path(arguments.out).iterdir()):
            Path(arguments.out).rmdir()  # refused: nothing left behind
        raise
    if run is not None:  # scored and judged together
        print("\n".join(run_lines(run)))
    for name in dataset.top_down():
        if dataset.is_series(name):  # rebuilt from its persons' avatars
            print(f"{len(fitted.avatars_[name])} measures of {name} written to {paths[name]} "
                  f"({_series_text(dataset, name)}).")
            continue
        avatarizer = fitted.avatarizers_[name]
        links = ", ".join(f"{link.parent} by {link.method.value}" + (
            " (sensitive: the real family structure)" if link.method is LinkMethod.ORIGINAL_ORDER else "")
            for link in dataset.parent_links(name))
        print(f"{len(fitted.avatars_[name])} avatars of {name} written to {paths[name]} "
              f"({_method_text(avatarizer.method_)}, ncp = {avatarizer.ncp_}{f', linked to {links}' if links else ''}).")
    held = sum(len(frame) for frame in fitted.holdout_data_.values() if frame is not None)
    print(f"seed = {fitted.seed_}, {f'{held} rows set aside as the holdout, by family' if held else 'no holdout'}, "
          f"{time.perf_counter() - start:.1f} s.")
    return 0


def _linked_outputs(arguments: argparse.Namespace, dataset: Dataset, frames: dict[str, pd.DataFrame],
                    attacker: Knowledge, asked: TrendRequest | PersonAnalysis | None, paths: dict[str, Path], metrics: Path | None,
                    report: Path | None, release: Release) -> tuple[DatasetAvatarizer, LinkedRun | None]:
    """The work of :func:`_avatarize_linked`: the avatars made, scored and judged when asked (the analysis asked
    too), then written."""
    parameters = Parameters.of(given_parameters(arguments))
    run = None
    if metrics is not None or report is not None or asked is not None:  # scored and judged, a fix checked
        run = generate_linked(dataset, frames, parameters, knowledge=attacker, search=not arguments.no_fix,
                              fingerprint=file_fingerprint([table_path(dataset, name) for name in dataset.tables]),
                              release=release)
        fitted = run.fitted
        if asked is not None:
            analysed_linked(run.evaluation, dataset, asked)
    else:
        fitted = DatasetAvatarizer(dataset, parameters).fit(frames)
    writers: list[tuple[Path, Callable[[], None]]] = [
        (path, partial(write_table, fitted.avatars_[name], path)) for name, path in paths.items()]
    if run is not None:
        writers += _run_files(run, metrics, report, arguments.report_language)
    write_all(writers)  # the tables of one run together or none (issue 47)
    return fitted, run


def _avatarize_one(arguments: argparse.Namespace, dataset: Dataset, name: str, avatars: Path, parameters: Parameters,
                   read: Callable[[], pd.DataFrame]) -> int:
    """The table ``name`` of ``dataset`` avatarized into ``avatars`` with ``parameters``: its columns' roles, kinds
    and weights from the dataset's description, its keys decided before any kind."""
    source = dataset.path_of(name) or Path(name)
    return _avatarize_table(arguments, source, avatars, column_plan(arguments, dataset.tables[name]), parameters,
                            read=read)


def _avatarize_table(arguments: argparse.Namespace, source: Path, avatars: Path, plan: ColumnPlan,
                     parameters: Parameters, read: Callable[[], pd.DataFrame]) -> int:
    """The avatars of the table at ``source`` (``read`` reads it) written to ``avatars``, with the metrics and the
    report asked for."""
    refuse_given((("--scheduler", arguments.scheduler), ("--part-format", arguments.part_format)),
                 "{option} goes with --batch-rows N (avatars made in batches): add it, or leave {option} out.")
    outputs = Outputs.of(arguments, source, avatars)
    refuse_release_unscored(arguments, bool(outputs.metrics or outputs.report or arguments.analysis))
    release = release_of(arguments)
    if outputs.paired and parameters.k is None:
        raise InputError("--paired-out needs the Avatar method (--k): AvatarFastDP avatars are not paired with "
                         "originals.")
    request = None
    if arguments.analysis:  # the analyses' modules (scikit-learn, statsmodels) only when asked for
        from core.metrics.analysis.request import AnalysisRequest

        request = AnalysisRequest.from_options(arguments.analysis)
    start = time.perf_counter()
    avatarizer = build_avatarizer(plan, parameters)
    scored = bool(outputs.metrics or outputs.report or request)
    _fit(arguments, avatarizer, plan, outputs, request, read, low_memory=not (scored or outputs.holdout))
    run = judged(scored_run(
        avatarizer, plan, parameters, table_name=source.name, fingerprint=file_fingerprint([source]),
        start=start, with_latent=bool(outputs.report), release=release,
    ), lambda: read_table(source), search=not arguments.no_fix) if scored else None
    if request is not None:
        from core.metrics.evaluation import analyse

        assert run is not None  # an analysis asked: the run is scored
        analyse(run.evaluation, request)
    _write(avatarizer, run, outputs, arguments.report_language)
    if run is not None:
        print("\n".join(run_lines(run)))
    holdout = f"{avatarizer.holdout_rows_} rows set aside as the holdout" if avatarizer.holdout_rows_ else "no holdout"
    print(
        f"{len(avatarizer.avatars_)} avatars of {source.name} written to {outputs.avatars} "
        f"({_method_text(avatarizer.method_)}, "
        f"ncp = {avatarizer.ncp_}, seed = {avatarizer.seed_}, {holdout}, {time.perf_counter() - start:.1f} s).",
        file=sys.stderr,
    )
    return 0


def _fit(arguments: argparse.Namespace, avatarizer: Avatarizer, plan: ColumnPlan,
         outputs: Outputs, request: AnalysisRequest | None, read: Callable[[], pd.DataFrame], low_memory: bool
         ) -> None:
    """The avatars made, what the table's columns call for said once they are typed, before any work
    (identifiers, codes, modalities; a misspelt --known, an --analysis column or a holdout too small stop there)."""
    keys = plan.table.keys

    def say_what_is_done(step: str, share: float) -> None:
        if step != "encoding and imputation":
            return
        profiles = [profile for profile in avatarizer.profiles_ if profile.name not in keys]  # keys: said as keys
        for message in column_warning_lines(profiles, plan.table.column_kinds, excluded=plan.excluded,
                                            reduced=avatarizer.parameters.use_categorical_reduction):
            say("warning", message)
        for relation in avatarizer.relations_:
            say("relation", relation.line())
        plan.knowledge.checked(avatarizer.kinds_)  # a misspelt --known stops here, not after the work
        if outputs.holdout and avatarizer.holdout_ is not Holdout.REAL:
            raise InputError(f"--holdout-out: {avatarizer.split_.n_total} rows are too few to set a holdout "
                             f"aside (it takes at least {avatarizer.parameters.holdout_min_rows}); leave --holdout-out out.")
        if request is not None:
            request.checked((name for name in avatarizer.kinds_ if name not in avatarizer.identifier_columns_),
                            {name: "looks like an identifier: the avatars get new values for it, so no analysis "
                                   "can use it" for name in avatarizer.identifier_columns_})

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # No reference to the table read is kept here: without metrics, the originals go once encoded.
        avatarizer.fit(drop_columns(read(), plan.dropped, "--drop"), progress=say_what_is_done,
                       low_memory=low_memory, keys=keys, relations=plan.table.relations)
    for warning in caught:
        say("warning", warning.message)


def _write(avatarizer: Avatarizer, run: GenerationRun | None, outputs: Outputs, report_language: str | None) -> None:
    """Every output asked for, all or none (the paired avatars and the holdout readable by the owner only), then
    what to know about them."""
    writers = [(outputs.avatars, lambda: write_table(avatarizer.avatars_, outputs.avatars))]
    if paired := outputs.paired:  # sensitive: readable by the owner only
        writers.append((paired, lambda: write_table(avatarizer.paired_avatars_, paired, private=True)))
    if holdout := outputs.holdout:  # real rows: readable by the owner only
        writers.append((holdout, lambda: write_table(avatarizer.holdout_data_, holdout, private=True)))
    if run is not None:  # scored when metrics or a report are asked (see _avatarize_table)
        writers += _run_files(run, outputs.metrics, outputs.report, report_language)
    write_all(writers)
    if outputs.paired:
        say("warning", f"{outputs.paired} holds the avatars paired with their originals: keep it private.")
    if outputs.holdout:
        say("warning", f"{outputs.holdout} holds real rows (the holdout): keep it private.")
    if note := formula_warning(avatarizer.avatars_):
        say("warning", note)


def _in_batches(arguments: argparse.Namespace) -> int:
    """``avatarize --batch-rows N``: the avatars made batch by batch on Dask, one part per batch in ``--out``."""
    from core.workflows.batch_run import WORK_FOLDER, BatchSettings, avatarize_in_batches  # Dask: here only

    refuse_given((("--report", arguments.report), ("--report-language", arguments.report_language),
                  ("--paired-out", arguments.paired_out), ("--holdout-out", arguments.holdout_out),
                  ("--analysis", arguments.analysis)),
                 "{option} needs every avatar in memory: leave it out with --batch-rows (--json scores each batch "
                 "against its own holdout half).")
    refuse_given((("--release", arguments.release), ("--recipient", arguments.recipient)),
                 "{option} describes the release a report documents, and batches write no report: leave it out "
                 "with --batch-rows, or give --known the variables the recipient could know.")
    out = Path(arguments.out)
    files, _ = input_files(arguments.input)
    if out.resolve() in {Path(arguments.input).resolve(), *(path.resolve() for path in files)}:
        raise InputError(f"--out {out} is also the input: choose another folder.")
    if not out.parent.resolve().is_dir():
        raise InputError(f"--out {out}: the folder {out.parent} does not exist. Create it or choose another path.")
    metrics_path = output_path("--json", arguments.json, [arguments.input, *files]) if arguments.json else None
    if metrics_path and out.resolve() in (metrics_path.resolve(), *metrics_path.resolve().parents):
        raise InputError(f"--json {metrics_path} is the --out folder or inside it, which holds the parts only: "
                         "choose another path.")
    plan = column_plan(arguments, table_of_options(arguments, Path(arguments.input)))
    parameters = Parameters.of(given_parameters(arguments))
    params = build_avatarizer(plan, parameters).get_params()
    batch_settings = BatchSettings(batch_rows=arguments.batch_rows, scheduler=arguments.scheduler,
                                   part_format=arguments.part_format or "parquet", scored=bool(metrics_path),
                                   knowledge=plan.knowledge, dropped=plan.dropped, relations=plan.table.relations)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run = avatarize_in_batches(arguments.input, out, params, batch_settings, say=lambda line: print(
                line, file=sys.stderr))
        except KeyboardInterrupt:
            work = out / WORK_FOLDER
            if not work.is_dir():
                raise
            size = sum(path.stat().st_size for path in work.rglob("*") if path.is_file()) / 1e6
            raise KeyboardInterrupt(
                f"interrupted: {work} holds copies of the real rows ({size:,.0f} MB, readable by you only) and "
                f"the parts written so far: run the same command again to resume, or delete {out} to remove them."
            ) from None
    for warning in caught:
        if warning.category is UserWarning:
            say("warning", warning.message)
    if metrics_path:
        write_all([(metrics_path, lambda: write_json(batch_json(run, params, batch_settings), metrics_path))])
    if run.summary:
        print("\n".join([*batch_summary_lines(run.summary),
                         *(risk_profile_lines(run.risk_profile) if run.risk_profile else [])]))
    method_text = _method_text(method_of(parameters))
    parts = f"{len(run.parts)} part{'s' if len(run.parts) > 1 else ''}"
    print(f"{run.n_avatars} avatars of {arguments.input} written to {out} in {parts} "
          f"({method_text}, {run.n_rows} rows in batches of about {arguments.batch_rows}, seed = {run.seed}, "
          f"{time.perf_counter() - start:.1f} s).", file=sys.stderr)
    return 0


def _linked_in_batches(arguments: argparse.Namespace, dataset: Dataset) -> int:
    """``avatarize --tables SCHEMA.json --batch-rows N``: the tables dealt to batches by family, each batch
    avatarized as linked tables in memory are, on Dask; each table's parts in ``--out/<table>/``."""
    from core.workflows.batch_run import BatchSettings  # Dask: here only
    from core.workflows.linked_batch_run import avatarize_linked_in_batches

    refuse_given((("--json", arguments.json), ("--report", arguments.report),
                  ("--report-language", arguments.report_language), ("--paired-out", arguments.paired_out),
                  ("--holdout-out", arguments.holdout_out), ("--analysis", arguments.analysis),
                  ("--release", arguments.release), ("--recipient", arguments.recipient),
                  ("--known", arguments.known), ("--sensitive", arguments.sensitive)),
                 "{option} is not available yet for linked tables in batches: leave it out (the avatars of every "
                 "table are written to --out), or leave --batch-rows out to score them in memory.")
    out = Path(arguments.out)
    check_output_folder(out, [Path(arguments.tables), *(table_path(dataset, name) for name in dataset.tables)])
    parameters = given_parameters(arguments)
    for name, table in dataset.tables.items():
        if not dataset.is_series(name):
            table_parameters(arguments, table)  # each table has a method
    settings = BatchSettings(batch_rows=arguments.batch_rows, scheduler=arguments.scheduler,
                             part_format=arguments.part_format or "parquet")
    start = time.perf_counter()
    try:
        run = avatarize_linked_in_batches(dataset, out, parameters, settings,
                                          say=lambda line: print(line, file=sys.stderr))
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"interrupted; linked tables in batches keep nothing of a stopped run ({out} and its "
                                "copies of the real rows are removed): run the same command again to start over.") \
            from None
    for name in dataset.top_down():
        parts = len(list(run.folders[name].iterdir()))
        written = f"written to {run.folders[name]} in {parts} part{'s' if parts > 1 else ''}"
        if dataset.is_series(name):
            print(f"{run.avatars[name]} measures of {name} {written} ({_series_text(dataset, name)}; "
                  f"{run.rows[name]} real measures).")
        else:
            print(f"{run.avatars[name]} avatars of {name} {written} ({run.rows[name]} rows).")
    held = f"{run.held_out} rows set aside as the batches' holdouts, by family" if run.held_out else "no holdout"
    print(f"seed = {run.seed}, {run.n_batches} {'batch' if run.n_batches == 1 else 'batches'} of about "
          f"{arguments.batch_rows} rows, {held}, {time.perf_counter() - start:.1f} s.")
    return 0


def _series_text(dataset: Dataset, name: str) -> str:
    """How a time series' measures are made, as its line says it in one process and in batches."""
    return f"time series, rebuilt from the avatars of {dataset.parent_links(name)[0].parent}"


def _run_files(run: Run, metrics: Path | None, report: Path | None, report_language: str | None
               ) -> list[tuple[Path, Callable[[], None]]]:
    """The writers of a scored run's metrics and report, one table's or linked tables' alike (the report in
    ``report_language``, the command line staying English)."""
    from core.presentation.run_files import metrics_text, report_bytes  # here: plotly's import costs the others

    writers: list[tuple[Path, Callable[[], None]]] = []
    if metrics is not None:
        writers.append((metrics, partial(write_text, metrics_text(run), metrics)))
    if report is not None:
        with language(report_language or SOURCE_LANGUAGE):
            writers.append((report, partial(write_bytes, report_bytes(run, report.suffix.lower()), report)))
    return writers


def _method_text(method: Method) -> str:
    """The method in words, and what AvatarFastDP does not promise."""
    return method.describe() + ("" if method.paired else ": DP mechanisms, not end-to-end DP")
