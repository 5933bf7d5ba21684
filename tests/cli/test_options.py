"""What the command line's options describe (core/cli/options.py): one table of a dataset, as a schema would."""

from pathlib import Path

from core.cli.options import column_plan, table_of_options, table_parameters
from core.cli.parser import build_parser
from core.dataset import Column, Dataset, Kind, Role
from core.metrics.attack import Knowledge


def arguments(*options):
    return build_parser().parse_args(["avatarize", "t.csv", "--out", "a.csv", "--k", "7", *options])


def test_the_column_options_describe_one_table_as_its_schema_would():
    given = arguments("--drop", "department", "--exclude", "zip", "--column-kind", "zip=categorical",
                      "--column-weight", "age=2", "--known", "age", "--sensitive", "zip")
    table = table_of_options(given, Path("data/t.csv"))
    assert table.name == "t.csv" and table.path == "data/t.csv" and table.parameters == {}  # the options' own
    assert table.columns == {"department": Column(Role.DROPPED), "zip": Column(Role.SET_APART, Kind.CATEGORICAL),
                             "age": Column(weight=2.0)}
    plan = column_plan(given, table)
    assert plan.dropped == ("department",) and plan.excluded == ("zip",)
    assert plan.knowledge == Knowledge(known=("age",), sensitive=("zip",))
    chosen = table_parameters(given, table)  # the columns' description read by the engine's parameters
    assert (chosen.k, chosen.exclude_variable_names, chosen.column_kinds, chosen.column_weights) == (
        7, ("zip",), {"zip": "categorical"}, {"age": 2.0})
    assert Dataset.from_dict(Dataset.of_table(table).to_dict()).tables["t.csv"] == table  # a schema of one table
