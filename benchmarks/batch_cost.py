"""Batches against one process (issue 51, item 3): ``python -m benchmarks.batch_cost [--rows N] [--rounds R]``.

The mixed table (``benchmarks/tables.py``) of ``--rows`` rows, avatarized with ``--k 10 --seed 0`` from its CSV
into a CSV, in one process holding every row and in batches of 1 000 000 rows on the local cluster (one
single-threaded worker per core), each command a fresh process (:func:`benchmarks.batches.sampled`: wall, CPU of
the command and every process it started, the client's and each worker's peak memory), the two in turn for
``--rounds`` rounds. The ratios are the medians of the rounds' own ratios. The subsection "Batches against one
process" of RESULTS.md is rewritten.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.batches import BATCH_ROWS, sampled
from benchmarks.run import DATA, update_section
from benchmarks.tables import benchmark_csv

GOAL_CPU, GOAL_CLIENT_MB = 1.15, 300


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args()
    table = benchmark_csv(arguments.rows, DATA)
    common = ["avatarize", str(table), "--k", "10", "--seed", "0"]
    rounds: list[tuple[dict, dict]] = []
    with tempfile.TemporaryDirectory() as scratch:
        for number in range(arguments.rounds):
            single = sampled([*common, "--out", str(Path(scratch) / f"single-{number}.csv")])
            batched = sampled([*common, "--batch-rows", str(BATCH_ROWS), "--part-format", "csv", "--out",
                               str(Path(scratch) / f"batches-{number}")])
            rounds.append((single, batched))
            print(f"round {number + 1}: one process {single}, batches {batched}", file=sys.stderr)

    def median(key: str, which: int) -> float:
        return statistics.median(pair[which][key] for pair in rounds)

    def ratio(key: str) -> float:
        return statistics.median(batched[key] / single[key] for single, batched in rounds)

    client = max(batched["client"] for _, batched in rounds)
    workers = ", ".join(f"{max(batched['workers'][i] for _, batched in rounds):,.0f}"
                        for i in range(min(len(batched["workers"]) for _, batched in rounds)))
    update_section([
        "## Batches against one process (issue 51, item 3)",
        "",
        f"`python -m benchmarks.batch_cost --rows {arguments.rows} --rounds {arguments.rounds}`: the "
        f"{arguments.rows:,}-row mixed table (`benchmarks/tables.py`), `--k 10 --seed 0`, CSV in and out, in one "
        f"process against `--batch-rows {BATCH_ROWS}` on the local cluster (one single-threaded worker per core); "
        f"each command a fresh process, the two in turn for {arguments.rounds} rounds; CPU is the command's and "
        "every process it started; ratios are the medians of the rounds' own. Goals: batches at most "
        f"{GOAL_CPU}x one process's CPU, the client's peak at most {GOAL_CLIENT_MB} MB.",
        "",
        "| run | wall | CPU | client peak | worker peaks |",
        "|---|---|---|---|---|",
        f"| one process | {median('wall', 0):.0f} s | {median('cpu', 0):.0f} s | {median('client', 0):,.0f} MB | - |",
        f"| batches | {median('wall', 1):.0f} s | {median('cpu', 1):.0f} s | {client:,.0f} MB | {workers} MB |",
        f"| batches / one process | **{ratio('wall'):.2f}x** | **{ratio('cpu'):.2f}x** | | |",
        "",
        "Before (the issue, main `3041637`): 1.59x one process's CPU, the client at 690 MB, when the client typed "
        "every row into the work folder and fitted the projection in a pass of its own before the first batch. Now "
        "each column is typed by a task, and the projection's sums are each batch's, summed (exact: one batch is "
        "the run in one process byte for byte, `tests/workflows/test_batch_run.py`); the wall time falls below one "
        "process's as the two workers share the batches.",
    ])


if __name__ == "__main__":
    main()
