import numpy as np
import pandas as pd

from core.engine.schema import profile_columns, resolve_kinds
from core.workflows.run import ColumnPlan
from dashboard.plan import ROLES, plan_from_table, plan_table


def profiles_of(frame):
    return profile_columns(frame, resolve_kinds(frame, {}))


def clinic():
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame({
        "patient": [f"P{i:03d}" for i in range(n)],  # every value different: an identifier
        "age": rng.integers(20, 90, n),
        "stage": rng.integers(1, 4, n),  # a code with three whole values
        "sex": rng.choice(["F", "M"], n),
        "empty": [None] * n,
    })


def test_identifiers_and_empty_columns_start_dropped_and_the_rest_synthesized():
    table = plan_table(profiles_of(clinic()))
    assert list(table["column"]) == ["patient", "age", "stage", "sex", "empty"]
    assert list(table["role"]) == [ROLES["drop"], ROLES["synthesize"], ROLES["synthesize"], ROLES["synthesize"],
                                   ROLES["drop"]]
    assert list(table["kind"][:4]) == ["categorical", "numeric", "categorical", "categorical"]  # stage: a code
    assert list(table["missing (%)"]) == [0.0, 0.0, 0.0, 0.0, 100.0] and (table["weight"] == 1.0).all()
    assert plan_from_table(table, profiles_of(clinic())) == ColumnPlan(dropped=("patient", "empty"))


def test_the_edited_table_gives_the_plan_only_what_differs_from_the_defaults():
    frame = clinic()
    profiles = profiles_of(frame)
    table = plan_table(profiles)
    table.loc[table["column"] == "stage", "kind"] = "numeric"
    table.loc[table["column"] == "sex", "role"] = ROLES["exclude"]
    table.loc[table["column"] == "age", "weight"] = 2.0
    table.loc[table["column"] == "sex", "weight"] = 3.0  # set aside: its weight plays no part
    plan = plan_from_table(table, profiles)
    assert plan == ColumnPlan(kinds={"stage": "numeric"}, dropped=("patient", "empty"), excluded=("sex",),
                              weights={"age": 2.0})
