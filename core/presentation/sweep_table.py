"""The sweep's figures as tables: the command line's text, the Trade-off page's table and comparison."""

from __future__ import annotations

from collections.abc import Sequence

from core.i18n import N_, _, number
from core.metrics.registry import DEFINITIONS
from core.presentation.format import AT_LEAST, in_english
from core.workflows.sweep import PRIVACY_METRICS, UTILITY_METRICS, SweepPoint


def seed_range_text(point: SweepPoint, metric: str) -> str:
    """``mean (lowest to highest seed)`` with two decimals (the mean alone with one seed), ``>= mean`` when some
    seed's value is only a lower bound (a local cloaking whose counts stopped at their cap), or "n/a"."""
    mean = point.mean(metric)
    if mean is None:
        return _("n/a")
    if metric in point.lower_bounds:
        return f"{AT_LEAST}{number(mean, '.2f')}"
    if len(point._present(metric)) == 1:
        return number(mean, ".2f")
    low, high = point.low(metric), point.high(metric)
    assert low is not None and high is not None  # a mean: some seed measured it
    return _("{mean} ({low} to {high})").format(mean=number(mean, ".2f"), low=number(low, ".2f"),
                                               high=number(high, ".2f"))


TABLE_COLUMNS = {
    "hellinger_mean": N_("Hellinger Mean"), "correlation_difference_ratio": N_("corr. diff. ratio"),
    "hidden_rate": N_("hidden rate (%)"), "local_cloaking": N_("local cloaking"),
    "distance_to_closest": N_("dist. to closest"),
}


def sweep_rows(points: Sequence[SweepPoint]) -> dict[str, list[str]]:
    """The points as table columns: each main metric's mean (lowest to highest seed), and the privacy targets."""
    return {
        _("setting"): [point.setting.label for point in points],
        **{_(label): [seed_range_text(point, name) for point in points] for name, label in TABLE_COLUMNS.items()},
        _("privacy targets"): [point.targets_text() for point in points],
    }


@in_english
def sweep_table(points: Sequence[SweepPoint]) -> list[str]:
    """:func:`sweep_rows` as plain text, for the command line."""
    columns = sweep_rows(points)
    widths = {label: max(len(label), *(len(cell) for cell in cells)) for label, cells in columns.items()}
    first, *middle, last = columns

    def line(cells: dict[str, str]) -> str:
        return (f"{cells[first]:<{widths[first]}}" + "".join(f"  {cells[label]:>{widths[label]}}" for label in middle)
                + f"  {cells[last]}")

    return [line({label: label for label in columns}),
            *(line({label: cells[row] for label, cells in columns.items()}) for row in range(len(points)))]


def comparison_table(first: SweepPoint, second: SweepPoint) -> dict[str, list[str]]:
    """Two settings side by side: every metric (mean, lowest to highest seed) and their privacy targets."""
    labels = {**UTILITY_METRICS, **PRIVACY_METRICS}
    return {
        _("metric"): [*(DEFINITIONS[name].axis_label for name in labels), _("privacy targets, every seed")],
        **{point.setting.label: [*(seed_range_text(point, name) for name in labels), point.targets_text()]
           for point in (first, second)},
    }
