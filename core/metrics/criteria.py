"""The three questions a regulator asks (SPEC section 6.2, EDPB WP216): singling out, linkability, inference.

Each privacy metric answers one (its definition's ``criterion``); a criterion is met when every metric of it that
applies meets its target, not met when one misses it, and not assessed when none applies (no pairing, no known
variables chosen).
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


@dataclass(frozen=True)
class CriterionResult:
    """A criterion's metrics, in the registry's order, and whether it is met (None: not assessed)."""

    criterion: str
    results: tuple[MetricResult, ...]

    @property
    def failing(self) -> list[MetricResult]:
        return [result for result in self.results if result.passed is False]

    @property
    def assessed(self) -> list[MetricResult]:
        return [result for result in self.results if result.passed is not None]

    @property
    def met(self) -> bool | None:
        if not self.assessed:
            return None
        return not self.failing

    def to_json(self) -> dict[str, object]:
        return {"question": QUESTIONS[self.criterion], "met": self.met,
                "metrics": [result.name for result in self.results],
                "failing": [result.name for result in self.failing],
                "not_assessed": [result.name for result in self.results if result.passed is None]}


def criteria_of(privacy: Mapping[str, MetricResult]) -> dict[str, CriterionResult]:
    """``privacy``'s results grouped by criterion (read from the registry: a metric added there is grouped too)."""
    criterion_of = {module.DEFINITION.name: module.DEFINITION.criterion for module in registry.PRIVACY_METRICS}
    return {criterion: CriterionResult(criterion, tuple(
        result for name, result in privacy.items() if criterion_of[name] == criterion)) for criterion in CRITERIA}
