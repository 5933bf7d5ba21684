"""One time series table's three sides (SPEC 13): the originals the avatars were made from, a real sample of other
persons to read them against (the holdout, else half of the persons, the other half then taking the originals'
place) and the avatars; each side's measures typed as the originals', placed on their person, with their person's
columns beside them. Read by the series metrics, the trend analysis, the pages' and the report's figures."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.dataset import Dataset, Kind, Link
from core.engine.encoding import numeric_values
from core.engine.linked_tables import parent_rows_of
from core.engine.parameters import MAX_NB_POINTS, Parameters
from core.engine.schema import detect_kind
from core.engine.series_tables import series_kinds
from core.engine.time_series import grid_points
from core.i18n import N_, _
from core.metrics.analysis.mixed_model import PERSON, TIME, MixedModelResult, mixed_model
from core.metrics.context import SeriesContext
from core.metrics.inputs import typed_like
from core.metrics.links.join import PARENT_COLUMN, family_halves
from core.metrics.series.trajectories import DAY_S, Trajectories

MAX_GROUPS = 10  # a group of the figures and the trend analysis: a categorical of 2 to this many values


@dataclass(frozen=True)
class SeriesView:
    """A series link's three sides, originals, reference (a real sample) and avatars, each a long frame of its
    measures (typed as the originals') with each measure's person (:data:`~core.metrics.analysis.mixed_model.
    PERSON`, a row of the side's person table), its time since the person's first measure (:data:`~core.metrics.
    analysis.mixed_model.TIME`, in days for dates) and its person's columns (``patients.treatment``, keys left
    out); the measures' ``kinds``, the ``time`` column and its ``unit`` ("day" or ""); ``halves``: no holdout was
    kept, so the originals and the reference are two halves of the persons the avatars were made from."""

    table: str
    frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]
    kinds: dict[str, Kind]
    time: str
    unit: str
    halves: bool = False

    def made_from(self) -> pd.DataFrame:
        """The measures of every person the avatars were made from (both halves without a holdout), to compare with
        the avatars of all of them: like with like (issue 45: a random half of MASS's Sitka trees was drawn as
        "originals" beside the avatars of every tree)."""
        originals, reference = self.frames[0], self.frames[1]
        if not self.halves:
            return originals
        offset = int(originals[PERSON].max()) + 1 if len(originals) else 0
        return pd.concat([originals, reference.assign(**{PERSON: reference[PERSON] + offset})], ignore_index=True)

    @property
    def numbers(self) -> list[str]:
        """The series' numeric variables."""
        return [column for column, kind in self.kinds.items() if kind is Kind.NUMERIC and column != self.time]

    @property
    def groups(self) -> list[str]:
        """The columns that split persons into groups: categorical, 2 to :data:`MAX_GROUPS` values in the
        originals (the series' own or their person's)."""
        originals = self.frames[0]
        candidates = [column for column in originals.columns if column not in (PERSON, TIME, self.time)]
        return [column for column in candidates
                if (self.kinds.get(column) or detect_kind(originals[column])) is Kind.CATEGORICAL
                and 2 <= originals[column].nunique() <= MAX_GROUPS]

    def trajectories(self) -> tuple[Trajectories, Trajectories, Trajectories]:
        """The three sides' :class:`~core.metrics.series.trajectories.Trajectories`."""
        modalities = {name: sorted(self.frames[0][name].dropna().astype(str).unique())
                      for name, kind in self.kinds.items() if kind is Kind.CATEGORICAL}
        made = [Trajectories.of(frame[PERSON].to_numpy(), frame, self.time, self.kinds, modalities)
                for frame in self.frames]
        return made[0], made[1], made[2]


def series_view(dataset: Dataset, link: Link, working: Mapping[str, pd.DataFrame],
                holdout: Mapping[str, pd.DataFrame | None], avatars: Mapping[str, pd.DataFrame], seed: int
                ) -> SeriesView:
    """The :class:`SeriesView` of ``link`` (without a holdout, two halves of the persons drawn with ``seed``)."""
    table = dataset.tables[link.child]
    time = table.time
    assert time is not None, "a time series' table has its time column (checked with the dataset)"
    if holdout.get(link.parent) is not None and holdout.get(link.child) is not None:
        real = (working[link.parent], working[link.child]), (holdout[link.parent], holdout[link.child])
    else:
        real = family_halves(working[link.parent], working[link.child], link, np.random.default_rng(seed))
    keys = [column for column in (table.primary_key, link.foreign_key) if column]
    kinds = series_kinds(real[0][1].drop(columns=keys), time, table.column_kinds,
                         _("Table '{table}'").format(table=link.child))
    dates = kinds[time] is Kind.DATETIME
    parent_keys = {dataset.tables[link.parent].primary_key, *(other.foreign_key
                                                              for other in dataset.parent_links(link.parent))}
    frames = []
    for position, (parents, children) in enumerate((*real, (avatars[link.parent], avatars[link.child]))):
        rows = parent_rows_of(link, {link.parent: parents, link.child: children})
        measures = typed_like(children[list(kinds)][rows >= 0].reset_index(drop=True), kinds,
                              N_("In the avatars: {error}") if position == 2 else "{error}")
        rows = rows[rows >= 0]
        times = numeric_values(measures[time]) / (DAY_S if dates else 1.0)
        person = parents.drop(columns=[column for column in parents if column in parent_keys]).iloc[rows]
        person.columns = [PARENT_COLUMN.format(parent=link.parent, column=column) for column in person.columns]
        first = pd.Series(times).groupby(rows).transform("min").to_numpy()
        frames.append(pd.concat([measures, person.reset_index(drop=True)], axis=1).assign(
            **{PERSON: rows, TIME: times - first}))
    return SeriesView(link.child, (frames[0], frames[1], frames[2]), kinds, time, "day" if dates else "",
                      halves=holdout.get(link.parent) is None or holdout.get(link.child) is None)


def series_context(view: SeriesView, parameters: Parameters) -> SeriesContext:
    """What the series metrics of ``view`` read: its trajectories, on the grid and with the components the series
    table's ``parameters`` say (``nb_points``, ``alignment``, ``nf``)."""
    originals, reference, made = view.trajectories()
    nb_points = min(MAX_NB_POINTS, grid_points(originals.timing.counts, parameters.alignment, parameters.nb_points))
    return SeriesContext(originals, reference, made, nb_points, parameters.nf)


def series_mixed_model(view: SeriesView, value: str, group: str | None = None) -> MixedModelResult:
    """The trend of the series variable ``value`` over time, real against avatars (per level of ``group``, a column
    of the series or of its person's); both checked beforehand (:func:`~core.workflows.linked_run.checked_trend`)."""
    originals, reference, made = view.frames
    return mixed_model(originals, reference, made, value, time=view.time, unit=view.unit, group=group)
