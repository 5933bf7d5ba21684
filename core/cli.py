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
from pathlib import Path
from typing import NoReturn

from core.errors import InputError
from core.imputation import IMPUTATION_METHODS
from core.io import read_table, write_csv
from core.fast_dp import MECHANISMS
from core.pipeline import EXCLUSION_STRATEGIES, Avatarizer
from core.schema import column_warning_lines

EXIT_INPUT_ERROR = 2
NOT_YET = {
    "json": "--json (the metrics) is not available yet: leave it out for now.",
    "report": "--report (the HTML report) is not available yet: leave it out for now.",
}


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
    avatarize.add_argument("--gmm-n-components", type=_whole_number, default=5, metavar="N", help="AvatarFastDP gmm: components")
    avatarize.add_argument("--histogram-n-bins", type=_whole_number, default=10, metavar="N", help="AvatarFastDP histogram: bins")
    avatarize.add_argument("--bounds-percentile", type=_number, default=5.0, metavar="P",
                           help="AvatarFastDP: clip each latent dimension to percentiles P and 100 - P (0 < P < 50)")
    avatarize.add_argument("--ncp", type=_whole_number, help="latent dimensions used (default: min(5, scaled columns))")
    avatarize.add_argument("--seed", type=_whole_number, help="seed of every random step (default: drawn, then printed)")
    avatarize.add_argument("--imputation", choices=IMPUTATION_METHODS, default="fast_knn", help="temporary imputation of missing values")
    avatarize.add_argument("--column-kind", type=_assignment, action="append", default=[], metavar="NAME=KIND",
                           help="override a column's kind: numeric, categorical or datetime (repeatable)")
    avatarize.add_argument("--column-weight", type=_assignment, action="append", default=[], metavar="NAME=W",
                           help="weight of a column in the projection, > 0 (repeatable)")
    avatarize.add_argument("--exclude", action="append", default=[], metavar="NAME",
                           help="set a column aside and re-attach it afterwards (repeatable)")
    avatarize.add_argument("--exclude-strategy", choices=EXCLUSION_STRATEGIES, default="coordinate_similarity",
                           help="how excluded columns are re-attached; row_order copies each person's own value (sensitive)")
    avatarize.add_argument("--categorical-reduction", action="store_true",
                           help="embed categorical columns with many modalities in a few numeric dimensions")
    avatarize.add_argument("--no-holdout", action="store_true", help="avatarize every row instead of setting half aside")
    avatarize.add_argument("--out", required=True, metavar="AVATARS.csv", help="where to write the shuffled avatars")
    avatarize.add_argument("--json", metavar="METRICS.json", help="also compute the metrics and write them as JSON")
    avatarize.add_argument("--report", metavar="REPORT.html", help="also write a self-contained HTML report")
    evaluate = commands.add_parser("evaluate", help="score avatars made by any tool (not available yet)", allow_abbrev=False)
    evaluate.add_argument("arguments", nargs=argparse.REMAINDER)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    try:
        if arguments.command == "evaluate":
            raise InputError("evaluate is not available yet: only avatarize works for now.")
        return _avatarize(arguments)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR


def _avatarize(arguments: argparse.Namespace) -> int:
    for option, message in NOT_YET.items():
        if getattr(arguments, option) is not None:
            raise InputError(message)
    if arguments.k is None and arguments.fast_dp_epsilon is None:
        raise InputError("give --k K (Avatar, for example --k 10) or --fast-dp-epsilon EPS (AvatarFastDP, for example 1.0).")
    output = Path(arguments.out)
    if output.resolve() == Path(arguments.input).resolve():
        raise InputError(f"--out {output} is the input file: choose another path for the avatars.")
    if not output.parent.resolve().is_dir():
        raise InputError(f"--out {output}: the folder {output.parent} does not exist. Create it or choose another path.")

    start = time.perf_counter()
    frame = read_table(arguments.input)
    avatarizer = Avatarizer(
        k=arguments.k,
        fast_dp_epsilon=arguments.fast_dp_epsilon,
        mechanism=arguments.mechanism,
        gmm_n_components=arguments.gmm_n_components,
        histogram_n_bins=arguments.histogram_n_bins,
        bounds_percentile=arguments.bounds_percentile,
        ncp=arguments.ncp,
        imputation=arguments.imputation,
        use_categorical_reduction=arguments.categorical_reduction,
        exclude_variable_names=arguments.exclude,
        exclude_replacement_strategy=arguments.exclude_strategy,
        column_kinds=dict(arguments.column_kind),
        column_weights={name: _weight(name, value) for name, value in arguments.column_weight},
        holdout=not arguments.no_holdout,
        seed=arguments.seed,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        avatarizer.fit(frame)
    for message in [str(w.message) for w in caught] + column_warning_lines(avatarizer.profiles_):
        print(f"warning: {message}", file=sys.stderr)
    write_csv(avatarizer.avatars_, output)
    holdout = (
        f"{len(avatarizer.holdout_data_)} rows set aside as the holdout"
        if avatarizer.holdout_data_ is not None else "no holdout"
    )
    method = (
        f"k = {arguments.k}" if arguments.k is not None
        else f"AvatarFastDP {arguments.mechanism}, epsilon = {arguments.fast_dp_epsilon:g} (DP mechanisms, not end-to-end DP)"
    )
    print(
        f"{len(avatarizer.avatars_)} avatars of {Path(arguments.input).name} written to {output} "
        f"({method}, ncp = {avatarizer.ncp_}, seed = {avatarizer.seed_}, {holdout}, "
        f"{time.perf_counter() - start:.1f} s).",
        file=sys.stderr,
    )
    return 0


def _weight(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"--column-weight {name}: expected a number greater than 0, got {text!r}.") from None
