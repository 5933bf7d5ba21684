"""Linkability risk (SPEC section 6.2): can an attacker who holds two parts of a person's record join them through
the avatars?

The known variables are split in two groups A and B (the user's split; by default halves in column order). For
each person, the attacker takes the nearest avatar on A and the nearest avatar on B: the link succeeds when both are
the same avatar. With ``t_A`` and ``t_B`` avatars tied at the least distance on each side, the success counts by its
expectation, the share of the ``t_A x t_B`` equally likely pairs that are one avatar. ``r_a`` is the success over
the persons the avatars were made from, ``r_c`` over real persons never used (the control); risk =
``max(0, (r_a - r_c) / (1 - r_c))`` with its 95 % interval (:mod:`core.metrics.attack`): met or missed on the
risk, uncertain when the interval's upper end passes the target (SPEC 6.2, revised again). The baseline, random linkage, is the chance that the nearest avatars of two unrelated parts (A of one
member, B of another) coincide, ``sum over avatars of f_A(a) f_B(a)``, ``f`` the share of members' picks landing
on avatar ``a``; shown beside the risk, and the reference when no real person was kept apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from core.i18n import N_
from core.metrics.attack import CHOOSE_KNOWN, AttackRisk, KnownSpace, NearestAvatars
from core.metrics.definition import LINKABILITY, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="linkability_risk", label=N_("Linkability risk"), unit="%", goal="minimize", bounds=(0.0, 100.0),
    interpretation=N_("How much more often than for people never used an attacker holding two parts of a person's "
                      "record (the known variables, split in two) joins them through one avatar."),
    criterion=LINKABILITY, target=10.0,
    computation=N_("risk = (r_a - r_c) / (1 - r_c): r_a the links made for the people the avatars come from, r_c for "
                   "real people of the holdout; the target is met or missed on the risk, uncertain when the upper end "
                   "of its 95 % interval passes it."),
)


def compute(context: PrivacyContext) -> MetricResult:
    """The member-versus-control risk of the linkage attack, in %."""
    first, second = context.knowledge.halves
    if not context.knowledge.known:
        return DEFINITION.result(None, not_applicable=CHOOSE_KNOWN, awaits_choice=True)
    if not first or not second:
        return DEFINITION.result(None, not_applicable=N_(
            "Not assessed: it needs at least two known variables, one for each part of the record."), awaits_choice=True)
    if context.sides is None:
        return DEFINITION.result(None, not_applicable=N_("Not applicable: the avatars were not scored against originals."))
    sides, kinds = context.sides, context.reference.kinds
    on_first = KnownSpace(sides.members, context.avatars, first, kinds)
    on_second = KnownSpace(sides.members, context.avatars, second, kinds)
    joint = JointPoints(on_first.point_of_avatar, on_second.point_of_avatar)
    member_first, member_second = on_first.nearest(sides.members), on_second.nearest(sides.members)
    controls = None if sides.approximate else joint.link_successes(on_first.nearest(sides.controls),
                                                                   on_second.nearest(sides.controls))
    baseline = joint.random_linkage(member_first.point_mass(on_first.sizes), on_first.sizes,
                                    member_second.point_mass(on_second.sizes), on_second.sizes)
    risk = AttackRisk.of(joint.link_successes(member_first, member_second), controls, baseline)
    return DEFINITION.result(100 * risk.risk, judged=100 * risk.high, breakdown={
        **risk.to_percent(), "groups": [list(first), list(second)]})


class JointPoints:
    """The avatars counted by their pair of points (on A, on B), the pairs numbered in sorted order."""

    def __init__(self, first: np.ndarray, second: np.ndarray):
        self.n_second = int(second.max(initial=-1)) + 1
        self.keys, self.counts = np.unique(first.astype(np.int64) * self.n_second + second, return_counts=True)

    def count(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """How many avatars sit on point ``first`` on A and ``second`` on B (pairwise)."""
        keys = first.astype(np.int64) * self.n_second + second
        found = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[found] == keys, self.counts[found], 0)

    def link_successes(self, on_first: NearestAvatars, on_second: NearestAvatars) -> np.ndarray:
        """Per person, the chance that its picks on A and on B are the same avatar."""
        n_persons = len(on_first.totals)
        second_counts = np.bincount(on_second.person, minlength=n_persons)
        second_starts = np.concatenate([[0], np.cumsum(second_counts)[:-1]])
        repeats = second_counts[on_first.person]  # each pair on A with every pair of the same person on B
        first_pair = np.repeat(np.arange(len(on_first.person)), repeats)
        offsets = np.arange(len(first_pair)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
        person = on_first.person[first_pair]
        second_pair = second_starts[person] + offsets
        shared = self.count(on_first.point[first_pair], on_second.point[second_pair])
        return np.bincount(person, weights=shared, minlength=n_persons) / (on_first.totals * on_second.totals)

    def random_linkage(self, first_mass: np.ndarray, first_sizes: np.ndarray, second_mass: np.ndarray,
                       second_sizes: np.ndarray) -> float:
        """``sum over avatars of f_A(a) f_B(a)``, each avatar on points ``(p, q)`` having ``f_A = mass_A(p) / size_p``
        and ``f_B = mass_B(q) / size_q``."""
        first, second = self.keys // self.n_second, self.keys % self.n_second
        return float(np.sum(self.counts * first_mass[first] / first_sizes[first]
                            * second_mass[second] / second_sizes[second]))
