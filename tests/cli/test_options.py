"""What the command line's options describe (core/cli/options.py): one table of a dataset, as a schema would."""

from pathlib import Path

from core.cli.options import column_plan, table_of_options, table_plan
from core.cli.parser import build_parser
from core.dataset import Column, Dataset, Kind, Role


def arguments(*options):
    return build_parser().parse_args(["avatarize", "t.csv", "--out", "a.csv", "--k", "7", *options])


def test_the_column_options_describe_one_table_as_its_schema_would():
    given = arguments("--drop", "department", "--exclude", "zip", "--column-kind", "zip=categorical",
                      "--column-weight", "age=2", "--known", "age", "--sensitive", "zip")
    table = table_of_options(given, Path("data/t.csv"))
    assert table.name == "t.csv" and table.path == "data/t.csv" and table.parameters == {"k": 7}
    assert table.columns == {"department": Column(Role.DROPPED), "zip": Column(Role.SET_APART, Kind.CATEGORICAL),
                             "age": Column(weight=2.0)}
    assert table_plan(given, table) == column_plan(given)  # the same plan as the options give it
    assert Dataset.from_dict(Dataset.of_table(table).to_dict()).tables["t.csv"] == table  # a schema of one table
