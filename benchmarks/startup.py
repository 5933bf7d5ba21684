"""How fast a command starts (issue 27): ``python -m benchmarks.startup``, a section of RESULTS.md.

``python -X importtime -c "import core.cli"`` (the parser, before any command; goal under 0.5 s), and
``python -m core avatarize`` of the 100 000-row mixed table (no holdout flag, k = 10): the process's wall time
against the seconds the command reports for its own work (goal: within 1 s). Median of 5 runs each.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.run import DATA, ROOT, update_section
from benchmarks.tables import benchmark_csv

RUNS = 5


def import_seconds() -> float:
    """The cumulative import time of ``core.cli``, as ``-X importtime`` reports it."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import core.cli"], cwd=ROOT,
                            capture_output=True, text=True, check=True)
    line = next(line for line in result.stderr.splitlines() if line.rstrip().endswith("| core.cli"))
    return int(line.split("|")[1]) / 1e6


def avatarize_seconds(path: Path, out: Path) -> tuple[float, float]:
    """The wall time of ``avatarize`` and the seconds it reports for its work."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "core", "avatarize", str(path), "--k", "10", "--seed", "0",
                             "--out", str(out)], cwd=ROOT, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    reported = float(re.search(r", ([\d.]+) s\)\.$", result.stderr.strip()).group(1))
    return wall, reported


def main() -> None:
    path = benchmark_csv(100_000, DATA)
    imports = statistics.median(import_seconds() for _ in range(RUNS))
    with tempfile.TemporaryDirectory() as folder:
        runs = [avatarize_seconds(path, Path(folder) / "a.csv") for _ in range(RUNS)]
    wall, reported = statistics.median(run[0] for run in runs), statistics.median(run[1] for run in runs)
    update_section(["## How fast a command starts", "", __doc__.split("\n\n", 1)[1].replace("\n", " ").strip(), "",
                    f"`import core.cli`: {imports:.3f} s. `avatarize` of 100,000 rows: {wall:.2f} s wall for "
                    f"{reported:.2f} s of work reported ({wall - reported:.2f} s more). Before (main `beeaff8`): "
                    "`import core.cli` 1.7 s, 4.8 s wall for 1.7 s of work."])


if __name__ == "__main__":
    main()
