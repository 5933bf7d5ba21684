"""The command line's arguments (SPEC section 7): the parser, the options shared by commands and the types that
check each value. Light on purpose (no numerical library): ``--help`` and a mistyped option answer at once, and a
command imports what it uses when it runs (:mod:`core.cli.options`: the plan and settings the options describe)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import fields
from typing import NoReturn, TypeVar

from core.engine.parameters import PART_FORMATS, Parameters
from core.i18n import LANGUAGES
from core.workflows.release import DECISION_FIELDS, FIELD_LABELS, OPEN_DATA, RECIPIENTS

EXIT_INPUT_ERROR = 2
Parsed = TypeVar("Parsed")


def say(kind: str, message: object) -> None:
    """``kind: message`` on stderr, on one line whatever the message holds (a column name with a line break)."""
    text = str(message).replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
    print(f"{kind}: {text}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one plain line with exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_INPUT_ERROR, f"error: {message} (see: {self.prog} --help)\n")


def whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def assignment(text: str) -> tuple[str, str]:
    name, separator, value = text.rpartition("=")
    if not separator or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def option(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` split at the first ``=`` (a column name after it may hold one)."""
    key, separator, value = text.partition("=")
    if not separator or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m core", description="Privacy-preserving synthetic data (avatars).", allow_abbrev=False)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_avatarize(commands)
    _add_sweep(commands)
    _add_evaluate(commands)
    return parser


def _add_avatarize(commands: argparse._SubParsersAction) -> None:
    avatarize = commands.add_parser(
        "avatarize", help="generate avatars of a table", allow_abbrev=False,
        description="Generate avatars of INPUT (CSV, Excel or Parquet) and write the shuffled avatars as CSV.",
    )
    avatarize.add_argument("input", metavar="INPUT", nargs="?", help="the table to avatarize (or --tables)")
    avatarize.add_argument("--tables", metavar="SCHEMA.json",
                           help="the dataset's schema instead of INPUT (SPEC 12: its tables, keys and links, each "
                                "table's path relative to it and its own parameters); --out is then a folder")
    method = avatarize.add_mutually_exclusive_group()
    add_parameter_options(method, ["k", "fast_dp_epsilon"])
    add_parameter_options(avatarize, ["mechanism", "seed"])
    _add_preparation_options(avatarize)
    add_parameter_options(avatarize, Parameters.names("link"))
    avatarize.add_argument("--out", required=True, metavar="AVATARS.csv",
                           help="where to write the shuffled avatars (with --batch-rows: a folder, one part per batch; "
                                "with --tables: a folder, one file per table)")
    avatarize.add_argument("--paired-out", metavar="PAIRED.csv",
                           help="SENSITIVE: also write the avatars in the originals' row order, for `evaluate` only; "
                                "never share this file (Avatar method only)")
    avatarize.add_argument("--holdout-out", metavar="HOLDOUT.csv",
                           help="SENSITIVE: also write the real holdout (the rows set aside, never avatarized), so that "
                                "an outside audit (`evaluate --holdout`) attacks with the same control; real people's "
                                "rows: keep it private")
    avatarize.add_argument("--json", metavar="METRICS.json", help="also compute the metrics and write them as JSON")
    _add_report_options(avatarize)
    avatarize.add_argument("--no-fix", action="store_true",
                           help="when the avatars miss a privacy target, do not look for a fix (each setting tried "
                                "re-runs the synthesis and the metrics, the preparation shared)")
    _add_analysis_option(avatarize)
    _add_attacker_options(avatarize)
    relations = avatarize.add_argument_group("relations between columns (kept exactly in the avatars)")
    relations.add_argument("--no-relations", action="store_true",
                           help="do not look for the relations that hold on every original row (a derived column, a "
                                "threshold, an order, a total); by default each one found is said and kept")
    relations.add_argument("--relation", action="append", default=[], metavar="RULE",
                           help="keep this relation, which the data show only approximately (repeatable): 'low = bwt < "
                                "2500', 'admission <= discharge', 'total = a + b', 'logwage = log(wage)', "
                                "'region = town'")
    batches = avatarize.add_argument_group("tables larger than memory (on Dask)")
    batches.add_argument("--batch-rows", type=whole_number, metavar="N",
                         help="avatarize in batches of about N rows, the projection fitted on every row: INPUT may be a "
                              "CSV or Parquet file, a folder of Parquet files or a quoted glob ('parts/*.csv'); --out "
                              "is then a folder, each batch's part written as it finishes. With --tables: the tables dealt to "
                              "batches by family (a parent with its children), about N rows of all the tables in each, "
                              "each table's parts in --out/TABLE/")
    batches.add_argument("--scheduler", metavar="ADDRESS",
                         help="with --batch-rows: the Dask scheduler to run on (tcp://host:8786); by default a local "
                              "cluster of this machine's cores")
    batches.add_argument("--part-format", choices=PART_FORMATS, help="with --batch-rows: parquet (default) or csv; with --tables of "
                                                                     "several tables, each table's file (csv by default)")


def _add_sweep(commands: argparse._SubParsersAction) -> None:
    sweep = commands.add_parser(
        "sweep", help="trade-off: try several k and epsilon values, several seeds each", allow_abbrev=False,
        description="Avatarize INPUT with every k and epsilon given, for several seeds, score every run, and say "
                    "which setting keeps the most signal while meeting every privacy target.",
    )
    sweep.add_argument("input", metavar="INPUT", help="the table")
    sweep.add_argument("--k", type=list_of(whole_number), default=[], metavar="K1,K2,...", help="Avatar k values")
    sweep.add_argument("--fast-dp-epsilon", type=list_of(number), default=[], metavar="E1,E2,...",
                       help="AvatarFastDP epsilon values")
    sweep.add_argument("--mechanism", type=list_of(str), default=["gaussian"], metavar="M1,M2",
                       help="AvatarFastDP mechanisms to try (gaussian, gmm, histogram)")
    sweep.add_argument("--seeds", type=whole_number, default=3, help="runs per setting, seeds S, S+1, ... (default 3)")
    sweep.add_argument("--seed", type=whole_number, default=0, help="first seed (default 0)")
    _add_preparation_options(sweep)
    sweep.add_argument("--json", metavar="SWEEP.json", help="write every point (mean, spread, per-seed values, per-variable scores) as JSON")
    _add_attacker_options(sweep)


def _add_evaluate(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser(
        "evaluate", help="score avatars made by any tool", allow_abbrev=False,
        description="Score AVATARS made from ORIGINAL, by this tool or another, with every signal and privacy metric; "
                    "or, with --tables SCHEMA.json --avatars FOLDER, linked tables (one file per table in FOLDER).",
    )
    evaluate.add_argument("original", metavar="ORIGINAL", nargs="?", help="the original table")
    evaluate.add_argument("avatars", metavar="AVATARS", nargs="?", help="the synthetic table to score")
    evaluate.add_argument("--tables", metavar="SCHEMA.json",
                          help="the schema of linked original tables (SPEC 12) instead of ORIGINAL")
    evaluate.add_argument("--avatars", dest="avatars_folder", metavar="FOLDER",
                          help="with --tables: the folder of the avatars, FOLDER/<table>.csv (or .parquet) per table")
    evaluate.add_argument("--holdout", metavar="HOLDOUT", help="original rows kept apart from the synthesis (the reference)")
    evaluate.add_argument("--not-paired", action="store_true",
                          help="AVATARS rows are not paired with ORIGINAL rows, even when the counts match")
    evaluate.add_argument("--seed", type=whole_number, help="seed of the approximate holdout split")
    evaluate.add_argument("--ncp", type=whole_number, help="latent dimensions of the privacy metrics (default 5)")
    evaluate.add_argument("--column-kind", type=assignment, action="append", default=[], metavar="NAME=KIND",
                          help="override a column's kind: numeric, categorical or datetime (repeatable)")
    evaluate.add_argument("--json", metavar="METRICS.json", help="write every metric as JSON")
    _add_report_options(evaluate)
    _add_analysis_option(evaluate)
    _add_attacker_options(evaluate)


def _add_report_options(command: argparse.ArgumentParser) -> None:
    """The report, and the release it documents (decisions 6.7): its context, its recipient, the controller's decision."""
    command.add_argument("--report", metavar="REPORT.pdf",
                         help="also write the report: an A4 PDF (REPORT.pdf) or a self-contained HTML page "
                              "(REPORT.html), by its name's ending")
    command.add_argument("--report-language", choices=list(LANGUAGES), metavar="LANGUAGE",
                         help="with --report: the report's language, en (default) or fr")
    command.add_argument("--release", metavar="RELEASE.json",
                         help="the release the avatars are for, as JSON: " + ", ".join(
                             f'"{name}"' for name in FIELD_LABELS if name not in DECISION_FIELDS) +
                         ', and the controller\'s "decision" (' + ", ".join(f'"{name}"' for name in DECISION_FIELDS) +
                         ", dates as YYYY-MM-DD); a metrics JSON's \"release\" is read as well")
    command.add_argument("--recipient", choices=list(RECIPIENTS), metavar="RECIPIENT",
                         help="who receives the avatars: " + ", ".join(RECIPIENTS) + f" (over --release's); "
                              f"{OPEN_DATA}: the attacks assume every variable that is not sensitive is known")


def _add_analysis_option(command: argparse.ArgumentParser) -> None:
    """Does a study still hold (SPEC section 9): its analyses on the real rows, the avatars and the holdout."""
    command.add_argument("--analysis", type=option, nargs="+", action="extend", default=[], metavar="KEY=VALUE",
                         help="does a study still hold on the avatars: outcome=NAME [predictors=A,B] "
                              "[model=boosting|linear] (prediction tested on real rows never used, and regression "
                              "coefficients); time=NAME event=NAME [event_value=V] [group=NAME] [covariate=NAME] "
                              "[adjust=A,B] "
                              "(Kaplan-Meier curves, log-rank test, Cox hazard ratio); group=NAME [value=NAME] (means and medians "
                              "by group); each variable's missing share always. With --tables: on an individual-level table "
                              "(table=NAME) with its descendants' aggregates as columns, or a time series' trend "
                              "(value=NAME [group=NAME] [table=SERIES])")


def _add_attacker_options(command: argparse.ArgumentParser) -> None:
    """What an attacker could know and would want to learn: the linkability and inference attacks (SPEC 6.2)."""
    command.add_argument("--known", nargs="+", action="extend", default=[], metavar="NAME",
                         help="variables an attacker could know of a person (age, sex, postcode...): runs the "
                              "linkability and inference attacks")
    command.add_argument("--sensitive", nargs="+", action="extend", default=[], metavar="NAME",
                         help="variables an attacker would want to learn (a diagnosis, an income): one inference "
                              "risk each")
    command.add_argument("--known-groups", nargs=2, type=list_of(str), metavar=("A1,A2", "B1,B2"),
                         help="the two parts of a record the linkability attack holds, each a comma-separated list "
                              "of known variables (default: the known variables halved in the order given); with "
                              "no --known, the known variables are both parts")
    command.add_argument("--known-precision", type=assignment, action="append", default=[], metavar="NAME=STEP",
                         help="the precision to which an attacker knows a known number, for the risk profile (who "
                              "stands out: values rounded to the nearest STEP); by default whole numbers, categories "
                              "and dates as written, a number with decimals to 3 significant digits (repeatable)")


def _add_preparation_options(command: argparse.ArgumentParser) -> None:
    """The options that prepare the table and tune the method, alike for ``avatarize`` and ``sweep``: the
    parameters', and the columns' (kinds, weights, dropped, set aside)."""
    add_parameter_options(command, ["spread", "gmm_n_components", "histogram_n_bins", "bounds_percentile", "ncp", "imputation"])
    command.add_argument("--column-kind", type=assignment, action="append", default=[], metavar="NAME=KIND",
                         help="override a column's kind: numeric, categorical or datetime (repeatable)")
    command.add_argument("--column-weight", type=assignment, action="append", default=[], metavar="NAME=W",
                         help="weight of a column in the projection, > 0 (repeatable)")
    command.add_argument("--drop", action="append", default=[], metavar="NAME",
                         help="leave a column out entirely, such as an identifier (repeatable)")
    command.add_argument("--exclude", action="append", default=[], metavar="NAME",
                         help="set a column aside and re-attach it afterwards (repeatable)")
    add_parameter_options(command, ["exclude_replacement_strategy", "use_categorical_reduction", "holdout"])


_VALUE_TYPES: dict[str, Callable[[str], object]] = {"whole": whole_number, "number": number, "text": str}


def add_parameter_options(command: argparse.ArgumentParser | argparse._ActionsContainer, names: list[str]) -> None:
    """The command line's option of each parameter ``names`` gives, made from its field of
    :class:`~core.engine.parameters.Parameters` (options, value, choices, help); unset, an option leaves the
    parameter to its default (or, with ``--tables``, to each table's own value)."""
    described = {item.name: item for item in fields(Parameters)}
    for name in names:
        item = described[name]
        meta = item.metadata
        if meta["value"] == "switch":
            group = command.add_mutually_exclusive_group()
            for option, const, text in zip(meta["options"], (True, False), meta["help"], strict=True):
                group.add_argument(option, dest=name, action="store_const", const=const, help=text)
            continue
        if meta["value"] == "flag":
            command.add_argument(*meta["options"], dest=name, action="store_const", const=not item.default,
                                 help=meta["help"])
            continue
        default = f" (default {item.default})" if item.default is not None and "default" not in meta["help"] else ""
        command.add_argument(*meta["options"], dest=name, type=_VALUE_TYPES[meta["value"]],
                             choices=meta["choices"] or None, metavar=meta["metavar"], help=meta["help"] + default)


def list_of(parse: Callable[[str], Parsed]) -> Callable[[str], list[Parsed]]:
    def parse_list(text: str) -> list[Parsed]:
        return [parse(item.strip()) for item in text.split(",") if item.strip()]
    return parse_list
