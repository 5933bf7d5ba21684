"""A link between two tables: a parent's primary key referenced by a column of the child (SPEC 12), and how
child avatars are given parent avatars."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class LinkMethod(StrEnum):
    """How child avatars are attached to parent avatars (SPEC 12 synthesis step 4, SPEC 13)."""

    LINEAR_SUM_ASSIGNMENT = "linear_sum_assignment"  # the assignment of least total cost (default)
    MINIMUM_DISTANCE = "minimum_distance"  # each child to its nearest parent avatar with a slot left
    ORIGINAL_ORDER = "original_order"  # the real family structure kept: sensitive
    TIME_SERIES = "time_series"  # the child is the parent's measures over time (SPEC 13)


@dataclass(frozen=True)
class Link:
    """``child.foreign_key`` references ``parent.key``, the parent's primary key."""

    parent: str
    key: str
    child: str
    foreign_key: str
    method: LinkMethod = LinkMethod.LINEAR_SUM_ASSIGNMENT

    def describe(self) -> str:
        return f"{self.parent}.{self.key} -> {self.child}.{self.foreign_key}"
