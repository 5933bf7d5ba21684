import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from core.engine.batches import batch_count, deal, read_batch, stage_group
from core.engine.sources import TypedColumns, column_file, write_arrow


def test_a_rows_batch_depends_on_the_seed_and_its_number_alone():
    whole = deal(seed=5, start=0, n_rows=10_000, n_batches=7)
    cut = np.concatenate([deal(5, 0, 3_001, 7), deal(5, 3_001, 4_999, 7), deal(5, 8_000, 2_000, 7)])
    assert np.array_equal(whole, cut)  # however the table is cut into files or groups
    assert not np.array_equal(whole, deal(6, 0, 10_000, 7))
    assert deal(5, 0, 1_000, 1).tolist() == [0] * 1_000  # one batch: the table, in order


def test_batches_are_about_the_same_size_and_drawn_from_everywhere():
    batches = deal(seed=0, start=0, n_rows=1_000_000, n_batches=10)
    sizes = np.bincount(batches, minlength=10)
    assert np.all(np.abs(sizes - 100_000) < 5 * np.sqrt(100_000))  # binomial: sd 300 rows
    first, last = np.bincount(batches[:100_000], minlength=10), np.bincount(batches[-100_000:], minlength=10)
    assert np.all(np.abs(first - 10_000) < 500) and np.all(np.abs(last - 10_000) < 500)


@given(n_rows=st.integers(1, 10_000_000), batch_rows=st.integers(2, 3_000_000))
def test_the_number_of_batches_holds_at_most_batch_rows_on_average(n_rows, batch_rows):
    count = batch_count(n_rows, batch_rows)
    assert count >= 1 and n_rows / count <= batch_rows and (count == 1 or n_rows / (count - 1) > batch_rows)


def test_each_batch_reads_back_its_rows_in_the_tables_order(tmp_path):
    frame = pd.DataFrame({"x": np.arange(1_000.0), "c": pd.Categorical(np.where(np.arange(1_000) % 3, "a", "b"))})
    columns = tmp_path / "columns"
    columns.mkdir()
    sizes = []
    for position, name in enumerate(frame.columns):
        sizes = write_arrow(pa.Table.from_pandas(frame[[name]], preserve_index=False),
                            column_file(columns, position), 300)
    typed = TypedColumns(columns, ("x", "c"), (0, 1), tuple(sizes))
    assert typed.group_rows == (300, 300, 300, 100) and typed.group_start(2) == 600
    (tmp_path / "batches").mkdir()
    counts = [stage_group(typed, group, seed=1, n_batches=3, folder=tmp_path / "batches") for group in range(4)]
    assert sum(sum(group.values()) for group in counts) == 1_000
    batches = deal(1, 0, 1_000, 3)
    for batch in range(3):
        rows = read_batch(typed, tmp_path / "batches", batch)
        pd.testing.assert_frame_equal(rows, frame[batches == batch].reset_index(drop=True))
