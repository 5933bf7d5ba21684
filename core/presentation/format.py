"""The one way a metric's value is written: by the command line, the pages, the report and the sweep's tables."""

from __future__ import annotations

from core.metrics.definition import MetricDefinition
from core.metrics.evaluation import ATTACKS, Evaluation
from core.metrics.result import MetricResult

AT_LEAST = ">= "  # before a value that is only a lower bound (a local cloaking whose counts stopped at their cap)
SHOWN_UNITS = ("%", "/ 100")  # units written after a value; others ("avatars") are in the label or the target


def number_text(value: float, unit: str = "") -> str:
    """Three decimals below 1, one from 1 on; a percentage always one (``0.0 %``, not ``0.000``)."""
    return f"{value:.3f}" if abs(value) < 1 and unit != "%" else f"{value:.1f}"


def metric_text(result: MetricResult, unit: str = "") -> str:
    """``result``'s value as shown everywhere: "n/a" when it does not apply, ``>= `` when only a lower bound, then
    the number and ``unit`` (see :data:`SHOWN_UNITS`)."""
    if result.value is None:
        return "n/a"
    prefix = AT_LEAST if result.breakdown.get("at_least") else ""
    suffix = f" {unit}" if unit in SHOWN_UNITS else ""
    return f"{prefix}{number_text(result.value, result.unit)}{suffix}"


def holdout_sentence(evaluation: Evaluation) -> str:
    """Which holdout the signal metrics compared with (SPEC section 5), in one sentence."""
    rows = evaluation.rows
    how = {
        "real": f"a real holdout: {rows['holdout']:,} real rows set aside before the avatars were made and never "
                f"used to make them ({rows['working']:,} rows avatarized)",
        "given": f"the holdout file given: {rows['holdout']:,} real rows kept apart ({rows['working']:,} originals)",
        "approximate": f"an approximate holdout: every row was avatarized, so half of the originals "
                       f"({rows['holdout']:,} rows) were drawn at random as the reference when scoring",
    }[evaluation.holdout]
    return f"Compared with {how}; {rows['avatars']:,} avatars."


def bands_text(definition: MetricDefinition) -> str:
    """A signal metric's bands in words: ``below 0.1: almost identical; 0.1 to 0.3: good fidelity; ...``."""
    bands, parts = list(definition.bands), []
    for index, (limit, _, band) in enumerate(bands):
        if definition.goal == "minimize":
            lower = bands[index - 1][0] if index else None
            parts.append(f"below {limit:g}: {band}" if lower is None else
                         f"above {lower:g}: {band}" if limit == float("inf") else f"{lower:g} to {limit:g}: {band}")
        else:
            upper = bands[index - 1][0] if index else None
            parts.append(f"{limit:g} and above: {band}" if upper is None else
                         f"below {upper:g}: {band}" if limit == float("-inf") else f"{limit:g} to {upper:g}: {band}")
    return "; ".join(parts)


def attack_readings(result: MetricResult) -> list[str]:
    """What an attack achieved, in words: the links made (linkability) or, per sensitive variable, the right
    guesses against guessing the most common value (inference); empty for other metrics or when it did not run."""
    details = result.breakdown
    if result.value is None or result.name not in ATTACKS:
        return []
    if result.name == "linkability_risk":
        return [f"Links made for {details['members']:.1f} % of the people the avatars come from, "
                f"{details['controls']:.1f} % of people never used."]
    readings = []
    for entry in details["per_variable"]:
        figures = (f"right for {entry['members']:.1f} % of the people used, {entry['controls']:.1f} % of people never "
                   f"used; guessing {entry['baseline_guess']} of the avatars for everyone: {entry['baseline']:.1f} %")
        verdict = "" if entry["beats_guessing"] else " no better than guessing:"
        readings.append(f"{entry['variable']}:{verdict} {figures}.")
    return readings
