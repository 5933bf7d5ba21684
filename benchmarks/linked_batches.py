"""Linked tables in batches on Dask (issue 51, item 4): the clinical shape (patients -> stays -> prescriptions,
``assets/make_demo_data.make_demo_dataset``: 1 patient, 2 stays and 6.8 prescriptions in 9.8 rows) at
1 000 000, 10 000 000 and 30 000 000 rows, ``avatarize --tables --batch-rows 1000000`` on the local cluster
(two single-threaded workers) against the same tables in one process (``avatarize --tables``) where they fit.

Each command is a fresh process (Avatar, k = 10, seed 1, Parquet inputs and parts), sampled every 0.2 s with psutil:
wall seconds, CPU seconds of the command and every process it started, the client's peak resident memory and each
worker's. The section "Linked tables in batches" of RESULTS.md is rewritten.

    python -m benchmarks.linked_batches [--rows 1000000 10000000 30000000] [--memory-up-to 10000000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from pathlib import Path

from assets.make_demo_data import DATASET_SCHEMA, make_demo_dataset
from benchmarks.batches import sampled
from benchmarks.run import update_section

ROWS_PER_PATIENT = 9.811  # the demo's 1 000 patients make 9 811 rows
BATCH_ROWS = 1_000_000
FIGURES = Path(__file__).with_name("linked_batches.json")  # each size's figures, kept across runs of some sizes
OPTIONS = ["--k", 10, "--seed", 1]


def clinical_tables(rows: int, folder: Path) -> tuple[Path, dict[str, int]]:
    """The clinical shape of about ``rows`` rows written as Parquet files in ``folder``, its schema's path and each
    table's rows."""
    folder.mkdir(parents=True, exist_ok=True)
    frames = make_demo_dataset(round(rows / ROWS_PER_PATIENT), seed=1)
    schema = json.loads(json.dumps(DATASET_SCHEMA))
    for name, frame in frames.items():
        frame.to_parquet(folder / f"{name}.parquet", index=False)
        schema["tables"][name]["path"] = f"{name}.parquet"
    (folder / "schema.json").write_text(json.dumps(schema))
    return folder / "schema.json", {name: len(frame) for name, frame in frames.items()}


def measured(rows: int, work: Path, in_memory: bool, rounds: int) -> dict:
    """The batch run and (``in_memory``) the run in one process of the tables of about ``rows`` rows, paired
    ``rounds`` times (the two one after the other in each round); the median of each figure."""
    schema, sizes = clinical_tables(rows, work / f"tables-{rows}")
    arguments = ["avatarize", "--tables", str(schema), *map(str, OPTIONS), "--part-format", "parquet"]
    runs: dict[str, list[dict]] = {"batches": [], "memory": []}
    for round_ in range(rounds):
        for mode in ("batches", "memory") if in_memory else ("batches",):
            out = work / f"{mode}-{rows}-{round_}"
            batch = ["--batch-rows", str(BATCH_ROWS)] if mode == "batches" else []
            runs[mode].append(sampled([*arguments, *batch, "--out", str(out)]))
            shutil.rmtree(out)
            print(rows, mode, runs[mode][-1], flush=True)
    figures: dict = {"rows": sum(sizes.values()), "sizes": sizes, "rounds": rounds}
    for mode, measures in runs.items():
        if measures:
            figures[mode] = {key: statistics.median(measure[key] for measure in measures)
                             for key in ("wall", "cpu", "client")}
            figures[mode]["workers"] = [statistics.median(peaks) for peaks in zip(
                *(sorted(measure["workers"], reverse=True)[:2] for measure in measures), strict=False)]
    shutil.rmtree(work / f"tables-{rows}")
    return figures


def section(results: list[dict]) -> list[str]:
    lines = ["## Linked tables in batches (issue 51, item 4)", "",
             "The clinical shape (patients -> stays -> prescriptions, `make_demo_dataset`), Avatar k = 10, seed 1, "
             f"Parquet in and out; `avatarize --tables schema.json --batch-rows {BATCH_ROWS:,}` on the local cluster "
             "(2 single-threaded workers, this machine's 2 cores) against `avatarize --tables schema.json` in one "
             "process. Each a fresh process; CPU: the command and every process it started; up to 1 000 000 rows "
             "the median of 3 paired rounds, beyond one round.", "",
             "| rows (patients / stays / prescriptions) | batches | wall s | CPU s | client peak MB | worker peaks MB "
             "| one process: wall s | CPU s | peak MB | wall ratio | CPU ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for figures in results:
        batched, sizes = figures["batches"], figures["sizes"]
        row = (f"| {figures['rows']:,} ({sizes['patients']:,} / {sizes['stays']:,} / {sizes['prescriptions']:,}) | "
               f"{-(-figures['rows'] // BATCH_ROWS)} | {batched['wall']:.0f} | {batched['cpu']:.0f} | "
               f"{batched['client']:.0f} | {', '.join(f'{peak:.0f}' for peak in batched['workers'][:2])} |")
        memory = figures.get("memory")
        if memory is None:
            row += " (not run) | | | | |"
        elif memory.get("stopped"):  # a run stopped by hand, its figures when stopped
            row += (f" stopped at {memory['wall']:.0f} ({memory['stopped']}) | {memory['cpu']:.0f} | "
                    f"{memory['client']:.0f} | < {batched['wall'] / memory['wall']:.2f}x | "
                    f"< {batched['cpu'] / memory['cpu']:.2f}x |")
        else:
            row += (f" {memory['wall']:.0f} | {memory['cpu']:.0f} | {memory['client']:.0f} | "
                    f"{batched['wall'] / memory['wall']:.2f}x | {batched['cpu'] / memory['cpu']:.2f}x |")
        lines.append(row)
    lines += [
        "",
        "A batch holds about a million rows of the three tables, whole families; a worker holds one batch at a time "
        "(under 1 GB). What grows with the tables is a task that reads one column of one table whole (as one "
        "table's batches type a column: 1.3 GB at 28 million rows, a column of 19.6 million), and the task that "
        "deals a child table, which reads its foreign key and its parent's keys as Arrow holds them: no Python text "
        "per row. Before (main `dad15a3`, the keys as Python texts, the same tables): 692 s, "
        "1 277 s of CPU and worker peaks of 1 607 and 852 MB at 9.5 million rows; 2 197 s, 3 968 s of CPU and 4 979 "
        "and 2 143 MB at 28 million, the dealing task's peak growing with the tables (19.6 million foreign keys "
        "against 5.7 million stays, that task alone: 4.2 GB and 63 s, now 1.35 GB and 9 s). The client holds no "
        "row. One batch is the run in one process byte for byte "
        "(`tests/workflows/test_linked_batch_run.py`); with one batch the run cannot use the second worker, so at "
        "1 000 000 rows (one batch) the ratio is the cost of reading, dealing and setting down the rows, and of a "
        "worker's single BLAS thread.",
        "",
        "At 10 000 000 rows the run in one process was stopped by hand after 1 404 s, in the linkage of the "
        "prescription avatars to the stay avatars (py-spy: `_nearest_with_slot_left`, the greedy start, which "
        "builds a tree over every parent with room left at each round; on heavy-tailed synthetic clouds its rounds "
        "go from 46 to 80 and its time from 1.0 s to 5.0 s as the children go from 100 000 to 400 000). In batches "
        "each linkage is a batch's.",
        "",
        "Reproduce: `python -m benchmarks.linked_batches --rows 1000000 10000000 30000000 --memory-up-to 10000000` "
        "(each size's figures are kept in `benchmarks/linked_batches.json`; a size can be run again alone)."]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000, 30_000_000])
    parser.add_argument("--memory-up-to", type=int, default=10_000_000,
                        help="run the same tables in one process up to this many rows")
    parser.add_argument("--rounds-up-to", type=int, default=1_000_000,
                        help="pair the runs 3 times up to this many rows (once beyond)")
    parser.add_argument("--folder", type=Path, default=None, help="where the tables and avatars go (default: a "
                                                                  "temporary folder)")
    arguments = parser.parse_args()
    kept = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
    with tempfile.TemporaryDirectory(dir=arguments.folder) as folder:
        for rows in arguments.rows:
            figures = measured(rows, Path(folder), rows <= arguments.memory_up_to,
                               3 if rows <= arguments.rounds_up_to else 1)
            if "memory" not in figures and "memory" in kept.get(str(rows), {}):  # batches alone: one process's kept
                figures["memory"] = kept[str(rows)]["memory"]
            kept[str(rows)] = figures
            FIGURES.write_text(json.dumps(kept, indent=1))
    update_section(section([kept[rows] for rows in sorted(kept, key=int)]))


if __name__ == "__main__":
    main()
