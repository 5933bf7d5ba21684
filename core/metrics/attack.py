"""What the attack metrics share (SPEC section 6.2): the attacker's knowledge, the nearest avatar on the known
variables, and the member-versus-control risk with its 95 % interval.

The attack runs on the persons the avatars were made from (members, WO) and, unchanged, on real persons never used
(controls, the holdout): what it achieves on controls is what the population's regularities allow anyway, so the
risk is the part of the members' success beyond it, ``max(0, (r_a - r_c) / (1 - r_c))``. The interval combines
Wilson intervals on both rates (their lower and upper ends crossed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from core.engine.schema import Kind
from core.errors import InputError
from core.i18n import N_, _
from core.metrics.space import MetricSpace

Z_95 = 1.959963984540054
TIE_BREAK_SEED = 20_240_601  # ties between avatars are broken at random, the same way on every run
CHOOSE_KNOWN = N_("Choose the variables an attacker could know (age, sex, postcode...): this metric measures what "
                  "they reveal.")
NOT_A_COLUMN = {  # by option: the message when one of its variables is not a column scored
    "known": N_("The known variable '{name}' is not a column of the table scored: check its spelling (identifier-like "
                "columns are left out of the metrics)."),
    "sensitive": N_("The sensitive variable '{name}' is not a column of the table scored: check its spelling "
                    "(identifier-like columns are left out of the metrics)."),
    "known groups": N_("The known groups variable '{name}' is not a column of the table scored: check its spelling "
                       "(identifier-like columns are left out of the metrics)."),
}


@dataclass(frozen=True)
class Knowledge:
    """What the attacker knows of a person (``known``: quasi-identifiers) and wants to learn (``sensitive``); the
    linkage attack holds the known variables in two parts, ``groups`` (default: the known variables halved in
    column order)."""

    known: tuple[str, ...] = ()
    sensitive: tuple[str, ...] = ()
    groups: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    @property
    def halves(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if self.groups is not None:
            return self.groups
        middle = (len(self.known) + 1) // 2
        return self.known[:middle], self.known[middle:]

    def checked(self, kinds: Mapping[str, Kind]) -> Knowledge:
        """Itself, once every name is a column scored and no variable is both known and sensitive."""
        for option, names in (("known", self.known), ("sensitive", self.sensitive), *(
                ("known groups", group) for group in (self.groups or ()))):
            for name in names:
                if name not in kinds:
                    raise InputError(_(NOT_A_COLUMN[option]).format(name=name))
        both = [name for name in self.sensitive if name in self.known]
        if both:
            raise InputError(_("'{name}' is both known and sensitive: an attacker who knows it has nothing to learn. "
                               "Keep it in one list.").format(name=both[0]))
        return self

    def to_json(self) -> dict[str, object]:
        first, second = self.halves
        return {"known": list(self.known), "sensitive": list(self.sensitive), "groups": [list(first), list(second)]}


def wilson_interval(successes: int, trials: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a success rate (0 to 1 with no trial)."""
    if trials == 0:
        return 0.0, 1.0
    rate = successes / trials
    spread = Z_95**2 / trials
    centre = (rate + spread / 2) / (1 + spread)
    half = Z_95 / (1 + spread) * np.sqrt(rate * (1 - rate) / trials + spread / (4 * trials))
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


@dataclass(frozen=True)
class AttackRisk:
    """Success of an attack on members (``r_a``) and controls (``r_c``), the risk beyond the control and its 95 %
    interval, all as shares (0 to 1)."""

    members: float
    controls: float
    risk: float
    low: float
    high: float

    @classmethod
    def of(cls, member_successes: np.ndarray, control_successes: np.ndarray) -> AttackRisk:
        """From per-person success probabilities (1 or 0, or a probability when ties are broken at random)."""
        n_a, n_c = len(member_successes), len(control_successes)
        hits_a, hits_c = float(np.sum(member_successes)), float(np.sum(control_successes))
        r_a, r_c = hits_a / max(n_a, 1), hits_c / max(n_c, 1)
        a_low, a_high = wilson_interval(round(hits_a), n_a)
        c_low, c_high = wilson_interval(round(hits_c), n_c)
        return cls(r_a, r_c, excess(r_a, r_c), excess(a_low, c_high), excess(a_high, c_low))

    def to_percent(self) -> dict[str, float]:
        return {"members": 100 * self.members, "controls": 100 * self.controls, "risk": 100 * self.risk,
                "low": 100 * self.low, "high": 100 * self.high}


def excess(member_rate: float, control_rate: float) -> float:
    """``max(0, (r_a - r_c) / (1 - r_c))``: the members' success beyond what the controls reach (0 when the control
    always succeeds)."""
    if control_rate >= 1:
        return 0.0
    return max(0.0, (member_rate - control_rate) / (1 - control_rate))


class KnownSpace:
    """The known variables coded as in SPEC section 2 (standardised numerics, scaled dummies), fitted on the
    originals; distances there are the attacker's nearness. ``nearest_avatar`` answers with one avatar per person,
    ties broken at random: avatars that share their known values are one point of the tree (a table of coarse values
    has millions of avatars on a few thousand points), one of them drawn per question; points at the same distance
    are told apart by a jitter far below any real difference."""

    def __init__(self, originals: pd.DataFrame, avatars: pd.DataFrame, variables: Sequence[str],
                 kinds: Mapping[str, Kind]):
        self.variables = list(variables)
        self.space = MetricSpace.fit(originals[self.variables], {name: kinds[name] for name in self.variables})
        points, group = _distinct_rows(self.coordinates(avatars))
        self.members = np.argsort(group, kind="stable")  # avatars grouped by point
        self.sizes = np.bincount(group, minlength=len(points))
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
        scale = max(1.0, float(np.abs(points).max(initial=0.0)))
        jitter = np.random.default_rng(TIE_BREAK_SEED).uniform(-1e-9, 1e-9, points.shape) * scale
        self.tree = cKDTree(points + jitter, balanced_tree=False, compact_nodes=False)  # quicker: 6x here

    def coordinates(self, frame: pd.DataFrame) -> np.ndarray:
        """``frame``'s rows in the coded space of the known variables (every axis: coded distances kept)."""
        projection = self.space.projection
        return projection.transform(self.space.encode(frame[self.variables]), projection.n_components_ or None)

    def nearest_avatar(self, frame: pd.DataFrame) -> np.ndarray:
        """Per row of ``frame``, the index of the nearest avatar on the known variables (one drawn among those that
        share the nearest point, by a generator seeded alike on every call)."""
        asked, same = _distinct_rows(self.coordinates(frame))  # people alike: one question
        point = self.tree.query(asked, k=1, workers=-1)[1][same]
        draws = np.random.default_rng(TIE_BREAK_SEED).random(len(point))
        return self.members[self.starts[point] + (draws * self.sizes[point]).astype(np.int64)]


def _distinct_rows(coordinates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``coordinates`` (in order of first appearance) and each row's number among them, by a
    64-bit hash of each row (linear time; ``np.unique(axis=0)`` sorts rows as bytes, ten times slower at a million)."""
    hashes = pd.util.hash_pandas_object(pd.DataFrame(coordinates), index=False).to_numpy()
    group, _ = pd.factorize(hashes)
    first = np.full(group.max(initial=-1) + 1, len(group))
    np.minimum.at(first, group, np.arange(len(group)))
    return coordinates[first], group
