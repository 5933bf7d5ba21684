"""The batch work folder against the table (issue 28, item 4): ``python -m benchmarks.batch_staging``.

A 1 000 000-row Parquet table with a 400 000-value identifier (``pid``, letters and digits, drawn at random: up
to a dozen rows on some), an age, a blood pressure, a sex and 30 departments, avatarized with
``--k 10 --batch-rows 250000 --seed 1``; the work folder (``OUT/.work``: the typed columns, then the rows dealt
to the batches) is measured every 0.2 s, its peak against the table: its Parquet file and its typed columns in
memory (pandas). Before (main ``72f4b0e``, the same table): a peak of 299 MB, each staged file carrying the whole
dictionary of every categorical, and every real ``pid`` copied into the avatars (a dozen rows on some ids: not
taken for an identifier); the issue's table (13 MB of Parquet) staged 701 MB.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.run import ROOT, update_section
from core.engine.schema import apply_kinds, resolve_kinds

ROWS, IDS, BATCH_ROWS = 1_000_000, 400_000, 250_000


def table(path: Path) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "pid": np.char.add("P", np.char.zfill(rng.integers(0, IDS, ROWS).astype(str), 7)),
        "age": rng.integers(18, 90, ROWS), "bp": rng.normal(120, 15, ROWS).round(1),
        "sex": rng.choice(["F", "M"], ROWS), "dept": rng.choice([f"d{i}" for i in range(30)], ROWS)})
    frame.to_parquet(path, index=False)
    return frame


def folder_bytes(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:  # gone between the listing and the size
                pass
    return total


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        frame = table(folder / "table.parquet")
        typed_mb = apply_kinds(frame, resolve_kinds(frame)).memory_usage(deep=True).sum() / 2**20
        parquet_mb = (folder / "table.parquet").stat().st_size / 2**20
        out = folder / "out"
        start, peak = time.perf_counter(), 0
        command = subprocess.Popen([sys.executable, "-m", "core", "avatarize", str(folder / "table.parquet"),
                                    "--k", "10", "--batch-rows", str(BATCH_ROWS), "--seed", "1", "--out", str(out)],
                                   cwd=ROOT, stderr=subprocess.PIPE, text=True)
        while command.poll() is None:
            peak = max(peak, folder_bytes(out / ".work"))
            time.sleep(0.2)
        said = command.stderr.read()
        assert command.returncode == 0, said
        seconds = time.perf_counter() - start
        avatars = pd.read_parquet(out)
        copied = int(avatars["pid"].isin(set(frame["pid"])).sum())
    peak_mb = peak / 2**20
    lines = ["## The batch work folder against the table (issue 28, item 4)", "",
             " ".join(__doc__.split("\n\n")[1].split()), "",
             f"Peak of the work folder: {peak_mb:,.0f} MB, {peak_mb / typed_mb:.1f}x the typed table in memory "
             f"({typed_mb:,.0f} MB), {peak_mb / parquet_mb:.0f}x its Parquet file ({parquet_mb:,.0f} MB); the run "
             f"{seconds:.0f} s; real `pid` values in the {len(avatars):,} avatars: {copied}."]
    print("\n".join(lines))
    update_section(lines)


if __name__ == "__main__":
    main()
