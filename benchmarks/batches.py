"""Batches on Dask (SPEC section 10): 10 000 000 rows with ``--batch-rows 1000000`` on the local cluster.

Measured, each command a fresh process sampled every 0.2 s with psutil (the client, and each worker process of
the local cluster, its own peak resident memory):
- the batch run of the 10 000 000-row mixed table, scored (``--json``) and not, against the single-process run
  of the same table (it fits here: 24 GB);
- the same batches from one Parquet file (typing reads one column alone);
- the seconds of one batch against the batch's rows, alone on one worker and two at once, on a 2 000 000-row
  table (figure ``benchmarks/batch_time.png``);
- the metrics' mean and worst batch against the metrics of the single-process run at 1 000 000 rows (what
  batching costs in signal and privacy);
- one batch of 1 000 000 rows against the single-process run, byte for byte.

The section "Batches on Dask" of RESULTS.md is rewritten.

    python -m benchmarks.batches [--rows 10000000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import plotly.graph_objects as go
import psutil
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from dask.distributed import LocalCluster

from benchmarks.photograph import photograph
from benchmarks.run import DATA, update_section
from benchmarks.tables import benchmark_csv
from core.metrics.registry import DEFINITIONS
from core.workflows.batch_run import BatchSettings, avatarize_in_batches, local_cluster_options

HERE = Path(__file__).resolve().parent
BATCH_ROWS = 1_000_000
FIGURE_ROWS = 2_000_000
FIGURE_BATCHES = (125_000, 250_000, 500_000, 1_000_000, 2_000_000)
SHOWN = ("hellinger_mean", "correlation_difference_ratio", "multivariate_hellinger_distance", "hidden_rate",
         "local_cloaking", "closest_rate", "distance_to_closest", "closest_distances_ratio",
         "column_direct_match_protection")


def sampled(arguments: list[str]) -> dict:
    """Wall seconds, CPU seconds (the command and every process it started and waited for), the client's peak
    memory and each worker's (MB) of ``python -m core ARGUMENTS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen([sys.executable, "-m", "core", *arguments], stdout=subprocess.DEVNULL,
                                   stderr=errors)
        client, peaks = psutil.Process(process.pid), {}
        while process.poll() is None:
            try:
                for member in (client, *client.children(recursive=True)):
                    peaks[member.pid] = max(peaks.get(member.pid, 0), member.memory_info().rss)
            except psutil.Error:
                pass
            time.sleep(0.2)
        wall = time.perf_counter() - start
        errors.seek(0)
        if process.returncode:
            raise SystemExit(errors.read().decode())
    workers = sorted((rss for pid, rss in peaks.items() if pid != client.pid and rss > 100e6), reverse=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"wall": wall, "cpu": cpu, "client": peaks.get(client.pid, 0) / 1e6,
            "workers": [rss / 1e6 for rss in workers]}


def metric_rows(batched: dict, memory: dict) -> list[str]:
    rows = ["| metric | single process, 1 000 000 rows | batches: mean | batches: worst (batch) |",
            "|---|---|---|---|"]
    for name in SHOWN:
        section = "signal" if name in batched["batches"]["mean"]["signal"] else "privacy"
        if name not in batched["batches"]["mean"][section]:
            continue
        worst = batched["batches"]["worst"][section][name]
        rows.append(f"| {DEFINITIONS[name].label} | {memory[section][name]:.3f} | "
                    f"{batched['batches']['mean'][section][name]:.3f} | {worst['value']:.3f} ({worst['batch']}) |")
    return rows


def time_per_batch(folder: Path) -> dict[int, list[tuple[int, float, float]]]:
    """Per number of workers (1, 2), (batch rows, median seconds of one batch, wall seconds of the whole run) on
    the ``FIGURE_ROWS``-row table, Avatar k = 10, no metrics; each local cluster started before the runs."""
    path = benchmark_csv(FIGURE_ROWS, DATA)
    points: dict[int, list[tuple[int, float, float]]] = {}
    for workers in (1, 2):
        points[workers] = []
        with LocalCluster(**local_cluster_options(workers)) as cluster:
            for batch_rows in FIGURE_BATCHES:
                start = time.perf_counter()
                run = avatarize_in_batches(str(path), folder / f"figure-{workers}-{batch_rows}", {"k": 10, "seed": 0},
                                           BatchSettings(batch_rows=batch_rows, scheduler=cluster.scheduler_address))
                seconds = sorted(run.batch_seconds)[len(run.batch_seconds) // 2]
                points[workers].append((batch_rows, seconds, time.perf_counter() - start))
                print(f"{workers} workers, batches of {batch_rows:,} rows: {seconds:.1f} s each, "
                      f"{points[workers][-1][2]:.1f} s in all", file=sys.stderr)
    return points


def figure_of(points: dict[int, list[tuple[int, float, float]]]) -> go.Figure:
    rows = [batch_rows for batch_rows, _, _ in points[1]]
    lines = [
        ("one batch, alone (1 worker)", [seconds for _, seconds, _ in points[1]], "solid"),
        ("one batch, two at once (2 workers on 2 cores)", [seconds for _, seconds, _ in points[2]], "dash"),
        (f"every batch: the {FIGURE_ROWS:,} rows (2 workers)", [wall for _, _, wall in points[2]], "dot"),
    ]
    figure = go.Figure([go.Scatter(x=rows, y=values, mode="lines+markers", name=name, line={"dash": dash})
                        for name, values, dash in lines])
    figure.update_layout(
        title=f"Seconds against the rows of a batch (Avatar k = 10, {FIGURE_ROWS:,}-row mixed table)",
        template="plotly_white", legend={"orientation": "h", "y": -0.22},
        xaxis={"title": "rows per batch (--batch-rows)", "type": "log", "tickvals": rows},
        yaxis={"title": "seconds", "rangemode": "tozero"}, margin={"l": 70, "r": 30, "t": 60, "b": 90})
    return figure


def parquet_copy(path: Path) -> Path:
    """The CSV table as one Parquet file (streamed: its types are the first block's), written once."""
    target = path.with_suffix(".parquet")
    if not target.exists():
        reader, writer = pa_csv.open_csv(path), None
        for block in reader:
            writer = writer or pq.ParquetWriter(target, block.schema)
            writer.write_batch(block)
        writer.close()
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    rows = parser.parse_args().rows
    big, million = benchmark_csv(rows, DATA), benchmark_csv(BATCH_ROWS, DATA)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        common = ["--k", "10", "--seed", "0"]
        scored = sampled(["avatarize", str(big), *common, "--batch-rows", str(BATCH_ROWS), "--out",
                          str(folder / "scored"), "--json", str(folder / "batched.json")])
        print(f"batches, scored: {scored}", file=sys.stderr)
        plain = sampled(["avatarize", str(big), *common, "--batch-rows", str(BATCH_ROWS), "--out",
                         str(folder / "plain")])
        print(f"batches: {plain}", file=sys.stderr)
        parquet = sampled(["avatarize", str(parquet_copy(big)), *common, "--batch-rows", str(BATCH_ROWS), "--out",
                           str(folder / "parquet")])
        print(f"batches, Parquet input: {parquet}", file=sys.stderr)
        single = sampled(["avatarize", str(big), *common, "--out", str(folder / "single.csv")])
        print(f"single process: {single}", file=sys.stderr)
        sampled(["avatarize", str(million), *common, "--out", str(folder / "million.csv"), "--json",
                 str(folder / "million.json"), "--no-fix"])
        sampled(["avatarize", str(million), *common, "--batch-rows", str(BATCH_ROWS), "--part-format", "csv",
                 "--out", str(folder / "one-batch")])
        same = (folder / "one-batch" / "part-00000.csv").read_bytes() == (folder / "million.csv").read_bytes()
        batched = json.loads((folder / "batched.json").read_text())
        memory = json.loads((folder / "million.json").read_text())
        points = time_per_batch(folder)
    photograph(figure_of(points), HERE / "batch_time.png", 1000, 520)
    count = batched["batches"]["count"]

    def peaks(run: dict) -> str:
        return ", ".join(f"{peak:,.0f}" for peak in run["workers"])

    alone = ", ".join(f"{rows:,}: {seconds:.1f} s" for rows, seconds, _ in points[1])
    together = ", ".join(f"{rows:,}: {seconds:.1f} s" for rows, seconds, _ in points[2])
    walls = ", ".join(f"{rows:,}: {wall:.0f} s" for rows, _, wall in points[2])
    update_section([
        "## Batches on Dask (SPEC section 10)",
        "",
        f"`python -m benchmarks.batches`, {os.cpu_count()} cores: the {rows:,}-row mixed table "
        f"(`benchmarks/tables.py`) avatarized with k = 10 in {count} batches of about {BATCH_ROWS:,} rows "
        f"(`--batch-rows {BATCH_ROWS}`) on the local cluster ({os.cpu_count()} worker processes), against one "
        "process holding the whole table. Peak resident memory sampled every 0.2 s per process.",
        "",
        "| run | wall | client peak | each worker's peak |",
        "|---|---|---|---|",
        f"| single process, every row in memory (CSV) | {single['wall']:.0f} s | {single['client']:,.0f} MB | - |",
        f"| batches (CSV) | {plain['wall']:.0f} s ({plain['wall'] / single['wall']:.2f} x) | {plain['client']:,.0f} MB "
        f"| {peaks(plain)} MB |",
        f"| batches (one Parquet file) | {parquet['wall']:.0f} s | {parquet['client']:,.0f} MB | {peaks(parquet)} MB |",
        f"| batches, each scored (`--json`, CSV) | {scored['wall']:.0f} s | {scored['client']:,.0f} MB | "
        f"{peaks(scored)} MB |",
        "",
        "Typing holds one column of the whole table on a worker: from a CSV, the file read in blocks keeping that "
        "column's text, its type then inferred on the column alone; from Parquet, the column read alone.",
        "",
        f"Seconds against the rows of a batch, on {FIGURE_ROWS:,} rows: one batch alone on one worker ({alone}); "
        f"one batch while another runs on the other worker, the two sharing the 2 cores and the memory bus "
        f"({together}); the whole run with 2 workers ({walls}).",
        "",
        "![seconds against the rows of a batch](batch_time.png)",
        "",
        f"What batching costs: each of the {count} batches scored against its own holdout half, against the single "
        f"process on the same generator's {BATCH_ROWS:,}-row table (its own holdout half):",
        "",
        *metric_rows(batched, memory),
        "",
        f"One batch holding every row of the {BATCH_ROWS:,}-row table gives the single process's avatars byte for "
        f"byte: {'yes' if same else 'NO'}.",
    ])


if __name__ == "__main__":
    main()
