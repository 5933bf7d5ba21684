"""Linkability risk (SPEC section 6.2): can an attacker who holds two parts of a person's record join them through
the avatars?

The known variables are split in two groups A and B (the user's split; by default halves in column order). For
each person, the attacker takes the nearest avatar on A and the nearest avatar on B (ties broken at random): the
link succeeds when both are the same avatar. ``r_a`` is the success over the persons the avatars were made from,
``r_c`` over real persons never used (the control); risk = ``max(0, (r_a - r_c) / (1 - r_c))`` with its 95 %
interval (:mod:`core.metrics.attack`), judged on the interval's upper end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.i18n import N_
from core.metrics.attack import CHOOSE_KNOWN, AttackRisk, KnownSpace
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
                   "real people of the holdout; the target is judged on the upper end of the 95 % interval."),
)


def compute(context: PrivacyContext) -> MetricResult:
    """The member-versus-control risk of the linkage attack, in %."""
    first, second = context.knowledge.halves
    if not context.knowledge.known:
        return DEFINITION.result(None, not_applicable=CHOOSE_KNOWN)
    if not first or not second:
        return DEFINITION.result(None, not_applicable=N_(
            "Not applicable: it needs at least two known variables, one for each part of the record."))
    if context.sides is None or len(context.sides.controls) == 0:
        return DEFINITION.result(None, not_applicable=N_(
            "Not applicable: it needs real people kept apart as a control."))
    sides, kinds = context.sides, context.reference.kinds
    on_first = KnownSpace(sides.members, context.avatars, first, kinds)
    on_second = KnownSpace(sides.members, context.avatars, second, kinds)
    members = on_first.nearest_avatar(sides.members) == on_second.nearest_avatar(sides.members)
    controls = on_first.nearest_avatar(sides.controls) == on_second.nearest_avatar(sides.controls)
    risk = AttackRisk.of(members, controls)
    return DEFINITION.result(100 * risk.risk, judged=100 * risk.high, breakdown={
        **risk.to_percent(), "groups": [list(first), list(second)], "approximate_control": sides.approximate})
