"""Batches on Dask (SPEC section 10): 10 000 000 rows with ``--batch-rows 1000000`` on the local cluster.

Measured, each command a fresh process sampled every 0.2 s with psutil (the client, and each worker process of
the local cluster, its own peak resident memory):
- the batch run of the 10 000 000-row mixed table, scored (``--json``) and not, against the single-process run
  of the same table (it fits here: 24 GB);
- the seconds of one batch against the batch's rows, on a 2 000 000-row table (figure
  ``benchmarks/batch_time.png``);
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import plotly.graph_objects as go
import psutil

from benchmarks.photograph import photograph
from benchmarks.run import DATA, update_section
from benchmarks.tables import benchmark_csv
from core.metrics.registry import DEFINITIONS
from core.workflows.batch_run import BatchSettings, avatarize_in_batches

HERE = Path(__file__).resolve().parent
BATCH_ROWS = 1_000_000
FIGURE_ROWS = 2_000_000
FIGURE_BATCHES = (125_000, 250_000, 500_000, 1_000_000, 2_000_000)
SHOWN = ("hellinger_mean", "correlation_difference_ratio", "multivariate_hellinger_distance", "hidden_rate",
         "local_cloaking", "closest_rate", "distance_to_closest", "closest_distances_ratio",
         "column_direct_match_protection")


def sampled(arguments: list[str]) -> dict:
    """Wall seconds, the client's peak memory and each worker's (MB) of ``python -m core ARGUMENTS``."""
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
    return {"wall": wall, "client": peaks.get(client.pid, 0) / 1e6, "workers": [rss / 1e6 for rss in workers]}


def metric_rows(batched: dict, memory: dict) -> list[str]:
    rows = ["| metric | single process, 1 000 000 rows | batches: mean | batches: worst (batch) |",
            "|---|---|---|---|"]
    for name in SHOWN:
        section = "signal" if name in batched["batches"]["mean"]["signal"] else "privacy"
        if name not in batched["batches"]["mean"][section]:
            continue
        worst = batched["batches"]["worst"][section][name]
        rows.append(f"| {DEFINITIONS[name].label} | {memory[section][name]:.3f} | "
                    f"{batched['batches']['mean'][section][name]:.3f} | {worst['value']:.3f} ({worst['batch'] + 1}) |")
    return rows


def time_per_batch(folder: Path) -> list[tuple[int, float]]:
    """(batch rows, median seconds of one batch) on the ``FIGURE_ROWS``-row table, Avatar k = 10, no metrics."""
    path = benchmark_csv(FIGURE_ROWS, DATA)
    points = []
    for batch_rows in FIGURE_BATCHES:
        run = avatarize_in_batches(str(path), folder / f"figure-{batch_rows}", {"k": 10, "seed": 0},
                                   BatchSettings(batch_rows=batch_rows))
        seconds = sorted(run.batch_seconds)
        points.append((batch_rows, seconds[len(seconds) // 2]))
        print(f"batches of {batch_rows:,} rows: {seconds[len(seconds) // 2]:.1f} s each", file=sys.stderr)
    return points


def figure_of(points: list[tuple[int, float]]) -> go.Figure:
    rows = [batch_rows for batch_rows, _ in points]
    figure = go.Figure([
        go.Scatter(x=rows, y=[seconds for _, seconds in points], mode="lines+markers", name="seconds per batch"),
        go.Scatter(x=rows, y=[seconds / batch_rows * 1e6 for batch_rows, seconds in points], mode="lines+markers",
                   name="seconds per million rows", yaxis="y2", line={"dash": "dash"}),
    ])
    figure.update_layout(
        title=f"Time of one batch against its rows (Avatar k = 10, {FIGURE_ROWS:,}-row mixed table, one worker "
              "per batch)", template="plotly_white", legend={"orientation": "h", "y": -0.2},
        xaxis={"title": "rows per batch (--batch-rows)", "type": "log", "tickvals": rows},
        yaxis={"title": "seconds per batch", "rangemode": "tozero"},
        yaxis2={"title": "seconds per million rows", "overlaying": "y", "side": "right", "rangemode": "tozero"},
        margin={"l": 70, "r": 70, "t": 60, "b": 80})
    return figure


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
    workers = ", ".join(f"{peak:,.0f}" for peak in plain["workers"])
    scored_workers = ", ".join(f"{peak:,.0f}" for peak in scored["workers"])
    per_batch = ", ".join(f"{rows:,}: {seconds:.1f} s" for rows, seconds in points)
    update_section([
        "## Batches on Dask (SPEC section 10)",
        "",
        f"`python -m benchmarks.batches`, {os.cpu_count()} cores: the {rows:,}-row mixed table "
        f"(`benchmarks/tables.py`, CSV) avatarized with k = 10 in {count} batches of about {BATCH_ROWS:,} rows "
        f"(`--batch-rows {BATCH_ROWS}`) on the local cluster ({os.cpu_count()} worker processes), against one "
        "process holding the whole table. Peak resident memory sampled every 0.2 s per process.",
        "",
        "| run | wall | client peak | each worker's peak |",
        "|---|---|---|---|",
        f"| single process, every row in memory | {single['wall']:.0f} s | {single['client']:,.0f} MB | - |",
        f"| batches | {plain['wall']:.0f} s ({plain['wall'] / single['wall']:.2f} x) | {plain['client']:,.0f} MB | "
        f"{workers} MB |",
        f"| batches, each scored (`--json`) | {scored['wall']:.0f} s | {scored['client']:,.0f} MB | "
        f"{scored_workers} MB |",
        "",
        f"Time of one batch against its rows on {FIGURE_ROWS:,} rows ({per_batch}): "
        "![time per batch](batch_time.png)",
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
