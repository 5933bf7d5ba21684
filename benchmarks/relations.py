"""The cost of finding a table's relations (issue 30): ``python -m benchmarks.relations``.

100 000 and 1 000 000 rows x 30 columns: the mixed table of ``benchmarks/tables.py`` three times over (its columns
drawn anew), with six relations planted (a label set by a code, a threshold, age bands, a logarithm, an order of
dates, a total of three parts). The median of three runs of ``find_relations``, set beside the floor of one pass
that factorizes every column (``pandas.factorize``, which any detection on distinct values starts with). Then as a
batch run finds them (``--batch-rows``): on the table's typed column files (one Arrow file per column, as typing
writes them), read a few columns at a time, beside the same floor.

Wide tables (issue 47, ``python -m benchmarks.relations --wide``): 200 rows x 300 and x 1 000 columns, a third each
of decimals, whole numbers from 0 to 99 and five categories, no relation planted: the median of three Avatar runs
(k = 5, no holdout) with the relations searched, beside the same runs with none (``--no-relations``).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.run import update_section
from benchmarks.tables import benchmark_table
from core.dataset.relations import find_relations
from core.engine.pipeline import Avatarizer
from core.engine.sources import TableInput, TypedColumns
from core.engine.table_typing import type_column


def planted_table(n_rows: int) -> pd.DataFrame:
    """30 columns: 3 x 8 of the mixed table but one, and 7 planted (6 relations)."""
    frame = pd.concat([benchmark_table(n_rows, seed).add_suffix(f"_{seed}") for seed in range(3)], axis=1)
    frame = frame.drop(columns="occupation_2")
    rng = np.random.default_rng(9)
    frame["code"] = rng.choice([f"{i:02d}" for i in range(1, 96)], n_rows)
    frame["department"] = "dept " + frame["code"]
    frame["low_income"] = np.where(frame["income_0"] < 15000, "yes", np.where(frame["income_0"].isna(), None, "no"))
    frame["age_band"] = pd.cut(frame["age_1"], [0, 30, 50, 70, 200], right=False).astype(str)
    frame["log_height"] = np.log(frame["height_cm_2"])
    frame["left"] = frame["enrolled_0"] + pd.to_timedelta(rng.integers(0, 400, n_rows), unit="D")
    frame["all_visits"] = frame["visits_0"] + frame["visits_1"] + frame["visits_2"]
    return frame


def measure(n_rows: int) -> list[str]:
    frame = planted_table(n_rows)
    start = time.perf_counter()
    for column in frame.columns:
        pd.factorize(frame[column])
    floor = time.perf_counter() - start
    times = []
    for _ in range(3):
        start = time.perf_counter()
        found = find_relations(frame)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    files, batch_found = on_typed_columns(frame)
    lines = [f"### {n_rows:,} rows x {frame.shape[1]} columns", "",
             f"find_relations: {median:.2f} s (median of 3), floor (factorize every column once) {floor:.2f} s: "
             f"{median / floor:.1f}x the floor. On the typed column files of a batch run: {files:.2f} s, "
             f"{files / floor:.1f}x the floor, {'the same' if batch_found == found else 'OTHER'} relations. "
             f"Found {len(found)}:", ""]
    return lines + [f"- {relation.sentence()}" for relation in found] + [""]


def on_typed_columns(frame: pd.DataFrame) -> tuple[float, list]:
    """The median seconds of ``find_relations`` on ``frame``'s typed column files, and what it finds."""
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        frame.to_parquet(folder / "table.parquet")
        table = TableInput.open(str(folder / "table.parquet"))
        (folder / "columns").mkdir()
        typed = [type_column(table, position, None, folder / "columns") for position in range(len(frame.columns))]
        columns = TypedColumns(folder / "columns", tuple(frame.columns), tuple(range(len(frame.columns))),
                               typed[0].group_rows)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            found = find_relations(columns)
            times.append(time.perf_counter() - start)
    return statistics.median(times), found


def wide_table(n_columns: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    makers = (lambda: rng.normal(size=200).round(2), lambda: rng.integers(0, 100, 200),
              lambda: rng.choice(list("abcde"), 200))
    return pd.DataFrame({f"c{i}": makers[i % 3]() for i in range(n_columns)})


def measure_wide(n_columns: int) -> str:
    frame = wide_table(n_columns)
    seconds = {}
    for searched in (True, False):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            Avatarizer(k=5, seed=1, holdout=False).fit(frame, **({} if searched else {"relations": ()}))
            times.append(time.perf_counter() - start)
        seconds[searched] = statistics.median(times)
    return (f"| 200 x {n_columns:,} | {seconds[True]:.1f} | {seconds[False]:.1f} | "
            f"{seconds[True] / seconds[False]:.1f}x |")


def main() -> None:
    if sys.argv[1:] == ["--wide"]:
        lines = ["## Finding relations in a wide table (issue 47)", "",
                 (__doc__ or "").split("\n\n")[2].replace("\n", " "), "",
                 "Before (main `34902d7`, one run): 300 columns 39.5 s with the search, 1.5 s without (26x); the "
                 "search over pairs went pair by pair and over triples of columns for totals.", "",
                 "| table | with the search (s) | without (s) | ratio |", "|---|---:|---:|---:|"]
        for n_columns in (300, 1_000):
            lines.append(measure_wide(n_columns))
            print(lines[-1], flush=True)
        update_section(lines)
        return
    sizes = [int(size) for size in sys.argv[1:]] or [100_000, 1_000_000]
    lines = ["## Finding relations (issue 30)", "", (__doc__ or "").split("\n\n")[1].replace("\n", " "), ""]
    for n_rows in sizes:
        lines += measure(n_rows)
        print("\n".join(lines))
    update_section(lines)


if __name__ == "__main__":
    main()
