"""Repeated rows (issue 28, item 5): ``python -m benchmarks.repeated_rows``, a section of RESULTS.md.

Tables of three yes/no columns (8 distinct rows, each repeated n / 8 times), and one of constant rows, avatarized
with ``--k 5 --seed 1 --no-fix --json`` (every metric scored), each command a fresh process timed by GNU time:
wall seconds and peak memory, and the ratio of each size's time to the previous size's (n log n: at most about
2.2 for each doubling). Before (main ``beeaff8``, the issue's figures): 100 000 rows 5.7 s, 200 000 10.5 s,
400 000 35.6 s, 800 000 311 s; 2 000 000 constant rows killed at 400 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from benchmarks.run import ROOT, timed_command, update_section

SIZES = (100_000, 200_000, 400_000, 800_000, 1_600_000, 2_000_000)


def yes_no_table(n_rows: int, path: Path, constant: bool = False) -> Path:
    rng = np.random.default_rng(0)
    values = np.array(["no", "yes"])
    columns = {name: (np.full(n_rows, "yes") if constant else values[rng.integers(0, 2, n_rows)]) for name in "abc"}
    pa_csv.write_csv(pa.table(columns), path)
    return path


def measure(path: Path, folder: Path) -> tuple[float, float]:
    return timed_command([sys.executable, "-m", "core", "avatarize", str(path), "--k", "5", "--seed", "1",
                          "--no-fix", "--out", str(folder / "avatars.csv"), "--json", str(folder / "m.json")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    lines = ["## Repeated rows (issue 28, item 5)", "", " ".join(__doc__.split("\n\n")[1].split()), "",
             "| table | rows | seconds | x previous | peak MB |", "|---|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        previous = None
        for n_rows in sizes:
            seconds, memory = measure(yes_no_table(n_rows, folder / "table.csv"), folder)
            ratio = f"{seconds / previous[1]:.2f} (x{n_rows / previous[0]:.1f} rows)" if previous else ""
            lines.append(f"| three yes/no columns | {n_rows:,} | {seconds:.1f} | {ratio} | {memory:.0f} |")
            previous = (n_rows, seconds)
            print(lines[-1], flush=True)
        n_rows = sizes[-1]
        seconds, memory = measure(yes_no_table(n_rows, folder / "table.csv", constant=True), folder)
        lines.append(f"| constant rows | {n_rows:,} | {seconds:.1f} | | {memory:.0f} |")
        print(lines[-1], flush=True)
    update_section(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
