"""One result object per metric, read alike by the app, the JSON and the HTML report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MetricResult:
    """A metric's value with everything needed to show and explain it.

    ``value`` is None when the metric does not apply, with the reason in
    ``not_applicable``. ``goal`` is "maximize" or "minimize"; ``target`` a threshold
    with ``passed`` set when there is one. ``breakdown`` holds the per-variable or
    per-axis detail; ``interpretation`` the plain-language reading of the source
    documents and ``computation`` how the value is computed (the formula). A signal
    metric, which has no target, has a ``band``: a plain reading of its value, with its
    ``level`` ("good", "fair" or "poor") for colour. A ``note`` says why a value is shown but
    leaves the verdict (``passed`` is then None). A metric that does not apply only because the user has not chosen
    what it needs (an attack without known or sensitive variables) ``awaits_choice``: it is *not assessed*, which a
    verdict must say, unlike one that cannot apply (a pairing FastDP does not make). A risk whose estimate meets its
    target while the upper end of its interval does not is ``uncertain`` (SPEC 6.2, revised again): neither met nor
    missed (``passed`` None), shown amber.

    The texts are English (the JSON's): shown, they go through ``_()`` (``label``, ``interpretation``,
    ``computation``, ``band``, ``not_applicable``, and ``note``, a :class:`~core.i18n.Message`).
    """

    name: str
    label: str
    value: float | None
    goal: str
    interpretation: str
    target: float | None = None
    target_text: str | None = None
    passed: bool | None = None
    not_applicable: str | None = None
    breakdown: dict[str, Any] = field(default_factory=dict)
    computation: str | None = None
    band: str | None = None
    level: str | None = None
    note: str | None = None  # why a value shown leaves the verdict (SPEC 6.1: most rows repeat)
    awaits_choice: bool = False  # not assessed yet: it applies once the user chooses what it needs (SPEC 6.3)
    uncertain: bool = False  # the estimate meets the target, the interval's upper end does not (SPEC 6.2)
    unit: str = ""  # "%", "avatars", "/ 100" or "" (a distance, a ratio)


def with_target(value: float | None, target: float) -> bool | None:
    """Whether ``value`` beats a "greater than" target (None when not applicable)."""
    return None if value is None else bool(value > target)
