"""``python -m core evaluate``: every metric of avatars made by any tool."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from core.cli.options import knowledge, output_path, refuse_given, release_of, report_path, write_all
from core.cli.parser import say
from core.dataset import Dataset
from core.dataset.keys import check_keys, key_values
from core.engine.dataset_avatarizer import dataset_frames
from core.engine.io import read_table, write_bytes, write_json
from core.errors import InputError
from core.i18n import SOURCE_LANGUAGE, language
from core.metrics.analysis.request import AnalysisRequest
from core.metrics.evaluation import attackable_kinds, evaluate
from core.metrics.linked_evaluation import person_columns
from core.presentation.metrics_json import evaluation_document, linked_json
from core.presentation.summary import analysis_lines, linked_summary_lines, summary_lines
from core.presentation.verdict_text import verdict_line
from core.workflows.linked_run import (
    PersonAnalysis,
    analysed_linked,
    evaluated_files,
    linked_analysis,
    linked_attacker,
    linked_verdict,
)
from core.workflows.run import file_fingerprint
from core.workflows.verdict import verdict_of

if TYPE_CHECKING:
    import pandas as pd


def evaluate_command(arguments: argparse.Namespace) -> int:
    if arguments.tables or arguments.avatars_folder:
        return _evaluate_linked(arguments)
    if not (arguments.original and arguments.avatars):
        raise InputError("give ORIGINAL and AVATARS, or --tables SCHEMA.json --avatars FOLDER for linked tables.")
    inputs = [arguments.original, arguments.avatars, *([arguments.holdout] if arguments.holdout else [])]
    metrics_path = output_path("--json", arguments.json, inputs) if arguments.json else None
    report = report_path(arguments, [*inputs, *([metrics_path] if metrics_path else [])])
    release = release_of(arguments)
    request = AnalysisRequest.from_options(arguments.analysis) if arguments.analysis else None
    originals = read_table(arguments.original)
    avatars = read_table(arguments.avatars)
    holdout = read_table(arguments.holdout) if arguments.holdout else None
    attacker = knowledge(arguments)
    if release.widens:  # to the columns scored, the user's choice checked first
        kinds = attackable_kinds(originals, avatars, dict(arguments.column_kind))
        attacker = release.attacker(attacker.checked(kinds), kinds)
    evaluation = evaluate(
        originals, avatars, holdout=holdout, paired=False if arguments.not_paired else None,
        column_kinds=dict(arguments.column_kind), ncp=arguments.ncp, seed=arguments.seed, knowledge=attacker,
        analysis=request,
    )
    verdict = verdict_of(evaluation)  # made elsewhere: no fix can be checked by a re-run here
    _say_left_out(evaluation.left_out_columns)
    for message in evaluation.warnings:
        say("warning", message)
    writers: list[tuple[Path, Callable[[], None]]] = []
    if metrics_path:
        writers.append((metrics_path, partial(write_json, evaluation_document(evaluation, verdict, release),
                                              metrics_path)))
    if report:
        from core.presentation.report import EvaluatedFiles, evaluated_document  # plotly: only for a report
        from core.presentation.run_files import rendered

        with language(arguments.report_language or SOURCE_LANGUAGE):
            data = rendered(evaluated_document(evaluation, verdict, release, attacker, EvaluatedFiles(
                Path(arguments.original).name, Path(arguments.avatars).name,
                file_fingerprint([Path(arguments.original)]), file_fingerprint([Path(arguments.avatars)]))),
                report.suffix.lower())
        writers.append((report, partial(write_bytes, data, report)))
    write_all(writers)
    print("\n".join([*summary_lines(evaluation), *analysis_lines(evaluation), verdict_line(verdict)]))
    return 0


def _evaluate_linked(arguments: argparse.Namespace) -> int:
    """``evaluate --tables SCHEMA.json --avatars FOLDER``: linked avatars made by any tool (SDV's HMA...), one file per
    table named after it, scored against the schema's tables (not paired; halves of the families as reference)."""
    if not (arguments.tables and arguments.avatars_folder):
        raise InputError("--tables SCHEMA.json and --avatars FOLDER go together: give both.")
    refuse_given((("--report", arguments.report), ("--report-language", arguments.report_language)),
                 "{option}: the report of linked avatars made by another tool is not written yet; leave it out "
                 "(--json writes their metrics).")
    release = release_of(arguments)
    refuse_given((("ORIGINAL", arguments.original), ("--holdout", arguments.holdout),
                  ("--not-paired", arguments.not_paired), ("--column-kind", arguments.column_kind)),
                 "{option} concerns one table: with --tables, leave it out (linked avatars are scored unpaired, "
                 "against halves of the families).")
    dataset = Dataset.read(Path(arguments.tables))
    folder = Path(arguments.avatars_folder)
    if not folder.is_dir():
        raise InputError(f"--avatars {folder}: no such folder; give the folder holding one file per table.")
    files = {}
    for name in dataset.tables:
        found = [folder / f"{name}{suffix}" for suffix in (".csv", ".parquet", ".xlsx") if (folder / f"{name}{suffix}").is_file()]
        if not found:
            raise InputError(f"--avatars {folder}: no file for table '{name}' ({name}.csv, {name}.parquet or "
                             f"{name}.xlsx); write each table's avatars under its name.")
        if len(found) > 1:  # issue 47: patients.csv read, patients.parquet beside it ignored, unsaid
            raise InputError(f"--avatars {folder}: table '{name}' has {len(found)} files, "
                             f"{', '.join(path.name for path in found)}: keep the one that holds its avatars.")
        files[name] = found[0]
    inputs = [arguments.tables, *(str(dataset.path_of(name)) for name in dataset.tables), *map(str, files.values())]
    metrics_path = output_path("--json", arguments.json, inputs) if arguments.json else None
    originals = dataset_frames(dataset, {})
    for unparented in check_keys(dataset, originals):
        say("warning", unparented.message)
    asked = linked_analysis(dataset, originals, arguments.analysis) if arguments.analysis else None
    avatars = {name: read_table(path) for name, path in files.items()}
    check_keys(dataset, avatars)  # the same columns, a unique primary key in the avatars too
    if isinstance(asked, PersonAnalysis):  # what it names must be in the avatars too: said before the scoring
        _check_in_avatars(asked, dataset, originals, avatars, files)
    for name, table in dataset.tables.items():
        if table.primary_key:
            real = key_values(avatars[name][table.primary_key]).isin(key_values(originals[name][table.primary_key]))
            if real.any():
                say("warning", f"Table '{name}': {int(real.sum()):,} of the avatars' primary keys are keys of the "
                               "originals; a real key joins an avatar to a real person's rows elsewhere: give the "
                               "avatars new keys before sharing them.")
    evaluation = evaluated_files(dataset, originals, avatars, seed=arguments.seed or 0,
                                 knowledge=linked_attacker(release, dataset, originals, knowledge(arguments)))
    for name, scored in evaluation.tables.items():  # issue 47: the linked avatars' missing columns went unsaid
        _say_left_out(scored.left_out_columns, f"Table '{name}', ")
    if asked is not None:
        analysed_linked(evaluation, dataset, asked)
    verdict = linked_verdict(dataset, evaluation)
    if metrics_path:
        write_json(linked_json(evaluation, verdict, {"seed": arguments.seed or 0, "paired": False}, release),
                   metrics_path)
    print("\n".join(linked_summary_lines(evaluation, verdict)))
    return 0


def _check_in_avatars(asked: PersonAnalysis, dataset: Dataset, originals: dict[str, pd.DataFrame],
                      avatars: dict[str, pd.DataFrame], files: dict[str, Path]) -> None:
    """The analysis of a person table refused in one line naming the avatars' file when a column it names (its own
    or a descendant's aggregate) is in the originals but not in the avatars."""
    kept = person_columns(dataset, avatars, asked.table)
    lacking = [name for name in person_columns(dataset, originals, asked.table) if name not in kept]
    own, folder = set(originals[asked.table].columns), files[asked.table].parent

    def why(name: str) -> str:
        where = files[asked.table] if name in own else f"the files of {asked.table}'s descendants in {folder}"
        return f"is in the originals but not in the avatars ({where}): give avatars that keep it, or analyse another column"

    asked.request.checked(kept, {name: why(name) for name in lacking})


def _say_left_out(columns: list[str], where: str = "") -> None:
    """The columns of one side only (originals or avatars), left out of the metrics: said, one line each."""
    for name in columns:
        say("warning", f"{where}column '{name}' is not in both the originals and the avatars: it is left out of the "
                         "metrics.")
