"""The Data page's column table: per column its kind, its role and its weight, to and from a :class:`ColumnPlan`."""

from __future__ import annotations

import pandas as pd

from core.engine.schema import ColumnProfile, WarningKind
from core.workflows.run import ColumnPlan

ROLES = {"synthesize": "synthesize", "exclude": "set aside, re-attach", "drop": "drop"}
KIND_LABELS = ("numeric", "categorical", "datetime")


def plan_table(profiles: list[ColumnProfile]) -> pd.DataFrame:
    """One editable row per column; identifier-like and empty columns start as dropped."""
    dropped_by_default = {WarningKind.IDENTIFIER, WarningKind.EMPTY}
    return pd.DataFrame({
        "column": [p.name for p in profiles],
        "kind": [p.kind.value for p in profiles],
        "role": [
            ROLES["drop"] if any(w.kind in dropped_by_default for w in p.warnings) else ROLES["synthesize"]
            for p in profiles
        ],
        "weight": [1.0] * len(profiles),
        "missing (%)": [round(100 * p.missing_share, 1) for p in profiles],
        "distinct values": [p.n_distinct for p in profiles],
        "warnings": [", ".join(w.kind.value for w in p.warnings) for p in profiles],
    })


def plan_from_table(table: pd.DataFrame, profiles: list[ColumnProfile]) -> ColumnPlan:
    """The plan the edited table describes: kinds that differ from the detected ones, roles, weights other than 1."""
    detected = {p.name: p.kind.value for p in profiles}
    rows = table.to_dict("records")
    return ColumnPlan(
        kinds={row["column"]: row["kind"] for row in rows if row["kind"] != detected[row["column"]]},
        dropped=tuple(row["column"] for row in rows if row["role"] == ROLES["drop"]),
        excluded=tuple(row["column"] for row in rows if row["role"] == ROLES["exclude"]),
        weights={
            row["column"]: float(row["weight"]) for row in rows
            if row["role"] == ROLES["synthesize"] and pd.notna(row["weight"]) and float(row["weight"]) != 1.0
        },
    )
