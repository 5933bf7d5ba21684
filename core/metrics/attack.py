"""What the attack metrics share (SPEC section 6.2): the attacker's knowledge, the nearest avatars on the known
variables, and the member-versus-control risk with its 95 % interval.

The attack runs on the persons the avatars were made from (members, WO) and, unchanged, on real persons never used
(controls, the holdout): what it achieves on controls is what the population's regularities allow anyway, so the
risk is the part of the members' success beyond it, ``max(0, (r_a - r_c) / (1 - r_c))``. The interval combines
Wilson intervals on both rates (their lower and upper ends crossed). Without real persons never used (no holdout,
``evaluate`` without ``--holdout``) an approximate holdout is no control, its rows having been avatarized too: the
members are then every original and the risk is taken against the attack's baseline (revised SPEC 6.2: an exact
copy of the originals scored 0.2 % against approximate controls). Ties among the nearest avatars count by their
expectation, so that nothing depends on the avatars' row order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from core.dataset import Kind
from core.engine.neighbours import distinct_rows, row_hashes
from core.errors import InputError
from core.i18n import N_, _
from core.metrics.space import MetricSpace

Z_95 = 1.959963984540054
TIE_TOLERANCE = 1e-9  # relative: distances equal within it are a tie (as for the hidden rate, SPEC 6.1)
CHOOSE_KNOWN = N_("Choose the variables an attacker could know (age, sex, postcode...): the attacks measure what "
                  "they reveal.")  # said of one metric or of several at once (the verdict's "Not assessed: ...")
CHOOSE_SENSITIVE = N_("Choose the sensitive variables an attacker would want to learn (a diagnosis, an income): this "
                      "metric measures how well the avatars reveal them.")
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
    column order); ``precision``, the step to which the attacker knows a known number, ``(name, step)`` (the risk
    profile of SPEC 6.4 counts it rounded so; by default as :func:`core.metrics.risk_profile.default_step` says)."""

    known: tuple[str, ...] = ()
    sensitive: tuple[str, ...] = ()
    groups: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    precision: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        """The precisions checked at once, whatever the data (a linked run refused them after its synthesis)."""
        seen = set()
        for name, step in self.precision:
            if name not in self.known:
                raise InputError(_("The precision of '{name}' is given, but '{name}' is not a known variable: add it "
                                   "to the known variables or leave its precision out.").format(name=name))
            if name in seen:
                raise InputError(_("The precision of '{name}' is given twice: keep one.").format(name=name))
            seen.add(name)
            if not (np.isfinite(step) and step > 0):
                raise InputError(_("The precision of '{name}' must be a positive number, such as 1 or 0.5, got "
                                   "{step}.").format(name=name, step=step))

    def missing_choice(self, sensitive: bool) -> str | None:
        """What the user must still choose for a metric that needs the known variables (and, with ``sensitive``,
        the sensitive ones), or None."""
        if not self.known:
            return CHOOSE_KNOWN
        return CHOOSE_SENSITIVE if sensitive and not self.sensitive else None

    @property
    def halves(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if self.groups is not None:
            return self.groups
        middle = (len(self.known) + 1) // 2
        return self.known[:middle], self.known[middle:]

    def checked(self, kinds: Mapping[str, Kind], frame: pd.DataFrame | None = None) -> Knowledge:
        """Itself, once every name is a column scored (with a value in ``frame``, when given) and no variable is
        both known and sensitive."""
        for option, names in (("known", self.known), ("sensitive", self.sensitive), *(
                ("known groups", group) for group in (self.groups or ()))):
            for name in names:
                if name not in kinds:
                    raise InputError(_(NOT_A_COLUMN[option]).format(name=name))
        if self.groups is not None:
            first, second = self.groups
            if not first or not second:
                raise InputError(_("Each of the two known groups needs at least one variable: the linkability attack "
                                   "holds one part of a record in each."))
            stray = [name for name in (*first, *second) if name not in self.known]
            if stray:
                raise InputError(_("The known groups variable '{name}' is not among the known variables: each group "
                                   "takes known variables only.").format(name=stray[0]))
            shared = [name for name in first if name in second]
            if shared:
                raise InputError(_("'{name}' is in both known groups: the two parts of a record share no "
                                   "variable.").format(name=shared[0]))
        for name, _step in self.precision:
            if kinds[name] is not Kind.NUMERIC:
                raise InputError(_("'{name}' is not a number: a precision applies to numbers only (categories and "
                                   "dates count as written).").format(name=name))
        empty = [name for name in (*self.known, *self.sensitive) if frame is not None and frame[name].isna().all()]
        if empty:
            raise InputError(_("'{name}' has no value in the table: an attacker learns nothing from it, and nothing can "
                               "be learnt of it. Leave it out of the known and sensitive variables.").format(
                name=empty[0]))
        both = [name for name in self.sensitive if name in self.known]
        if both:
            raise InputError(_("'{name}' is both known and sensitive: an attacker who knows it has nothing to learn. "
                               "Keep it in one list.").format(name=both[0]))
        return self

    def to_json(self) -> dict[str, object]:
        first, second = self.halves
        return {"known": list(self.known), "sensitive": list(self.sensitive), "groups": [list(first), list(second)],
                **({"precision": dict(self.precision)} if self.precision else {})}


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
    """Success of an attack on members (``r_a``), what it is compared with (``r_c`` on controls, or the baseline
    ``r_b`` when no real person was kept apart), the risk beyond it and its 95 % interval, all as shares (0 to 1).
    ``against`` says which: "control" or "baseline"; ``baseline`` is shown beside the risk either way."""

    members: float
    controls: float | None
    baseline: float
    risk: float
    low: float
    high: float
    against: str
    n_members: int
    n_controls: int

    @classmethod
    def of(cls, member_successes: np.ndarray, control_successes: np.ndarray | None, baseline: float) -> AttackRisk:
        """From per-person success probabilities (1 or 0, or an expectation over tied avatars). Against the controls
        when there are any: ``max(0, (r_a - r_c) / (1 - r_c))``, the interval from both Wilson intervals (their ends
        crossed); else against the ``baseline`` (SPEC 6.2, revised), whose interval is the members' alone: the
        baseline is lower than what controls reach, so the risk can only be overstated."""
        n_a = len(member_successes)
        hits_a = float(np.sum(member_successes))
        r_a = hits_a / max(n_a, 1)
        a_low, a_high = wilson_interval(round(hits_a), n_a)
        if control_successes is None or len(control_successes) == 0:
            return cls(r_a, None, baseline, excess(r_a, baseline), excess(a_low, baseline), excess(a_high, baseline),
                       "baseline", n_a, 0)
        n_c = len(control_successes)
        hits_c = float(np.sum(control_successes))
        r_c = hits_c / n_c
        c_low, c_high = wilson_interval(round(hits_c), n_c)
        return cls(r_a, r_c, baseline, excess(r_a, r_c), excess(a_low, c_high), excess(a_high, c_low), "control", n_a,
                   n_c)

    def to_percent(self) -> dict[str, object]:
        return {"members": 100 * self.members, "controls": None if self.controls is None else 100 * self.controls,
                "baseline": 100 * self.baseline, "risk": 100 * self.risk, "low": 100 * self.low,
                "high": 100 * self.high, "against": self.against, "members_attacked": self.n_members,
                "controls_attacked": self.n_controls}


def excess(member_rate: float, control_rate: float) -> float:
    """``max(0, (r_a - r_c) / (1 - r_c))``: the members' success beyond what the controls reach (0 when the control
    always succeeds)."""
    if control_rate >= 1:
        return 0.0
    return max(0.0, (member_rate - control_rate) / (1 - control_rate))


@dataclass(frozen=True)
class NearestAvatars:
    """The attacker's nearest avatars for each person asked: the avatar points at the least distance (several when
    tied within ``TIE_TOLERANCE``), as pairs (``person``, ``point``) sorted by person, and per person the number of
    avatars on its tied points (``totals``). The attacker picks one of those avatars at random: each is picked with
    probability ``1 / totals``, so a success counts by its expectation (SPEC 6.2, revised), never by a draw."""

    person: np.ndarray
    point: np.ndarray
    totals: np.ndarray

    def point_mass(self, sizes: np.ndarray) -> np.ndarray:
        """Per avatar point, the share of persons' picks that land on it (summing to 1 over the points)."""
        weights = sizes[self.point] / self.totals[self.person]
        return np.bincount(self.point, weights=weights, minlength=len(sizes)) / len(self.totals)


class KnownSpace:
    """The known variables coded as in SPEC section 2 (standardised numerics, scaled dummies), fitted on the
    members; distances there are the attacker's nearness. Avatars that share their known values are one point of
    the tree (a table of coarse values has millions of avatars on a few thousand points), numbered in the order of
    their coordinates' hashes: nothing depends on the avatars' row order (the same avatars in another order give
    the same risks, byte for byte)."""

    def __init__(self, members: pd.DataFrame, avatars: pd.DataFrame, variables: Sequence[str],
                 kinds: Mapping[str, Kind]):
        self.variables = list(variables)
        self.space = MetricSpace.fit(members[self.variables], {name: kinds[name] for name in self.variables})
        coordinates = self.coordinates(avatars)
        hashes = row_hashes(coordinates)
        _, first, self.point_of_avatar = np.unique(hashes, return_index=True, return_inverse=True)
        points = coordinates[first]
        self.sizes = np.bincount(self.point_of_avatar, minlength=len(points))
        self.scale = max(1.0, float(np.abs(points).max(initial=0.0)))
        self.tree = cKDTree(points, balanced_tree=False, compact_nodes=False)  # quicker: 6x here

    def coordinates(self, frame: pd.DataFrame) -> np.ndarray:
        """``frame``'s rows in the coded space of the known variables (every axis: coded distances kept)."""
        projection = self.space.projection
        return projection.transform(self.space.coded(frame[self.variables]), projection.n_components_ or None)

    def nearest(self, frame: pd.DataFrame) -> NearestAvatars:
        """Per row of ``frame``, the avatar points at the least distance on the known variables."""
        same, asked = distinct_rows(self.coordinates(frame))  # people alike: one question
        rows, points = self._tied_points(asked)
        counts = np.bincount(rows, minlength=len(asked))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        per_person = counts[same]
        person = np.repeat(np.arange(len(same)), per_person)
        offsets = np.arange(len(person)) - np.repeat(np.cumsum(per_person) - per_person, per_person)
        point = points[starts[same][person] + offsets]
        totals = np.bincount(person, weights=self.sizes[point], minlength=len(same))
        return NearestAvatars(person, point, totals)

    def _tied_points(self, asked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (asked row, point) of every point within ``TIE_TOLERANCE`` of each row's least distance, by row."""
        n_points = self.tree.n
        if n_points == 1:
            return np.arange(len(asked)), np.zeros(len(asked), dtype=np.intp)
        distances, found = self.tree.query(asked, k=2, workers=-1)
        reach = distances[:, 0] * (1 + TIE_TOLERANCE) + TIE_TOLERANCE * self.scale
        tied = np.flatnonzero(distances[:, 1] <= reach)
        single = np.flatnonzero(distances[:, 1] > reach)
        if not len(tied):
            return single, found[single, 0]
        balls = self.tree.query_ball_point(asked[tied], reach[tied], workers=-1)
        lengths = np.array([len(ball) for ball in balls])
        rows = np.concatenate([single, np.repeat(tied, lengths)])
        points = np.concatenate([found[single, 0], np.concatenate(balls).astype(np.intp)])
        order = np.argsort(rows, kind="stable")
        return rows[order], points[order]
