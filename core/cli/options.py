"""What the command line's options describe: the output paths checked before any work, the attacker's knowledge,
the column plan and the settings of a run."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.engine.io import check_writable
from core.errors import InputError
from core.metrics.attack import Knowledge
from core.workflows.run import ColumnPlan, Settings


def output_path(option: str, text: str, inputs: list[str]) -> Path:
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
    groups = tuple(tuple(group) for group in arguments.known_groups) if arguments.known_groups else None
    known = tuple(arguments.known) or (tuple(name for group in groups for name in group) if groups else ())
    return Knowledge(known=known, sensitive=tuple(arguments.sensitive), groups=groups)


def column_plan(arguments: argparse.Namespace) -> ColumnPlan:
    attacker = knowledge(arguments)
    return ColumnPlan(
        kinds=dict(arguments.column_kind),
        dropped=tuple(arguments.drop),
        excluded=tuple(arguments.exclude),
        weights={name: _weight(name, value) for name, value in arguments.column_weight},
        known=attacker.known,
        sensitive=attacker.sensitive,
        known_groups=attacker.groups,
    )


def common_settings(arguments: argparse.Namespace) -> Settings:
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


def _weight(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"--column-weight {name}: expected a number greater than 0, got {text!r}.") from None
