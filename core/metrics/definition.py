"""What a metric is, apart from its value: the one place its name, label, unit, goal, bounds, target, readings and
criterion are written. Each metric module defines one :class:`MetricDefinition`; :mod:`core.metrics.registry`
lists them; the command line, the JSON, the pages, the report and the sweep read them there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.i18n import N_, _
from core.metrics.result import MetricResult, with_target

# The criteria's names are keys (JSON, code); marked so that they can be shown translated, with _(criterion).
SIGNAL, SINGLING_OUT, LINKABILITY, INFERENCE = "signal", N_("singling out"), N_("linkability"), N_("inference")


@dataclass(frozen=True)
class MetricDefinition:
    """A metric's fixed description (SPEC sections 5 and 6).

    ``target`` is a value to exceed, or to stay under for a metric to minimise (an attack's risk: met or missed on
    its estimate, uncertain when the upper end of its interval passes the target); a signal metric has none and is read
    on ``bands`` instead: ``(limit, level, band)`` from the best down, a value at or above ``limit`` (below it, for
    a metric to minimise) taking that reading. ``criterion`` is the question it answers: the signal, or one of the
    three a regulator asks about (SPEC section 6.2).

    The texts (``label``, ``interpretation``, ``computation``, the bands' names) are English, as the JSON has them,
    marked ``N_`` where each metric defines them: they are shown translated, with ``_()``.
    """

    name: str
    label: str
    unit: str
    goal: str
    bounds: tuple[float, float | None]
    interpretation: str
    criterion: str
    computation: str | None = None
    target: float | None = None
    bands: Sequence[tuple[float, str, str]] = ()
    inclusive: bool = False  # the target itself meets it (">= 100 %": no avatar at all may fail)

    @property
    def target_text(self) -> str | None:
        """``> 90 %``, ``< 10 %``: the target as the cards and tables show it."""
        if self.target is None:
            return None
        sign = ("<" if self.goal == "minimize" else ">") + ("=" if self.inclusive else "")
        return f"{sign} {self.target:g}{' ' + self.unit if self.unit else ''}"

    def meets(self, value: float | None) -> bool | None:
        """Whether ``value`` meets the target (None when there is no value or no target)."""
        if value is None or self.target is None:
            return None
        if self.inclusive:
            return bool(value <= self.target) if self.goal == "minimize" else bool(value >= self.target)
        return bool(value < self.target) if self.goal == "minimize" else with_target(value, self.target)

    @property
    def label_in_text(self) -> str:
        """``hidden rate``, ``Hellinger Mean``: the label within a sentence, in the current language."""
        label = _(self.label)
        return label if self.criterion == SIGNAL else label[0].lower() + label[1:]

    @property
    def axis_label(self) -> str:
        """``hidden rate (%)``, ``Hellinger Mean``: the label in a table header or on an axis, in the current
        language."""
        return f"{self.label_in_text} (%)" if self.unit == "%" else self.label_in_text

    def band(self, value: float) -> tuple[str, str]:
        """The (level, band) reading of ``value``."""
        if self.goal == "minimize":
            return next((level, band) for limit, level, band in self.bands if value < limit)
        return next((level, band) for limit, level, band in self.bands if value >= limit)

    def result(
        self, value: float | None, *, not_applicable: str | None = None, breakdown: dict[str, Any] | None = None,
        note: str | None = None, judged: float | None = None, awaits_choice: bool = False,
    ) -> MetricResult:
        """The :class:`MetricResult` of ``value`` (None, with the reason, when the metric does not apply; with a
        ``note``, shown but left out of the verdict). The target is met or missed on ``value``; ``judged``, the far
        end of an interval, makes a value that meets it *uncertain* when it does not (SPEC 6.2, revised again)."""
        level, band = self.band(value) if self.bands and value is not None else (None, None)
        passed = None if note else self.meets(value)
        uncertain = bool(passed and judged is not None and not self.meets(judged))
        return MetricResult(
            name=self.name, label=self.label, value=value, goal=self.goal, interpretation=self.interpretation,
            target=self.target, target_text=self.target_text, passed=None if uncertain else passed,
            not_applicable=not_applicable, breakdown=breakdown or {}, computation=self.computation, band=band,
            level=level, note=note, unit=self.unit, awaits_choice=awaits_choice, uncertain=uncertain,
        )
