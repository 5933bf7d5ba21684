"""What scoring and judging cost beside a plain run, and a plain run beside its floor (issue 51): a section of
RESULTS.md, ``python -m benchmarks.scoring_cost``.

Each case is a table at a size, run as a user runs it (``--k 10 --seed 0``, the real holdout), each command a fresh
process: *plain* (``avatarize``), *scored* (``--json --no-fix``: every metric) and *judged* (``--json``: the verdict,
and the fix search when a target is missed). When the search runs, its verdict is set beside that of a search with no
budget (once per case, every setting it would try): the same status and fix, or what each gives. The three run in turn, round after round (paired runs: a drift of the
machine's speed falls on all three), and each ratio is the median of the rounds' own ratios, in wall time and in
CPU time (user + system, every thread). The floor is measured in its own process on the same rows: reading and
writing the CSV with pyarrow, and a bare exact 11-nearest-neighbour search (scipy's cKDTree, every core) on the
table's own latent points, those the synthesis searches (the working half, projected as the run projects it).

    python -m benchmarks.scoring_cost [--cases diamonds_like:100000,mixed:1000000,...] [--rounds 3]
        [--code CHECKOUT --print-only]  (another checkout's commands, e.g. a worktree of an earlier commit: before)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.public_tables import table_csv
from benchmarks.run import DATA, ROOT, update_section
from benchmarks.tables import benchmark_csv, clinical_csv

CASES = "diamonds_like:100000,mixed:100000,clinical:100000,diamonds_like:1000000,mixed:1000000,clinical:1000000"
TITLE = "## What scoring and judging cost beside a plain run (issue 51)"


def case_csv(name: str, n_rows: int) -> Path:
    if name == "mixed":
        return benchmark_csv(n_rows, DATA)
    if name == "clinical":
        return clinical_csv(n_rows, DATA)
    return table_csv(name, n_rows, DATA)


def measured_process(arguments: list[str], code: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, its threads included) of one fresh process of ``code``'s."""
    start = time.perf_counter()
    process = subprocess.Popen(arguments, cwd=code, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(code)})
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    errors = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed: {errors}")
    return wall, usage.ru_utime + usage.ru_stime


FLOOR = """
import io, json, sys, time
import numpy as np, pandas as pd, pyarrow.csv as pa_csv
from scipy.spatial import cKDTree
from core.engine.pipeline import Avatarizer
path = sys.argv[1]
start, cpu = time.perf_counter(), time.process_time()
table = pa_csv.read_csv(path)
pa_csv.write_csv(table, io.BytesIO())
io_seconds, io_cpu = time.perf_counter() - start, time.process_time() - cpu
points = Avatarizer(k=10, seed=0).latent_coordinates(pd.read_csv(path))
start, cpu = time.perf_counter(), time.process_time()
cKDTree(points).query(points, k=11, workers=-1)
print(json.dumps({"io": io_seconds, "io_cpu": io_cpu, "knn": time.perf_counter() - start,
                  "knn_cpu": time.process_time() - cpu, "points": len(points)}))
"""


def floor(path: Path) -> dict:
    """The floor's parts, in a fresh process (its own latent points: the run's working half, projected)."""
    result = subprocess.run([sys.executable, "-c", FLOOR, str(path)], cwd=ROOT, capture_output=True, text=True,
                            check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(result.stdout.strip().splitlines()[-1])


UNBOUNDED = """
import sys
from core.cli import main
from core.workflows import run
run.search_budget = lambda n_avatarized: 1_000_000  # every setting the search would try
sys.exit(main(sys.argv[1:]))
"""


def unbounded_verdict(command: list[str], folder: Path, code: Path) -> dict:
    """The judged run's verdict with a fix search of no budget, in a fresh process of ``code``'s (once per case)."""
    metrics = folder / "unbounded.json"
    measured_process([sys.executable, "-c", UNBOUNDED, *command[3:], "--json", str(metrics)], code)
    return json.loads(metrics.read_text())["verdict"]


def same_verdict(bounded: dict, unbounded: dict) -> str:
    """"same" when the budget's verdict is the unbounded one's (its status and its fix), else what each gives."""
    def said(verdict: dict) -> str:
        settings = verdict["fix_settings"]
        fix = "no fix" if settings is None else ", ".join(f"{key} {value}" for key, value in settings.items()
                                                         if value not in (None, []))
        return f"{verdict['status']}, {fix}"

    if said(bounded) == said(unbounded):
        return f"same ({len(unbounded['tried'])} tried)"
    return f"differs: {said(bounded)} against {said(unbounded)} ({len(unbounded['tried'])} tried)"


def rounds_of(path: Path, rounds: int, folder: Path, code: Path) -> dict:
    """Plain, scored and judged in turn, ``rounds`` times; the floor once per round; the judged run's verdict."""
    command = [sys.executable, "-m", "core", "avatarize", str(path), "--k", "10", "--seed", "0",
               "--out", str(folder / "avatars.csv")]
    metrics = folder / "metrics.json"
    runs: dict[str, list[tuple[float, float]]] = {"plain": [], "scored": [], "judged": []}
    floors = []
    for _ in range(rounds):
        floors.append(floor(path))
        runs["plain"].append(measured_process(command, code))
        runs["scored"].append(measured_process([*command, "--json", str(metrics), "--no-fix"], code))
        runs["judged"].append(measured_process([*command, "--json", str(metrics)], code))
    verdict = json.loads(metrics.read_text())["verdict"]
    unbounded = unbounded_verdict(command, folder, code) if verdict["tried"] else verdict
    return {"runs": runs, "floors": floors, "status": verdict["status"], "tried": len(verdict["tried"]),
            "unbounded": same_verdict(verdict, unbounded)}


def ratio(numerators: list[float], denominators: list[float]) -> float:
    """The median of the rounds' own ratios."""
    return statistics.median(a / b for a, b in zip(numerators, denominators, strict=True))


def line(name: str, n_rows: int, result: dict) -> str:
    runs, floors = result["runs"], result["floors"]
    floor_wall = [f["io"] + f["knn"] for f in floors]
    floor_cpu = [f["io_cpu"] + f["knn_cpu"] for f in floors]
    wall = {key: [run[0] for run in value] for key, value in runs.items()}
    cpu = {key: [run[1] for run in value] for key, value in runs.items()}
    cells = [f"{name} ({n_rows:,} rows)", f"{statistics.median(floor_wall):.1f} s",
             f"{statistics.median(wall['plain']):.1f} s", f"{statistics.median(wall['scored']):.1f} s",
             f"{statistics.median(wall['judged']):.1f} s",
             f"{ratio(wall['plain'], floor_wall):.2f}x / {ratio(cpu['plain'], floor_cpu):.2f}x",
             f"{ratio(wall['scored'], wall['plain']):.2f}x / {ratio(cpu['scored'], cpu['plain']):.2f}x",
             f"{ratio(wall['judged'], wall['scored']):.2f}x / {ratio(cpu['judged'], cpu['scored']):.2f}x",
             f"{result['status']}, {result['tried']} tried", result["unbounded"]]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=CASES, help="table:rows, comma-separated (diamonds_like, mixed, clinical, "
                                                       "wage_like...)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose commands run (default: this one)")
    parser.add_argument("--print-only", action="store_true", help="print the lines, RESULTS.md left as it is")
    arguments = parser.parse_args()
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for case in arguments.cases.split(","):
            name, size = case.split(":")
            path = case_csv(name, int(size))
            lines.append(line(name, int(size), rounds_of(path, arguments.rounds, Path(folder), arguments.code)))
            print(lines[-1], file=sys.stderr, flush=True)
    if arguments.print_only:
        return
    update_section([
        TITLE, "",
        "Each table run as a user runs it (`--k 10 --seed 0`, the real holdout), fresh processes in turn round after "
        f"round ({arguments.rounds} rounds): plain `avatarize`, scored (`--json --no-fix`), judged (`--json`). Ratios "
        "are the medians of the rounds' own ratios, wall / CPU (user + system). Floor: reading and writing the CSV "
        "(pyarrow) and a bare exact 11-NN search (cKDTree, every core) on the table's own latent points (the working "
        "half as the run projects it). Goals: plain at most 1.5x the floor, scored at most 1.3x "
        "plain, judged at most 2x scored. `python -m benchmarks.scoring_cost`.", "",
        "| table | floor | plain | scored | judged | plain / floor | scored / plain | judged / scored | verdict | "
        "unbounded search |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |", *lines])


if __name__ == "__main__":
    main()
