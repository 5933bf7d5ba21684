"""The avatars of a dataset (SPEC 12): its tables read or given, every rule checked on their data before any work,
each table avatarized with its own parameters over the run's. The Python API's entry for a schema, as
``avatarize --tables`` is the command line's; a single table is a dataset of one table.

>>> DatasetAvatarizer(Dataset.read(Path("schema.json")), k=10, seed=1).fit().avatars_["patients"]  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from core.dataset import Dataset, LinkMethod, Role, Table
from core.dataset.keys import check_keys
from core.engine.io import read_table
from core.engine.linked_tables import avatarize_linked, check_pairing
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer
from core.engine.link_kinds import named
from core.engine.schema import check_finite, drop_columns
from core.errors import InputError
from core.i18n import _


class DatasetAvatarizer:
    """Avatarize every table of ``dataset`` (a :class:`~core.dataset.Dataset`, or SPEC 12's schema as a dict).

    Parameters
    ----------
    dataset : the tables, their columns' roles, kinds and weights, their keys and links, and each table's own
        parameters (``k``, ``ncp``...).
    parameters, **values : the defaults of every table (see
        :meth:`~core.engine.parameters.Parameters.for_table`), as :class:`~core.engine.pipeline.Avatarizer` takes
        them.

    Attributes
    ----------
    dataset_ : the dataset, checked.
    unparented_ : the links with children without a parent (:class:`~core.dataset.keys.Unparented`), counted.
    avatarizers_ : the fitted :class:`~core.engine.pipeline.Avatarizer` of each table, by name (of linked tables:
        on the table's columns with those its links add, see :mod:`core.engine.linked_tables`).
    avatars_ : each table's avatars (shuffled, new keys, foreign keys from the linkage), by name.
    working_data_, holdout_data_ : linked tables: each table's originals avatarized and set aside (a holdout by
        family; None without one), by name.
    seed_ : the seed used.
    timings_s_ : seconds per step (of linked tables: see :class:`~core.engine.linked_tables.LinkedAvatars`).
    """

    def __init__(self, dataset: Dataset | Mapping[str, Any], parameters: Parameters | None = None, /,
                 **values: object):
        self.dataset = dataset
        self.parameters = (parameters or Parameters()).with_values(values)

    def fit(self, frames: Mapping[str, pd.DataFrame] | None = None,
            progress: Callable[[str, float], None] | None = None) -> DatasetAvatarizer:
        """Avatarize the tables: ``frames`` by table name, the others read from their ``path``; ``progress``, if
        given, told of each step as it starts with the share of the work done."""
        dataset = checked_dataset(self.dataset)
        tables = dataset_frames(dataset, frames or {})
        self.dataset_, self.unparented_ = dataset, check_keys(dataset, tables)
        check_supported(dataset, self.parameters)
        if len(dataset.tables) > 1:
            linked = avatarize_linked(dataset, tables, self.parameters, progress)
            self.avatarizers_, self.avatars_, self.seed_ = linked.avatarizers, linked.avatars, linked.seed
            self.working_data_, self.holdout_data_ = linked.working, linked.holdout
            self.timings_s_ = linked.timings_s
            return self
        self.avatarizers_ = {}
        for name in dataset.top_down():
            table = dataset.tables[name]
            self.avatarizers_[name] = avatarized_table(tables.pop(name), table, self.parameters, progress=progress,
                                                       where=_("Table '{table}'").format(table=name))
        self.avatars_ = {name: avatarizer.avatars_ for name, avatarizer in self.avatarizers_.items()}
        self.working_data_ = {name: avatarizer.working_data_ for name, avatarizer in self.avatarizers_.items()}
        self.holdout_data_ = {name: avatarizer.holdout_data_ for name, avatarizer in self.avatarizers_.items()}
        self.seed_ = next(iter(self.avatarizers_.values())).seed_
        self.timings_s_ = next(iter(self.avatarizers_.values())).timings_s_
        return self


def avatarized_table(frame: pd.DataFrame, table: Table, parameters: Parameters, *, where: str,
                     progress: Callable[[str, float], None] | None = None) -> Avatarizer:
    """``frame`` avatarized as ``table`` describes it: its dropped columns left out (``where`` names the drop in
    a message), its keys decided before any kind, its own parameters over ``parameters``."""
    kept = drop_columns(frame, table.with_role(Role.DROPPED), where)
    return Avatarizer(parameters.for_table(table)).fit(kept, progress=progress, keys=table.keys,
                                                       relations=table.relations)


def _check_finite_keys(dataset: Dataset, tables: Mapping[str, pd.DataFrame]) -> None:
    """A foreign key of decimals refused when one is infinite, as every column of numbers is (and as batches read
    it): no parent's key is infinite."""
    for link in dataset.links:
        foreign = tables[link.child].get(link.foreign_key)
        if foreign is not None and pd.api.types.is_float_dtype(foreign):
            with named(link.child):
                check_finite(foreign, link.foreign_key)


def checked_dataset(dataset: Dataset | Mapping[str, Any]) -> Dataset:
    """``dataset``, or the schema it is as a dict, with the rules that need no data checked."""
    if isinstance(dataset, Dataset):
        return dataset.check()
    return Dataset.from_dict(dataset)


def dataset_frames(dataset: Dataset, given: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Every table's data: the frame ``given`` for it, else its file (its ``path``, read from the schema's
    folder); a table with neither, or a frame given for no table, refused in one line naming it."""
    unknown = [name for name in given if name not in dataset.tables]
    if unknown:
        raise InputError(_("A frame is given for '{table}', which is not a table of the dataset ({tables}).").format(
            table=unknown[0], tables=", ".join(dataset.tables)))
    frames = {name: given[name] if name in given else _read(dataset, name) for name in dataset.tables}
    _check_finite_keys(dataset, frames)
    return frames


def table_path(dataset: Dataset, name: str) -> Path:
    """The file of the table ``name`` (its "path" is relative to the schema's folder)."""
    path = dataset.path_of(name)
    if path is None:
        raise InputError(_("Table '{table}': the dataset gives no \"path\" to its file nor its data; add one "
                           "(relative to the schema) or give its frame.").format(table=name))
    return path


def check_methods(dataset: Dataset, parameters: Parameters) -> None:
    """Each table's method checked against the dataset before any data is read, each refusal one line: the persons
    of a time series avatarized by Avatar (:func:`check_supported`), ``original_order`` between tables paired with
    their originals (:func:`~core.engine.linked_tables.check_pairing`)."""
    check_supported(dataset, parameters)
    check_pairing(dataset, parameters)


def check_supported(dataset: Dataset, parameters: Parameters | None = None) -> None:
    """A time series (a ``time_series`` link, SPEC 13) is a table of measures of one person, rebuilt from the
    person's avatar: its table has no other parent and no child, and its persons are avatarized by Avatar
    (AvatarFastDP does not support time series); each refused in one line once the dataset's rules are checked."""
    for link in dataset.links:
        if link.method is not LinkMethod.TIME_SERIES:
            continue
        if len(dataset.parent_links(link.child)) > 1 or dataset.child_links(link.child):
            raise InputError(_(
                "Table '{table}': a time series is the measures of one person over time, rebuilt from its person's "
                "avatar, so it has no other parent and no child; link the other tables to '{parent}' instead."
            ).format(table=link.child, parent=link.parent))
        chosen = (parameters or Parameters()).for_table(dataset.tables[link.parent])
        if chosen.fast_dp_epsilon is not None:
            raise InputError(_(
                "Link {link}: AvatarFastDP does not support time series (their persons' avatars are made by "
                "Avatar): give table '{parent}' a k, or link the table with linear_sum_assignment."
            ).format(link=link.describe(), parent=link.parent))


def _read(dataset: Dataset, name: str) -> pd.DataFrame:
    return read_table(existing_table_path(dataset, name))


def existing_table_path(dataset: Dataset, name: str) -> Path:
    """The file of the table ``name``, which must exist."""
    path = table_path(dataset, name)
    if not path.exists():
        raise InputError(_("Table '{table}': its file {path} does not exist (its \"path\", {given!r}, is read from "
                           "the schema's folder); check the path.").format(
            table=name, path=path, given=dataset.tables[name].path))
    return path
