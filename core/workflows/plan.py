"""What the user decided about one table before a run: the table as described and what an attacker could know."""

from __future__ import annotations

from dataclasses import dataclass

from core.dataset import Role, Table
from core.metrics.attack import Knowledge


@dataclass(frozen=True)
class ColumnPlan:
    """What the user decided: the table as described (a dataset's :class:`~core.dataset.Table`: its columns' roles,
    kinds and weights, its keys; the Data page's column table, or the command line's options) and what an attacker
    could know and would want to learn (the privacy attacks of SPEC 6.2)."""

    table: Table = Table("table")
    knowledge: Knowledge = Knowledge()

    @property
    def dropped(self) -> tuple[str, ...]:
        """The columns left out of the avatars, removed before the fit."""
        return tuple(self.table.with_role(Role.DROPPED))

    @property
    def excluded(self) -> tuple[str, ...]:
        """The columns set aside and re-attached to the avatars."""
        return tuple(self.table.with_role(Role.SET_APART))
