"""What the metrics of one set of avatars are computed from, shared by every metric module (SPEC sections 5, 6, 12
and 13).

A metric module's ``compute`` takes a :class:`SignalContext` or a :class:`PrivacyContext` (a table's), a
:class:`LinkContext` (a link between two tables) or a :class:`SeriesContext` (a time series); the quantities several
metrics share (the counts of closer avatars, the two nearest originals of each avatar, the avatars' rows made
comparable, a link's joins) are computed once, on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from core.dataset import Dataset, Kind, Link
from core.dataset.relations import Relation
from core.engine.encoding import datetime_microseconds, numeric_values
from core.engine.neighbours import NeighbourTree
from core.i18n import N_, Message, Number
from core.metrics.attack import Knowledge
from core.metrics.links.join import Joins, joined, typed_joins
from core.metrics.local_cloaking import CloserAvatars, count_closer_avatars
from core.metrics.sampling import CONTROLS_STREAM, fixed_sample
from core.metrics.series.trajectories import Trajectories
from core.metrics.space import MetricSpace, kept_by_identity

NOT_PAIRED = N_("Not applicable: it needs each avatar paired with the original it was made from.")
REPEATED_ROWS_SHARE = 0.5  # beyond, the distance metrics are shown with a note and leave the verdict (SPEC 6.1)
# The controls whose distances to the originals are searched: all of them up to this many, beyond a sample of this
# many drawn once (docs/decisions.md, "The controls' distances on a sample"): a 5th percentile read on 30 000 falls
# between the 4.75th and the 5.25th of all the controls 95 times in 100 (1.96 sqrt(0.05 x 0.95 / 30 000) = 0.25 %).
CONTROL_SAMPLE = 30_000


@dataclass(frozen=True)
class SignalContext:
    """WO, HO and WA (SPEC section 5), typed, with the projection fitted on WO (``space``) and the relations that
    hold between the originals' columns (:mod:`core.metrics.broken_relations`)."""

    working: pd.DataFrame
    holdout: pd.DataFrame
    avatars: pd.DataFrame
    kinds: Mapping[str, Kind]
    space: MetricSpace
    relations: Sequence[Relation] = ()


@dataclass(frozen=True)
class PrivacyReference:
    """The originals' side of the privacy metrics, computed once for any number of avatar sets (a sweep)."""

    coordinates: np.ndarray
    tree: NeighbourTree | None  # over the coordinates; None below two originals
    kinds: Mapping[str, Kind]
    rows: pd.DataFrame  # typed values, comparable with ``==`` (see :func:`comparable`)
    row_hashes: np.ndarray
    unique_shares: dict[str, float]  # u_v: distinct values of v / originals
    row_group_sizes: np.ndarray  # per original, how many originals share its exact row (itself included)
    _of_controls: dict[Hashable, tuple[Any, Any]] = field(default_factory=dict, repr=False,
                                                                         compare=False)

    def control_nearest_two(self, coordinates: np.ndarray, control_rows: np.ndarray | None
                            ) -> tuple[np.ndarray, np.ndarray]:
        """The distances of the controls at ``coordinates`` (:data:`CONTROL_SAMPLE` of them at most, drawn by
        :func:`~core.metrics.sampling.fixed_sample`) to their nearest and second-nearest originals, each apart from
        itself when it is one (``control_rows``: their rows among the originals)."""
        return self._kept_for_controls("nearest two", coordinates, lambda: self._nearest_two_of(coordinates,
                                                                                                control_rows))

    def control_tree(self, coordinates: np.ndarray) -> NeighbourTree:
        """A tree over the controls at ``coordinates``."""
        return self._kept_for_controls("tree", coordinates, lambda: NeighbourTree(coordinates))

    def _kept_for_controls(self, name: str, coordinates: np.ndarray, compute: Callable[[], Any]) -> Any:
        """What the controls at ``coordinates`` give, which does not depend on the avatars: computed once for the
        same controls (every setting of a fix search, every run of a sweep)."""
        return kept_by_identity(self._of_controls, name, coordinates, compute)

    def _nearest_two_of(self, coordinates: np.ndarray, control_rows: np.ndarray | None
                        ) -> tuple[np.ndarray, np.ndarray]:
        assert self.tree is not None, "asked with at least three originals"
        sample = fixed_sample(len(coordinates), CONTROL_SAMPLE, CONTROLS_STREAM)
        if sample is not None:
            coordinates = coordinates[sample]
            control_rows = None if control_rows is None else control_rows[sample]
        if control_rows is None:
            distances, _ = self.tree.query(coordinates, 2, rows=False)
            return distances[:, 0], distances[:, 1]
        distances, rows = self.tree.query(coordinates, 3)
        assert rows is not None  # asked for (NeighbourTree.query's rows=True)
        others = rows != control_rows[:, None]
        others[others.sum(axis=1) == 3, 2] = False  # itself not found among the three (ties): keep the first two
        kept = distances[others].reshape(len(distances), 2)
        return kept[:, 0], kept[:, 1]

    @property
    def repeated_share(self) -> float:
        """The share of originals whose exact row another original shares (SPEC 6.1)."""
        return float(np.mean(self.row_group_sizes >= 2)) if len(self.row_group_sizes) else 0.0

    @property
    def repeated_note(self) -> Message | None:
        """Why the distance metrics leave the verdict when most rows repeat (SPEC 6.1), else None."""
        if self.repeated_share <= REPEATED_ROWS_SHARE:
            return None
        return Message(N_("{share} % of the real rows are repeated exactly by another person: avatars then sit on "
                          "points many people share, so distances say little. Shown, but left out of the verdict."),
                       share=Number(100 * self.repeated_share, ".0f"))

    @classmethod
    def of(cls, coordinates: np.ndarray, originals: pd.DataFrame, kinds: Mapping[str, Kind]) -> PrivacyReference:
        rows = comparable(originals, kinds)
        hashes = pd.util.hash_pandas_object(rows, index=False).to_numpy()
        _, group, sizes = np.unique(hashes, return_inverse=True, return_counts=True)
        return cls(
            coordinates=coordinates,
            tree=NeighbourTree(coordinates) if len(coordinates) >= 2 else None,
            kinds=kinds,
            rows=rows,
            row_hashes=hashes,
            unique_shares={name: rows[name].nunique(dropna=False) / len(rows) for name in rows.columns},
            row_group_sizes=sizes[group],
        )


@dataclass(frozen=True)
class AttackSides:
    """The persons the attacks of SPEC 6.2 run on: ``members``, typed, those the avatars were made from (WO), and
    ``controls``, real persons never used (HO), with the controls' ``coordinates`` in the privacy latent space;
    ``control_rows`` their row numbers among the reference's originals when they are part of them (an approximate
    holdout), else None. An approximate holdout is no control for the attacks (its rows were avatarized too): its
    members are then every original, and the attacks are judged against their baseline."""

    members: pd.DataFrame
    controls: pd.DataFrame
    coordinates: np.ndarray
    control_rows: np.ndarray | None
    knowledge: Knowledge

    @property
    def approximate(self) -> bool:
        return self.control_rows is not None


class PrivacyContext:
    """The originals' side (``reference``) and one set of avatars, in the same latent space (SPEC section 6).

    With ``paired``, avatar ``i`` was made from original ``i``; without, the metrics that need pairing are not
    applicable, for ``unpaired_reason``. ``sides`` holds the members, the controls and the attacker's knowledge of
    the metrics of SPEC 6.2 (None: those metrics do not apply); ``identifiers`` the real and the avatars' values of
    each identifier-like column (:mod:`core.metrics.identifier_protection`).
    """

    def __init__(self, reference: PrivacyReference, avatar_coordinates: np.ndarray, avatars: pd.DataFrame,
                 paired: bool, unpaired_reason: str = NOT_PAIRED, sides: AttackSides | None = None,
                 identifiers: Mapping[str, tuple[pd.Series, pd.Series]] | None = None):
        self.reference, self.avatar_coordinates, self.avatars = reference, avatar_coordinates, avatars
        self.paired, self.unpaired_reason, self.sides = paired, unpaired_reason, sides
        self.identifiers = dict(identifiers or {})  # per identifier-like column: (every real value, the avatars')

    @property
    def knowledge(self) -> Knowledge:
        return self.sides.knowledge if self.sides else Knowledge()

    @property
    def control_nearest_two(self) -> tuple[np.ndarray, np.ndarray]:
        """Each control's distances to its nearest and second-nearest originals, itself apart when it is one
        (:meth:`PrivacyReference.control_nearest_two`: on a sample when they are many)."""
        assert self.sides is not None, "asked with controls"
        return self.reference.control_nearest_two(self.sides.coordinates, self.sides.control_rows)

    @cached_property
    def newcomer_medians(self) -> tuple[float, float] | None:
        """The controls' median distance to their nearest original and median ratio of their two nearest distances:
        how close a new real person naturally is (None without controls or with fewer than three originals)."""
        if self.sides is None or len(self.sides.controls) == 0 or len(self.reference.coordinates) < 3:
            return None
        nearest, second = self.control_nearest_two
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(second > 0, nearest / second, 1.0)
        return float(np.median(nearest)), float(np.median(ratios))

    def out_of_reach_note(self, target: float, which: int, value: float) -> Message | None:
        """Why a target of distance leaves the verdict when real people never used miss it themselves (SPEC 6.3,
        revised again): the controls' median (``which``: 0, the distance to the nearest original; 1, the ratio) is
        below ``target``, so the target cannot tell avatars from newcomers; the closest rate, relative to the
        controls, stands for it; the avatars' ``value`` said beside the controls'. None when the controls meet it."""
        medians = self.newcomer_medians
        if medians is None or medians[which] >= target:
            return None
        assert self.sides is not None  # no medians without controls
        who = N_("the approximate holdout (half of the originals drawn at random, each apart from itself)") \
            if self.sides.approximate else N_("the holdout (real people never used)")
        return Message(N_("Real people are themselves closer than the target: in {who}, the median is {median} (the "
                          "avatars': {value}), below the target of {target}, so this target cannot tell avatars from "
                          "new real people. Shown, but left out of the verdict; the closest rate, which compares each "
                          "avatar with the closest 5 % of those people, stands for it."),
                       who=Message(who), median=Number(medians[which], ".3f"), value=Number(value, ".3f"),
                       target=Number(target, "g"))

    @cached_property
    def closer(self) -> CloserAvatars:
        """Per original, the avatars strictly closer than its own (paired avatars only)."""
        return count_closer_avatars(self.reference.coordinates, self.avatar_coordinates)

    @cached_property
    def nearest_two(self) -> tuple[np.ndarray, np.ndarray]:
        """Each avatar's distances to its nearest and second-nearest originals."""
        tree = self.reference.tree
        assert tree is not None, "asked with at least two originals"
        distances, _ = tree.query(self.avatar_coordinates, 2, rows=False)
        return distances[:, 0], distances[:, 1]

    @cached_property
    def avatar_rows(self) -> pd.DataFrame:
        """The avatars' typed values, comparable with the originals' (``reference.rows``)."""
        return comparable(self.avatars, self.reference.kinds)


def comparable(frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> pd.DataFrame:
    """Columns whose ``==`` and hashes compare typed values, missing equal to missing."""
    columns = {}
    for name in frame.columns:
        column = frame[name]
        if kinds[name] is Kind.CATEGORICAL:
            labels = np.append(column.cat.categories.astype(str).to_numpy(dtype=object), "\x00missing")
            columns[name] = labels[column.cat.codes.to_numpy()]  # code -1: missing
        elif pd.api.types.is_datetime64_any_dtype(column):
            columns[name] = np.where(column.isna().to_numpy(), np.iinfo(np.int64).min, datetime_microseconds(column))
        else:
            values = numeric_values(column)
            columns[name] = np.where(np.isnan(values), np.inf * -1, values)  # -inf stands for missing
    return pd.DataFrame(columns)


Family = tuple[pd.DataFrame, pd.DataFrame]  # a link's parents and children
NO_JOINED_CHILD = N_("Not applicable: one of the two halves of the real families has no child beside its parent, so "
                     "there is no join to compare the avatars' with.")


@dataclass(frozen=True)
class LinkContext:
    """A link between two tables (SPEC 12): the working originals' parents and children (``real``), the two real
    halves a join is compared on (the working half's and the holdout's, or two halves of the real families), the
    avatars' parents and children, the keys the join leaves out and the kinds the tables' descriptions give its
    columns."""

    dataset: Dataset
    link: Link
    real: Family
    halves: tuple[Family, Family]
    avatars: Family
    join_keys: Sequence[str]
    declared: Mapping[str, str]

    @cached_property
    def _joined(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """Each child beside its parent, untyped: the working half's, the holdout's and the avatars'."""
        working, holdout = (joined(parents, children, self.link, self.join_keys) for parents, children in self.halves)
        return working, holdout, joined(*self.avatars, self.link, self.join_keys)

    @cached_property
    def joins(self) -> Joins:
        """Each child beside its parent, on the two real halves and the avatars, typed alike."""
        return typed_joins(*self._joined, self.declared)

    @cached_property
    def joins_not_applicable(self) -> str | None:
        """Why a join's metrics do not apply: a real half with no child beside its parent (a series 3 persons of
        100 hold, all 3 in the holdout), where the join's kinds would be read on no row; None when they apply."""
        if self._joined[0].empty or self._joined[1].empty:
            return NO_JOINED_CHILD
        return None


@dataclass(frozen=True)
class SeriesContext:
    """A time series (SPEC 13): the working originals', the holdout's (or the other half's) and the avatars'
    trajectories, the points of the common grid and the functional components (``nf``) the series table asks."""

    originals: Trajectories
    reference: Trajectories
    avatars: Trajectories
    nb_points: int
    nf: int
