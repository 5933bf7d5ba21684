"""The kinds of link between a parent table and a child table (SPEC 12 and 13), each an object that owns what it adds
to the parent's synthesis and to the child's, and how the child's avatars get their parent:

- :class:`Assignment` (``linear_sum_assignment``, ``minimum_distance``, ``original_order``): the parent learns its
  number of children and their mean first latent coordinates; each child row carries its parent's latent
  coordinates as context; each child avatar is then assigned a parent avatar (:mod:`core.engine.linkage`);
- :class:`TimeSeries` (``time_series``): the parent, a person, learns the timing and scores of its measures over
  time (:class:`~core.engine.series_tables.SeriesTable`); the child is not avatarized but rebuilt from each person
  avatar.

The columns a link adds to a synthesis are named by :func:`link_column`
and never reach the avatars.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from core.dataset import Dataset, Link, LinkMethod, Role
from core.engine.encoding import numeric_values
from core.engine.identifiers import IdentifierForm
from core.engine.linkage import children_per_parent, linked_parents
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer
from core.engine.schema import apply_kinds, drop_columns
from core.engine.series_tables import SeriesTable, check_series_times, series_kinds
from core.errors import InputError
from core.i18n import _

ENRICHMENT_AXES = 2  # a child table's first latent coordinates whose mean per parent enriches the parent
OWN_SPACE_IMPUTATION = "median"  # the child's own projection, a summary, needs no neighbours' imputation
LINK_COLUMN = "__link__ "  # the start of the names of the columns a link adds to a table's synthesis
Added = tuple[dict[str, np.ndarray], dict[str, float]]  # columns a link adds to a synthesis, and their weights


@dataclass
class LinkKind(ABC):
    """A link of ``dataset`` and the row of its parent of each working child row (``rows``, -1 without one)."""

    dataset: Dataset
    link: Link
    rows: np.ndarray
    rebuilds_child: ClassVar[bool] = False  # the child is rebuilt from its parent's avatars, not avatarized

    @abstractmethod
    def parent_columns(self, n_parents: int, link_weight: float) -> Added:
        """Step 1: what the link adds to each of the ``n_parents`` rows of the parent's synthesis (of
        ``link_weight`` in all, or as the kind weighs them)."""

    def child_columns(self, parent: Avatarizer) -> Added:
        """Step 2: what the link adds to each child row's synthesis, read from the fitted ``parent``."""
        return {}, {}

    def column(self, what: str) -> str:
        """The name of a column this link adds to a synthesis."""
        return link_column(self.link, what)


@dataclass
class Assignment(LinkKind):
    """A child avatarized with its parent's coordinates as context, then assigned a parent avatar by the link's
    method; ``child_axes``, the child's rows in their own projection (:func:`own_coordinates`)."""

    child_axes: np.ndarray

    def parent_columns(self, n_parents: int, link_weight: float) -> Added:
        """Each parent's number of children and their mean first :data:`ENRICHMENT_AXES` coordinates (0 without
        children), sharing ``link_weight``."""
        rows = self.rows
        parented = rows >= 0
        counts = np.bincount(rows[parented], minlength=n_parents).astype(float)
        columns = {self.column("children"): counts}
        axes = self.child_axes[:, :ENRICHMENT_AXES]
        for axis in range(axes.shape[1]):
            sums = np.bincount(rows[parented], weights=axes[parented, axis], minlength=n_parents)
            columns[self.column(f"children's mean axis {axis + 1}")] = np.divide(
                sums, counts, out=np.zeros(n_parents), where=counts > 0)
        return columns, dict.fromkeys(columns, link_weight / len(columns))

    def child_columns(self, parent: Avatarizer) -> Added:
        """Each child row's parent latent coordinates (0 without a parent) and, when some have none, the indicator
        of having one; of one variable's total weight."""
        coordinates = parent.coordinates_
        parented = self.rows >= 0
        context = np.zeros((len(self.rows), coordinates.shape[1]))
        context[parented] = coordinates[self.rows[parented]]
        columns = {self.column(f"parent axis {axis + 1}"): context[:, axis] for axis in range(context.shape[1])}
        if not parented.all():
            columns[self.column("has a parent")] = parented.astype(float)
        return columns, dict.fromkeys(columns, 1.0 / len(columns))

    def foreign_keys(self, made: pd.DataFrame, avatarizers: Mapping[str, Avatarizer],
                     avatars: Mapping[str, pd.DataFrame], rng: np.random.Generator) -> pd.Series:
        """Steps 3 to 5: the child avatars ``made`` without a parent (those of least indicator, written with the
        indicator's decimals, so 0 or 1: ties drawn with ``rng``; as many as in the originals), the others linked
        to the parent avatars by the link's method, their foreign key the parent avatar's new primary key."""
        link, rows = self.link, self.rows
        parent = avatarizers[link.parent]
        if link.method is LinkMethod.ORIGINAL_ORDER:
            linked = original_order(link, avatarizers, rows)
        else:
            unparented = np.zeros(len(made), dtype=bool)
            if (rows < 0).any():
                indicator = made[self.column("has a parent")].to_numpy(dtype=float)
                unparented[np.lexsort((rng.random(len(indicator)), indicator))[:int((rows < 0).sum())]] = True
            estimated = parent.avatars_[self.column("children")].to_numpy(dtype=float)
            observed = np.bincount(rows[rows >= 0], minlength=len(parent.avatars_))
            slots = children_per_parent(estimated, observed, int((~unparented).sum()))
            ncp = parent.ncp_
            contexts = made[[self.column(f"parent axis {axis + 1}") for axis in range(ncp)]].to_numpy(dtype=float)
            linked = np.full(len(made), -1, dtype=np.int64)
            assert parent.avatar_coordinates_ is not None  # a parent is fitted with latent_avatars
            linked[~unparented] = linked_parents(contexts[~unparented], parent.avatar_coordinates_[:, :ncp], slots,
                                                 link.method)
        keys = avatars[link.parent][self.dataset.tables[link.parent].primary_key]
        values = keys.iloc[np.where(linked >= 0, linked, 0)].set_axis(made.index)
        whole = pd.api.types.is_integer_dtype(values)
        if whole:  # nullable, unsigned kept (new ids beyond int64)
            values = values.astype("UInt64" if pd.api.types.is_unsigned_integer_dtype(values) else "Int64")
        return values.where(pd.Series(linked >= 0, index=made.index), pd.NA if whole else None)


@dataclass
class TimeSeries(LinkKind):
    """A person's measures over time (SPEC 13): ``model`` fitted on the working measures, the series rebuilt from
    each person avatar."""

    model: SeriesTable
    rebuilds_child: ClassVar[bool] = True

    @classmethod
    def fitted(cls, dataset: Dataset, link: Link, rows: np.ndarray, working: Mapping[str, pd.DataFrame],
               parameters: Parameters) -> TimeSeries:
        """The link with its series table fitted on its ``working`` rows (typed as its description says), each
        measure's person ``rows``; a measure without a time, or at a placeholder time, refused in one line."""
        where = _("Table '{table}'").format(table=link.child)
        table = dataset.tables[link.child]
        assert table.time is not None  # a time series names its time (checked with the dataset)
        frame = own_columns(dataset, link.child, working[link.child])
        frame = frame.drop(columns=[column for column in (table.primary_key,) if column in frame])
        kinds = series_kinds(frame, table.time, table.column_kinds, where)
        typed = apply_kinds(frame, kinds)
        check_series_times(where, working[link.child][table.time], numeric_values(typed[table.time]))
        variables = {column: kind for column, kind in kinds.items() if column != table.time}
        parents = own_columns(dataset, link.parent, working[link.parent]).drop(
            columns=[key for key in [dataset.tables[link.parent].primary_key] if key])
        with named(link.child):
            model = SeriesTable(table.time, variables, parameters, where).fit(typed, rows, len(working[link.parent]),
                                                                              parents)
        return cls(dataset, link, rows, model)

    def parent_columns(self, n_parents: int, link_weight: float) -> Added:
        """Each person's timing and scores, weighed as :meth:`~core.engine.series_tables.SeriesTable.person_columns`
        says."""
        return self.model.person_columns(self.column)

    def rebuilt(self, parent: Avatarizer, parent_avatars: pd.DataFrame, originals: pd.DataFrame) -> pd.DataFrame:
        """The measures of each person avatar, rebuilt from its timing and scores; the foreign key its person's new
        key, the primary key new."""
        dataset, link, model = self.dataset, self.link, self.model
        frame, owner = model.rebuilt(parent.avatars_, self.column,
                                     np.random.default_rng(model.parameters.seed))  # within each avatar's own window
        keys = parent_avatars[dataset.tables[link.parent].primary_key]
        frame[link.foreign_key] = keys.iloc[owner].to_numpy()
        primary = dataset.tables[link.child].primary_key
        if primary:
            frame[primary] = IdentifierForm.of(originals[primary]).new_values(len(frame)).to_numpy()
        return frame[[column for column in originals.columns if column in frame]]


def original_order(link: Link, avatarizers: Mapping[str, Avatarizer], rows: np.ndarray) -> np.ndarray:
    """``original_order``: each child avatar linked to the avatar of its own original's parent (the real family
    structure: sensitive); both tables' avatars must be paired with their originals (Avatar)."""
    child, parent = avatarizers[link.child], avatarizers[link.parent]
    assert child.paired_order_ is not None and parent.paired_order_ is not None  # Avatar in both (check_linked)
    parents = rows[np.argsort(child.paired_order_)]  # the parent of the original each child avatar is made from
    return np.where(parents >= 0, parent.paired_order_[np.maximum(parents, 0)], -1)


def own_coordinates(dataset: Dataset, name: str, frame: pd.DataFrame, parameters: Parameters) -> np.ndarray:
    """The table's rows in its own projection (its columns only, no key, missing values imputed by
    :data:`OWN_SPACE_IMPUTATION`: a summary; the neighbours' imputation took 41 s of the flights' 49 s): what its
    parents' enrichment reads."""
    table = dataset.tables[name]
    return Avatarizer(replace(parameters, imputation=OWN_SPACE_IMPUTATION)).latent_coordinates(
        own_columns(dataset, name, frame), keys=table.keys, relations=table.relations)


def own_columns(dataset: Dataset, name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as its table's synthesis takes it: without its foreign keys (the linkage writes them) and the
    columns its description drops."""
    without_keys = frame.drop(columns=list(dict.fromkeys(link.foreign_key for link in dataset.parent_links(name))))
    where = _("Table '{table}'").format(table=name)
    return drop_columns(without_keys, dataset.tables[name].with_role(Role.DROPPED), where)


@contextmanager
def named(name: str) -> Iterator[None]:
    """A refusal of the engine's for one table, named with the table."""
    try:
        yield
    except InputError as error:
        raise InputError(_("Table '{table}'").format(table=name) + f": {error}") from None


def link_column(link: Link, what: str) -> str:
    """The name of a column ``link`` adds to a table's synthesis."""
    return f"{LINK_COLUMN}{link.describe()}: {what}"


def with_columns(frame: pd.DataFrame, columns: Mapping[str, Any]) -> pd.DataFrame:
    """``frame.assign(**columns)`` in one block: assigning hundreds of columns one at a time fragments the frame, and
    pandas said so in its own words on the command line (issue 47)."""
    if not columns:
        return frame
    added = pd.DataFrame(dict(columns), index=frame.index)
    order = [*frame.columns, *(name for name in columns if name not in frame.columns)]  # as assign places them
    return pd.concat([frame.drop(columns=[name for name in columns if name in frame.columns]), added], axis=1)[order]

