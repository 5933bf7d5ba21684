"""The command line of SPEC section 7: ``python -m core avatarize ...``.

Every error is one line on stderr, naming the file, column or parameter, with exit
code 2 and no output file written.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from core.engine.fast_dp import MECHANISMS
from core.engine.imputation import IMPUTATION_METHODS
from core.engine.io import read_table, write_csv, write_json, write_text
from core.engine.pipeline import EXCLUSION_STRATEGIES
from core.engine.schema import column_warning_lines, drop_columns, profile_columns, resolve_kinds
from core.errors import InputError
from core.metrics.evaluation import evaluate, evaluate_avatarization
from core.presentation.summary import summary_lines
from core.workflows.run import (
    ColumnPlan,
    GenerationRun,
    Settings,
    build_avatarizer,
    data_fingerprint,
    latent_view,
    run_metrics,
)
from core.workflows.sweep import SweepPoint, advice, run_sweep, sweep_settings, sweep_table

EXIT_INPUT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one plain line with exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_INPUT_ERROR, f"error: {message} (see: {self.prog} --help)\n")


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _assignment(text: str) -> tuple[str, str]:
    name, separator, value = text.rpartition("=")
    if not separator or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m core", description="Privacy-preserving synthetic data (avatars).", allow_abbrev=False)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    avatarize = commands.add_parser(
        "avatarize", help="generate avatars of a table", allow_abbrev=False,
        description="Generate avatars of INPUT (CSV, Excel or Parquet) and write the shuffled avatars as CSV.",
    )
    avatarize.add_argument("input", metavar="INPUT", help="the table to avatarize")
    method = avatarize.add_mutually_exclusive_group()
    method.add_argument("--k", type=_whole_number, help="Avatar: number of neighbours combined (2 <= K < rows)")
    method.add_argument("--fast-dp-epsilon", type=_number, metavar="EPS", help="AvatarFastDP: privacy budget (> 0)")
    avatarize.add_argument("--mechanism", choices=MECHANISMS, default="gaussian", help="AvatarFastDP mechanism")
    avatarize.add_argument("--seed", type=_whole_number, help="seed of every random step (default: drawn, then printed)")
    _add_preparation_options(avatarize)
    avatarize.add_argument("--out", required=True, metavar="AVATARS.csv", help="where to write the shuffled avatars")
    avatarize.add_argument("--paired-out", metavar="PAIRED.csv",
                           help="SENSITIVE: also write the avatars in the originals' row order, for `evaluate` only; "
                                "never share this file (Avatar method only)")
    avatarize.add_argument("--json", metavar="METRICS.json", help="also compute the metrics and write them as JSON")
    avatarize.add_argument("--report", metavar="REPORT.html", help="also write a self-contained HTML report")
    sweep = commands.add_parser(
        "sweep", help="trade-off: try several k and epsilon values, several seeds each", allow_abbrev=False,
        description="Avatarize INPUT with every k and epsilon given, for several seeds, score every run, and say "
                    "which setting keeps the most signal while meeting every privacy target.",
    )
    sweep.add_argument("input", metavar="INPUT", help="the table")
    sweep.add_argument("--k", type=_list_of(_whole_number), default=[], metavar="K1,K2,...", help="Avatar k values")
    sweep.add_argument("--fast-dp-epsilon", type=_list_of(_number), default=[], metavar="E1,E2,...",
                       help="AvatarFastDP epsilon values")
    sweep.add_argument("--mechanism", type=_list_of(str), default=["gaussian"], metavar="M1,M2",
                       help="AvatarFastDP mechanisms to try (gaussian, gmm, histogram)")
    sweep.add_argument("--seeds", type=_whole_number, default=3, help="runs per setting, seeds S, S+1, ... (default 3)")
    sweep.add_argument("--seed", type=_whole_number, default=0, help="first seed (default 0)")
    _add_preparation_options(sweep)
    sweep.add_argument("--json", metavar="SWEEP.json", help="write every point (mean, spread, per-seed values, per-variable scores) as JSON")

    evaluate = commands.add_parser(
        "evaluate", help="score avatars made by any tool", allow_abbrev=False,
        description="Score AVATARS made from ORIGINAL, by this tool or another, with every signal and privacy metric.",
    )
    evaluate.add_argument("original", metavar="ORIGINAL", help="the original table")
    evaluate.add_argument("avatars", metavar="AVATARS", help="the synthetic table to score")
    evaluate.add_argument("--holdout", metavar="HOLDOUT", help="original rows kept apart from the synthesis (the reference)")
    evaluate.add_argument("--not-paired", action="store_true",
                          help="AVATARS rows are not paired with ORIGINAL rows, even when the counts match")
    evaluate.add_argument("--seed", type=_whole_number, help="seed of the approximate holdout split")
    evaluate.add_argument("--ncp", type=_whole_number, help="latent dimensions of the privacy metrics (default 5)")
    evaluate.add_argument("--column-kind", type=_assignment, action="append", default=[], metavar="NAME=KIND",
                          help="override a column's kind: numeric, categorical or datetime (repeatable)")
    evaluate.add_argument("--json", metavar="METRICS.json", help="write every metric as JSON")
    return parser


def _add_preparation_options(command: argparse.ArgumentParser) -> None:
    """The options that prepare the table and tune the method, alike for ``avatarize`` and ``sweep``."""
    command.add_argument("--gmm-n-components", type=_whole_number, default=5, metavar="N", help="AvatarFastDP gmm: components")
    command.add_argument("--histogram-n-bins", type=_whole_number, default=10, metavar="N", help="AvatarFastDP histogram: bins")
    command.add_argument("--bounds-percentile", type=_number, default=5.0, metavar="P",
                         help="AvatarFastDP: clip each latent dimension to percentiles P and 100 - P (0 < P < 50)")
    command.add_argument("--ncp", type=_whole_number, help="latent dimensions used (default: min(5, scaled columns))")
    command.add_argument("--imputation", choices=IMPUTATION_METHODS, default="fast_knn", help="temporary imputation of missing values")
    command.add_argument("--column-kind", type=_assignment, action="append", default=[], metavar="NAME=KIND",
                         help="override a column's kind: numeric, categorical or datetime (repeatable)")
    command.add_argument("--column-weight", type=_assignment, action="append", default=[], metavar="NAME=W",
                         help="weight of a column in the projection, > 0 (repeatable)")
    command.add_argument("--drop", action="append", default=[], metavar="NAME",
                         help="leave a column out entirely, such as an identifier (repeatable)")
    command.add_argument("--exclude", action="append", default=[], metavar="NAME",
                         help="set a column aside and re-attach it afterwards (repeatable)")
    command.add_argument("--exclude-strategy", choices=EXCLUSION_STRATEGIES, default="coordinate_similarity",
                         help="how excluded columns are re-attached; row_order copies each person's own value (sensitive)")
    command.add_argument("--categorical-reduction", action="store_true",
                         help="embed categorical columns with many modalities in a few numeric dimensions")
    command.add_argument("--no-holdout", action="store_true", help="avatarize every row instead of setting half aside")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    try:
        if arguments.command == "evaluate":
            return _evaluate(arguments)
        if arguments.command == "sweep":
            return _sweep(arguments)
        return _avatarize(arguments)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR


def _avatarize(arguments: argparse.Namespace) -> int:
    if arguments.k is None and arguments.fast_dp_epsilon is None:
        raise InputError("give --k K (Avatar, for example --k 10) or --fast-dp-epsilon EPS (AvatarFastDP, for example 1.0).")
    inputs = [arguments.input]
    output = _output_path("--out", arguments.out, inputs)
    inputs.append(arguments.out)
    metrics_path = _output_path("--json", arguments.json, inputs) if arguments.json else None
    report_path = _output_path("--report", arguments.report, inputs) if arguments.report else None
    paired_path = _output_path("--paired-out", arguments.paired_out, inputs) if arguments.paired_out else None
    if paired_path and arguments.k is None:
        raise InputError("--paired-out needs the Avatar method (--k): AvatarFastDP avatars are not paired with originals.")
    plan = _plan(arguments)
    settings = replace(
        _common_settings(arguments),
        method="avatar" if arguments.k is not None else "fast_dp",
        k=arguments.k if arguments.k is not None else 0,
        epsilon=arguments.fast_dp_epsilon if arguments.fast_dp_epsilon is not None else 0.0,
        mechanism=arguments.mechanism,
    )

    start = time.perf_counter()
    avatarizer = build_avatarizer(plan, settings)
    scored = bool(metrics_path or report_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # No reference to the table read is kept here: without metrics, the originals go once encoded.
        avatarizer.fit(drop_columns(read_table(arguments.input), list(plan.dropped), "--drop"), low_memory=not scored)
    column_warnings = column_warning_lines(
        avatarizer.profiles_, plan.kinds, excluded=plan.excluded, reduced=settings.use_categorical_reduction
    )
    for message in [str(w.message) for w in caught] + column_warnings:
        print(f"warning: {message}", file=sys.stderr)
    run = None
    if scored:
        run = GenerationRun(
            table_name=Path(arguments.input).name, fingerprint=data_fingerprint(Path(arguments.input).read_bytes()),
            settings=settings, plan=plan, avatarizer=avatarizer, evaluation=evaluate_avatarization(avatarizer),
            latent=latent_view(avatarizer) if report_path else None, elapsed_s=time.perf_counter() - start,
        )
    write_csv(avatarizer.avatars_, output)
    if paired_path:
        write_csv(avatarizer.paired_avatars_, paired_path)
        print(f"warning: {paired_path} holds the avatars paired with their originals: keep it private.", file=sys.stderr)
    if metrics_path:
        write_json(run_metrics(run), metrics_path)
    if report_path:
        from core.presentation.report import build_html_report  # here: plotly's import costs every other command 7 MB

        write_text(build_html_report(run), report_path)
    if run is not None:
        print("\n".join(summary_lines(run.evaluation)))
    holdout = f"{avatarizer.holdout_rows_} rows set aside as the holdout" if avatarizer.holdout_rows_ else "no holdout"
    print(
        f"{len(avatarizer.avatars_)} avatars of {Path(arguments.input).name} written to {output} "
        f"({settings.describe()}{'' if settings.method == 'avatar' else ': DP mechanisms, not end-to-end DP'}, "
        f"ncp = {avatarizer.ncp_}, seed = {avatarizer.seed_}, {holdout}, {time.perf_counter() - start:.1f} s).",
        file=sys.stderr,
    )
    return 0


def _plan(arguments: argparse.Namespace) -> ColumnPlan:
    return ColumnPlan(
        kinds=dict(arguments.column_kind),
        dropped=tuple(arguments.drop),
        excluded=tuple(arguments.exclude),
        weights={name: _weight(name, value) for name, value in arguments.column_weight},
    )


def _common_settings(arguments: argparse.Namespace) -> Settings:
    """The settings of :func:`_add_preparation_options` and the seed; the method's are the command's own."""
    return Settings(
        gmm_n_components=arguments.gmm_n_components,
        histogram_n_bins=arguments.histogram_n_bins,
        bounds_percentile=arguments.bounds_percentile,
        ncp=arguments.ncp,
        imputation=arguments.imputation,
        holdout=not arguments.no_holdout,
        seed=arguments.seed,
        use_categorical_reduction=arguments.categorical_reduction,
        exclude_strategy=arguments.exclude_strategy,
    )


def _evaluate(arguments: argparse.Namespace) -> int:
    metrics_path = _output_path("--json", arguments.json, [arguments.original, arguments.avatars]) if arguments.json else None
    originals = read_table(arguments.original)
    avatars = read_table(arguments.avatars)
    holdout = read_table(arguments.holdout) if arguments.holdout else None
    evaluation = evaluate(
        originals, avatars, holdout=holdout, paired=False if arguments.not_paired else None,
        column_kinds=dict(arguments.column_kind), ncp=arguments.ncp, seed=arguments.seed,
    )
    for name in evaluation.left_out_columns:
        print(f"warning: column '{name}' is not in both tables: it is left out of the metrics.", file=sys.stderr)
    if metrics_path:
        write_json(evaluation.to_json(), metrics_path)
    print("\n".join(summary_lines(evaluation)))
    return 0


def _sweep(arguments: argparse.Namespace) -> int:
    metrics_path = _output_path("--json", arguments.json, [arguments.input]) if arguments.json else None
    for mechanism in arguments.mechanism:
        if mechanism not in MECHANISMS:
            raise InputError(f"--mechanism must list names among {', '.join(MECHANISMS)}, got {mechanism!r}.")
    settings = sweep_settings(arguments.k, arguments.fast_dp_epsilon, arguments.mechanism)
    plan, base = _plan(arguments), _common_settings(arguments)
    frame = read_table(arguments.input)
    kept = drop_columns(frame, list(plan.dropped), "--drop")
    profiles = profile_columns(kept, resolve_kinds(kept, plan.kinds))
    for message in column_warning_lines(profiles, plan.kinds, excluded=plan.excluded,
                                        reduced=base.use_categorical_reduction):
        print(f"warning: {message}", file=sys.stderr)
    start = time.perf_counter()
    done = []

    def report(point: SweepPoint, seed: int) -> None:
        done.append(point)
        print(f"  {len(done)}/{len(settings) * arguments.seeds}: {point.setting.label}, seed {seed}", file=sys.stderr)

    points = run_sweep(frame, plan, base, settings, arguments.seeds, on_result=report)
    elapsed = time.perf_counter() - start
    print("\n".join(sweep_table(points)))
    sentence = advice(points)
    print(sentence)
    if metrics_path:
        write_json({
            "points": [point.to_json() for point in points],
            "advice": sentence,
            "parameters": {
                "seeds": arguments.seeds, "first_seed": arguments.seed, "ncp": arguments.ncp,
                "holdout": base.holdout, "imputation": base.imputation,
                "categorical_reduction": base.use_categorical_reduction, "column_kinds": plan.kinds,
                "column_weights": plan.weights, "dropped": list(plan.dropped), "excluded": list(plan.excluded),
                "exclude_strategy": base.exclude_strategy, "gmm_n_components": base.gmm_n_components,
                "histogram_n_bins": base.histogram_n_bins, "bounds_percentile": base.bounds_percentile,
            },
            "timings_s": {"total": elapsed},
        }, metrics_path)
    return 0


def _list_of(parse):
    def parse_list(text: str) -> list:
        return [parse(item.strip()) for item in text.split(",") if item.strip()]
    return parse_list


def _output_path(option: str, text: str, inputs: list[str]) -> Path:
    """An output path that is not one of the inputs and whose folder exists."""
    path = Path(text)
    if any(path.resolve() == Path(other).resolve() for other in inputs):
        raise InputError(f"{option} {path} is also an input: choose another path.")
    if not path.parent.resolve().is_dir():
        raise InputError(f"{option} {path}: the folder {path.parent} does not exist. Create it or choose another path.")
    return path


def _weight(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"--column-weight {name}: expected a number greater than 0, got {text!r}.") from None
