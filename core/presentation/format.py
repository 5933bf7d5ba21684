"""The one way a metric's value is written: by the command line, the pages, the report and the sweep's tables."""

from __future__ import annotations

from core.metrics.result import MetricResult

AT_LEAST = ">= "  # before a value that is only a lower bound (a local cloaking whose counts stopped at their cap)
SHOWN_UNITS = ("%", "/ 100")  # units written after a value; others ("avatars") are in the label or the target


def number_text(value: float) -> str:
    """Three decimals below 1, one from 1 on."""
    return f"{value:.3f}" if abs(value) < 1 else f"{value:.1f}"


def metric_text(result: MetricResult, unit: str = "") -> str:
    """``result``'s value as shown everywhere: "n/a" when it does not apply, ``>= `` when only a lower bound, then
    the number and ``unit`` (see :data:`SHOWN_UNITS`)."""
    if result.value is None:
        return "n/a"
    prefix = AT_LEAST if result.breakdown.get("at_least") else ""
    suffix = f" {unit}" if unit in SHOWN_UNITS else ""
    return f"{prefix}{number_text(result.value)}{suffix}"
