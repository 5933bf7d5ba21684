import numpy as np
import pandas as pd

from core.dataset import Column, Kind, Role, Table
from core.engine.schema import profile_columns, resolve_kinds
from dashboard.plan import plan_from_table, plan_problem, plan_table


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


def test_identifiers_get_new_ones_empty_columns_start_dropped_and_the_rest_synthesized():
    table = plan_table(profiles_of(clinic()))
    assert list(table["column"]) == ["patient", "age", "stage", "sex", "empty"]
    assert list(table["role"]) == ["identifier", "synthesized", "synthesized", "synthesized", "dropped"]
    assert list(table["kind"][:4]) == ["categorical", "numeric", "categorical", "categorical"]  # stage: a code
    assert list(table["missing (%)"]) == ["0.0", "0.0", "0.0", "0.0", "100.0"] and (table["weight"] == 1.0).all()
    described = plan_from_table(table, profiles_of(clinic()), "clinic.csv")  # the dataset's table it describes
    assert described == Table("clinic.csv", columns={"patient": Column(Role.IDENTIFIER), "empty": Column(Role.DROPPED)})
    assert described.keys == ["patient"]  # new identifiers: decided before any kind
    assert plan_problem(table, profiles_of(clinic())) is None


def test_a_constant_column_starts_dropped_as_its_warning_says_unless_some_values_are_missing():
    frame = clinic().assign(region=["north"] * 60, flag=["x"] * 30 + [None] * 30)  # flag: present or missing
    table = plan_table(profiles_of(frame))
    roles = dict(zip(table["column"], table["role"], strict=True))
    assert roles["region"] == Role.DROPPED and roles["flag"] == Role.SYNTHESIZED
    assert plan_from_table(table, profiles_of(frame), "t").with_role(Role.DROPPED) == ["empty", "region"]


def test_an_identifier_synthesised_on_purpose_gets_its_kind_in_the_plan_and_wrong_roles_are_refused():
    profiles = profiles_of(clinic())
    table = plan_table(profiles)
    table.loc[table["column"] == "patient", "role"] = Role.SYNTHESIZED
    described = plan_from_table(table, profiles, "t")
    assert described.column_kinds == {"patient": "categorical"} and described.keys == []  # the engine synthesises it
    table.loc[table["column"] == "age", "role"] = Role.IDENTIFIER
    assert plan_problem(table, profiles).startswith("'age' does not look like an identifier")
    table["role"] = Role.DROPPED
    assert plan_problem(table, profiles).startswith("No column is left to synthesize")


def test_the_edited_table_gives_the_plan_only_what_differs_from_the_defaults():
    frame = clinic()
    profiles = profiles_of(frame)
    table = plan_table(profiles)
    table.loc[table["column"] == "stage", "kind"] = "numeric"
    table.loc[table["column"] == "sex", "role"] = Role.SET_APART
    table.loc[table["column"] == "age", "weight"] = 2.0
    table.loc[table["column"] == "sex", "weight"] = 3.0  # set aside: its weight plays no part
    assert plan_from_table(table, profiles, "t") == Table.described(
        "t", roles={"patient": Role.IDENTIFIER, "sex": Role.SET_APART, "empty": Role.DROPPED},
        kinds={"stage": Kind.NUMERIC}, weights={"age": 2.0})
