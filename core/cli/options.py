"""What the command line's options describe: the output paths checked before any work, the attacker's knowledge,
the column plan and the parameters of a run."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from core.dataset import Kind, Role, Table
from core.dataset.relations import RelationsAsked
from core.engine.io import check_writable, together
from core.engine.parameters import Parameters
from core.errors import InputError
from core.metrics.attack import Knowledge
from core.workflows.plan import ColumnPlan
from core.workflows.release import Release


def refuse_given(options: Iterable[tuple[str, object]], message: str) -> None:
    """The first of ``options`` (its name, its value) given refused in one line: ``message`` with its name for
    ``{option}``."""
    for option, value in options:
        if value:
            raise InputError(message.replace("{option}", option))


def output_path(option: str, text: str, inputs: Sequence[str | Path]) -> Path:
    """An output path that is not one of the inputs and whose folder exists."""
    path = Path(text)
    if any(path.resolve() == Path(other).resolve() for other in inputs):
        raise InputError(f"{option} {path} is also an input or another output: choose another path.")
    if path.is_dir():
        raise InputError(f"{option} {path} is a folder: give a file name, for example {path / 'avatars.csv'}.")
    if not path.parent.resolve().is_dir():
        raise InputError(f"{option} {path}: the folder {path.parent} does not exist. Create it or choose another path.")
    check_writable(path, option)
    return path


def knowledge(arguments: argparse.Namespace) -> Knowledge:
    """What the attacker knows and wants (``--known``, ``--sensitive``, ``--known-groups``), checked in itself."""
    groups: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    if arguments.known_groups:  # two groups (``nargs=2``)
        first, second = arguments.known_groups
        groups = (tuple(first), tuple(second))
    known = tuple(arguments.known) or (tuple(name for group in groups for name in group) if groups else ())
    precision = []
    for name, text in getattr(arguments, "known_precision", None) or []:
        try:
            precision.append((name, float(text)))
        except ValueError:
            raise InputError(f"--known-precision {name}={text}: the step must be a number, such as "
                             f"{name}=1 or {name}=0.5.") from None
    return Knowledge(known=known, sensitive=tuple(arguments.sensitive), groups=groups, precision=tuple(precision))


def release_of(arguments: argparse.Namespace) -> Release:
    """The release the options describe: ``--release``'s file (its JSON; a metrics JSON's ``release``), then
    ``--recipient`` over it; a file that cannot be read or a field that is not one refused in one line."""
    release = Release()
    if arguments.release:
        path = Path(arguments.release)
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"--release {path}: no such file; give the JSON file that describes the release.") from None
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"--release {path}: cannot be read ({getattr(error, 'strerror', None) or error}).") from None
        except json.JSONDecodeError as error:
            raise InputError(f"--release {path}: not valid JSON (line {error.lineno}, column {error.colno}: "
                             f"{error.msg}).") from None
        release = Release.from_json(document, f"--release {path}")
    return release.with_recipient(arguments.recipient)


def refuse_release_unscored(arguments: argparse.Namespace, scored: bool) -> None:
    """``--release`` and ``--recipient`` refused in one line when nothing is measured (no ``--json``, ``--report``
    or ``--analysis``): they describe the attacks and the report, which are then not made."""
    refuse_given((("--release", arguments.release), ("--recipient", arguments.recipient)) if not scored else (),
                 "{option} describes the release the metrics and the report are made for: add --json or --report, "
                 "or leave {option} out.")


def report_path(arguments: argparse.Namespace, inputs: Sequence[str | Path]) -> Path | None:
    """``--report``'s path (None: not asked), checked as an output whose name ends in .pdf or .html;
    ``--report-language`` without it refused."""
    if not arguments.report:
        if arguments.report_language:
            raise InputError("--report-language goes with --report REPORT.pdf: add it, or leave --report-language out.")
        return None
    from core.presentation.run_files import REPORT_SUFFIXES  # a report asked: its modules are needed anyway

    path = output_path("--report", arguments.report, inputs)
    if path.suffix.lower() not in REPORT_SUFFIXES:
        raise InputError(f"--report {path}: the report is written as PDF (.pdf) or HTML (.html); name the file with "
                         "one of these.")
    return path


def table_of_options(arguments: argparse.Namespace, source: Path) -> Table:
    """The one table of ``avatarize INPUT``, its columns described by the options as a schema describes them
    (``--drop``, ``--exclude``: their role; ``--column-kind``, ``--column-weight``); a column given two roles or a
    kind that does not exist refused in one line naming the option."""
    roles = dict.fromkeys(arguments.drop, Role.DROPPED)
    for name in arguments.exclude:
        if roles.get(name) is Role.DROPPED:
            raise InputError(f"--drop and --exclude both name '{name}': drop it (left out of the avatars) or "
                             "exclude it (re-attached to them), not both.")
        roles[name] = Role.SET_APART
    kinds = dict(arguments.column_kind)
    for name, kind in kinds.items():
        if kind not in [known.value for known in Kind]:
            raise InputError(f"--column-kind {name}={kind}: the kind must be one of "
                             f"{', '.join(known.value for known in Kind)}.")
    return Table.described(source.name, roles=roles, kinds={name: Kind(kind) for name, kind in kinds.items()},
                           weights={name: _weight(name, value) for name, value in arguments.column_weight},
                           path=str(source), relations=RelationsAsked(
                               find=not getattr(arguments, "no_relations", False),
                               declared=tuple(getattr(arguments, "relation", ()))))


def column_plan(arguments: argparse.Namespace, table: Table) -> ColumnPlan:
    """``table`` (its columns' roles, kinds and weights) with the attacker's knowledge the options give: what a run
    of one table is made and scored with."""
    return ColumnPlan(table, knowledge(arguments))


def given_parameters(arguments: argparse.Namespace) -> dict[str, object]:
    """The parameters the command's options set (those left out keep their defaults, or a table's own values)."""
    return {name: getattr(arguments, name) for name in Parameters.names()
            if getattr(arguments, name, None) is not None}


def common_parameters(arguments: argparse.Namespace) -> Parameters:
    """The parameters the options of :func:`~core.cli.parser._add_preparation_options` and the seed set, over the
    defaults; the method's are the command's own (a sweep's settings)."""
    return Parameters.of({name: value for name, value in given_parameters(arguments).items()
                          if name not in ("k", "fast_dp_epsilon", "mechanism")})


def table_parameters(arguments: argparse.Namespace, table: Table) -> Parameters:
    """A schema's table's parameters: its own, over the command's options (the defaults of every table; see
    :meth:`~core.engine.parameters.Parameters.for_table`)."""
    chosen = Parameters.of(given_parameters(arguments)).for_table(table)
    if chosen.k is None and chosen.fast_dp_epsilon is None:
        raise InputError(f"Table '{table.name}': no method; give --k K or --fast-dp-epsilon EPS, or set \"k\" or "
                         "\"fast_dp_epsilon\" in the table's entry of the schema.")
    return chosen


def output_folder(path: Path, inputs: list[Path]) -> Path:
    """A folder of outputs (:func:`check_output_folder`), made if it does not exist."""
    check_output_folder(path, inputs)
    try:
        path.mkdir(exist_ok=True)
    except OSError as error:
        raise InputError(f"--out {path}: cannot make this folder ({error.strerror or error}). Choose another "
                         "path.") from None
    return path


def check_output_folder(path: Path, inputs: list[Path]) -> None:
    """A folder of outputs: not an input, not a file, in a folder that exists."""
    if any(path.resolve() == other.resolve() or path.resolve() in other.resolve().parents for other in inputs):
        raise InputError(f"--out {path} is an input's file or folder: choose another folder.")
    if path.exists() and not path.is_dir():
        raise InputError(f"--out {path} is a file: with --tables it is a folder, one file per table.")
    if not path.parent.resolve().is_dir():
        raise InputError(f"--out {path}: the folder {path.parent} does not exist. Create it or choose another path.")


def _weight(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"--column-weight {name}: expected a number greater than 0, got {text!r}.") from None


def write_all(writers: list[tuple[Path, Callable[[], None]]]) -> None:
    """Every output, or none: written beside their destinations, then moved in together (:func:`together`)."""
    path = None
    try:
        with together():
            for destination, write in writers:
                path = destination
                write()
    except OSError as error:
        raise InputError(f"{error.filename or path}: could not be written ({error.strerror}); no output was "
                         "kept.") from None
