"""Group statistics, real against avatars (SPEC section 9): the count, mean and median of a number in each group
of a categorical, on WO, on WA and, as the reference for natural variability, on HO.

Groups are the categorical's values in natural order, then "(missing)" when some rows have none; a number's
missing values are left out of its mean and median. Dates and durations are read in days.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.errors import InputError
from core.i18n import N_, _
from core.metrics.analysis import SIDES
from core.metrics.analysis.design import MAX_LEVELS, number_unit, ordered_levels, readable_numbers

MISSING_GROUP = N_("(missing)")  # a group's name, as the JSON has it: shown translated, with _()


@dataclass(frozen=True)
class GroupRow:
    """One group on the three sides: rows, share of the side's rows, mean and median of the number."""

    group: str
    counts: dict[str, int]
    shares: dict[str, float]
    means: dict[str, float | None]
    medians: dict[str, float | None]

    def to_json(self) -> dict[str, object]:
        return vars(self)


@dataclass(frozen=True)
class GroupStatistics:
    """One number by one categorical."""

    value: str
    group: str
    unit: str
    groups: tuple[GroupRow, ...]

    def largest_difference(self, side: str, statistic: str = "means") -> float | None:
        """The largest gap, over groups, between the real rows' statistic and ``side``'s ("avatars" or "holdout",
        the reference)."""
        gaps = [abs(getattr(row, statistic)[side] - getattr(row, statistic)["real"]) for row in self.groups
                if getattr(row, statistic)[side] is not None and getattr(row, statistic)["real"] is not None]
        return max(gaps) if gaps else None

    def to_json(self) -> dict[str, object]:
        return {"value": self.value, "group": self.group, "unit": self.unit,
                "largest_mean_difference": self.largest_difference("avatars"),
                "reference_largest_mean_difference": self.largest_difference("holdout"),
                "groups": [row.to_json() for row in self.groups]}


@dataclass(frozen=True)
class GroupStatisticsResult:
    """Every number asked for, by one categorical."""

    group: str
    tables: tuple[GroupStatistics, ...]

    def to_json(self) -> dict[str, object]:
        return {"group": self.group, "values": [table.to_json() for table in self.tables]}


def group_statistics(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame,
                     kinds: Mapping[str, Kind], group: str, values: Sequence[str] | None = None,
                     ) -> GroupStatisticsResult:
    """Each number of ``values`` (default: every numeric column, dates only when named: a mean date by group is
    rarely the question) by ``group``."""
    if group not in kinds:
        raise InputError(_("The group column '{column}' is not a column of the table: check its spelling.").format(
            column=group))
    values = tuple(name for name in kinds if name != group and kinds[name] is Kind.NUMERIC) \
        if values is None else tuple(values)
    wrong = [name for name in values if name not in kinds or kinds[name] is Kind.CATEGORICAL or name == group]
    if wrong:
        raise InputError(_("Group statistics need numbers other than the group, got '{column}': choose a numeric "
                           "column.").format(column=wrong[0]))
    frames = dict(zip(SIDES, (working, avatars, holdout), strict=True))
    levels = ordered_levels(working[group], avatars[group])
    if len(levels) > MAX_LEVELS:
        raise InputError(_("The group column '{column}' has {count} values; group statistics take at most {most}: "
                           "choose a column with fewer.").format(column=group, count=len(levels), most=MAX_LEVELS))
    labels = {side: frame[group].astype(object).map(lambda value: MISSING_GROUP if pd.isna(value) else str(value))
              for side, frame in frames.items()}
    if any((label == MISSING_GROUP).any() for label in labels.values()):
        levels = [*levels, MISSING_GROUP]
    return GroupStatisticsResult(group, tuple(GroupStatistics(name, group, number_unit(working[name]),
                                                              tuple(_rows(frames, labels, name, levels)))
                                              for name in values))


def _rows(frames: Mapping[str, pd.DataFrame], labels: Mapping[str, pd.Series], value: str, levels: list[str]
          ) -> Iterator[GroupRow]:
    statistics = {}
    for side, frame in frames.items():
        numbers = pd.Series(readable_numbers(frame[value]), index=frame.index)
        grouped = numbers.groupby(labels[side].to_numpy())
        statistics[side] = (grouped.size(), grouped.mean(), grouped.median(), max(len(frame), 1))
    for level in levels:
        counts = {side: int(size.get(level, 0)) for side, (size, _, _, _) in statistics.items()}
        yield GroupRow(level, counts, {side: counts[side] / statistics[side][3] for side in statistics},
                       {side: _number(mean.get(level)) for side, (_, mean, _, _) in statistics.items()},
                       {side: _number(median.get(level)) for side, (_, _, median, _) in statistics.items()})


def _number(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)
