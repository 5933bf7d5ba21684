"""The three questions a regulator asks (SPEC section 6.2, EDPB WP216): singling out, linkability, inference.

Each privacy metric answers one (its definition's ``criterion``); a criterion is met when every metric of it that
can apply was assessed and meets its target, not met when one misses it, uncertain when none misses it but a risk's
interval reaches past its target, partly assessed or not assessed when some or all of them await the user's choice
of variables (see :class:`CriterionResult`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.i18n import N_
from core.metrics import registry
from core.metrics.definition import INFERENCE, LINKABILITY, SINGLING_OUT
from core.metrics.result import MetricResult

CRITERIA = (SINGLING_OUT, LINKABILITY, INFERENCE)
QUESTIONS = {  # English, as the JSON has them: shown with _(QUESTIONS[criterion])
    SINGLING_OUT: N_("Can someone be picked out of the avatars?"),
    LINKABILITY: N_("Can records about the same person be linked through the avatars?"),
    INFERENCE: N_("Can something sensitive about a person be deduced from the avatars?"),
}


MET, NOT_MET, UNCERTAIN, PARTLY_ASSESSED, NOT_ASSESSED = (
    "met", "not met", "uncertain", "partly assessed", "not assessed")
STATES = {MET: N_("met"), NOT_MET: N_("not met"), UNCERTAIN: N_("uncertain"), PARTLY_ASSESSED: N_("partly assessed"),
          NOT_ASSESSED: N_("not assessed")}  # the JSON's keys; shown with _(STATES[state])


@dataclass(frozen=True)
class CriterionResult:
    """A criterion's metrics, in the registry's order, and its state (SPEC 6.3, revised: never "met" beyond what
    was measured): *not met* when one misses its target; else *uncertain* when a risk meets its target on its
    estimate but not on its interval's upper end (SPEC 6.2, revised again); else *partly assessed* when some are
    assessed and others await the user's choice (no known or sensitive variables); *not assessed* when none is
    assessed; *met* when every metric that can apply was assessed and meets its target."""

    criterion: str
    results: tuple[MetricResult, ...]

    @property
    def failing(self) -> list[MetricResult]:
        return [result for result in self.results if result.passed is False]

    @property
    def assessed(self) -> list[MetricResult]:
        return [result for result in self.results if result.passed is not None]

    @property
    def uncertain(self) -> list[MetricResult]:
        return [result for result in self.results if result.uncertain]

    @property
    def awaiting(self) -> list[MetricResult]:
        """The metrics with a target not assessed because the user has not chosen what they need (one without a
        target, shown beside them, never holds the verdict back)."""
        return [result for result in self.results if result.awaits_choice and result.target is not None]

    @property
    def state(self) -> str:
        if self.failing:
            return NOT_MET
        if self.uncertain:
            return UNCERTAIN
        if not self.assessed:
            return NOT_ASSESSED
        return PARTLY_ASSESSED if self.awaiting else MET

    @property
    def met(self) -> bool | None:
        """True when met, False when not met, None when not (or only partly) assessed."""
        return {MET: True, NOT_MET: False}.get(self.state)

    def to_json(self) -> dict[str, object]:
        return {"question": QUESTIONS[self.criterion], "state": self.state, "met": self.met,
                "metrics": [result.name for result in self.results],
                "failing": [result.name for result in self.failing],
                "uncertain": [result.name for result in self.uncertain],
                "not_assessed": [result.name for result in self.awaiting],
                "not_counted": [result.name for result in self.results if result.note],
                "not_applicable": [result.name for result in self.results if result.value is None
                                   and not result.awaits_choice]}


def criteria_of(privacy: Mapping[str, MetricResult]) -> dict[str, CriterionResult]:
    """``privacy``'s results grouped by criterion (read from the registry: a metric added there is grouped too)."""
    criterion_of = {module.DEFINITION.name: module.DEFINITION.criterion for module in registry.PRIVACY_METRICS}
    return {criterion: CriterionResult(criterion, tuple(
        result for name, result in privacy.items() if criterion_of[name] == criterion)) for criterion in CRITERIA}
