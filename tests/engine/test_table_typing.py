import numpy as np
import pandas as pd
import pytest

from core.engine.io import read_table
from core.engine.sources import TableInput, TypedColumns
from core.engine.table_typing import check_column_kinds, type_column, type_frame, typing_of_columns
from core.errors import InputError


def hostile_csv(path, n_rows=600):
    rng = np.random.default_rng(3)
    day = rng.integers(1, 29, n_rows)
    frame = pd.DataFrame({
        "patient_id": np.arange(1, n_rows + 1),
        "email": [f"p{i}@example.org" for i in range(n_rows)],
        "postcode": [f"{code:05d}" for code in rng.integers(0, 3_000, n_rows)],
        "score": rng.choice([1.0, 2.0, 3.0, np.nan], n_rows),
        "born": [f"{d:02d}/{m:02d}/19{y:02d}" for d, m, y in zip(day, rng.integers(1, 13, n_rows),
                                                                    rng.integers(30, 99, n_rows), strict=True)],
        "stay": [f"{d} days 0{h}:00:00" for d, h in zip(rng.integers(0, 20, n_rows), rng.integers(0, 9, n_rows), strict=True)],
        "region": rng.choice(["EU", "AS", "NA"], n_rows),
        "dose": np.where(rng.random(n_rows) < 0.03, "-", rng.normal(5, 1, n_rows).round(2).astype(str)),
        "empty": [""] * n_rows,
    })
    frame.to_csv(path, index=False)
    return path


def test_a_table_typed_one_column_at_a_time_is_typed_as_in_memory(tmp_path):
    path = hostile_csv(tmp_path / "t.csv")
    options = {"column_kinds": {"score": "numeric"}, "exclude": ["empty"], "column_weights": {"dose": 2.0}}
    expected, expected_typing = type_frame(read_table(path), options["column_kinds"], options["exclude"],
                                           options["column_weights"])
    table = TableInput.open(str(path))
    check_column_kinds(table.columns, options["column_kinds"])
    folder = tmp_path / "columns"
    folder.mkdir()
    columns = [type_column(table, position, options["column_kinds"], folder) for position in range(len(table.columns))]
    typing = typing_of_columns(table.columns, columns, **options)
    assert typing == expected_typing
    assert [form.name for form in typing.identifiers] == ["patient_id", "email"]
    typed = TypedColumns(folder, table.columns, tuple(range(len(table.columns))), columns[0].group_rows)
    pd.testing.assert_frame_equal(typed.read_rows(0), expected)
    assert typed.read_rows(0)["born"].dt.day.max() > 12  # day first, decided on the whole column


def test_a_wrong_kind_or_exclusion_stops_before_any_column_is_read():
    with pytest.raises(InputError, match="column_kinds names column 'agee'"):
        check_column_kinds(("age", "sex"), {"agee": "numeric"})
    with pytest.raises(InputError, match=r"column_kinds\['age'\] must be one of"):
        check_column_kinds(("age", "sex"), {"age": "number"})
