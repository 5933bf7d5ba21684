"""SDV's GaussianCopulaSynthesizer as a peer (issue 30): its synthetic rows for tables given as CSV files, made in a
venv of its own under ``benchmarks/data/sdv-venv`` (SDV imports CTGAN, hence PyTorch: about 6 GB with its CUDA
libraries; never one of the project's requirements). Its metadata detected from each table
(``Metadata.detect_from_dataframes``), its defaults otherwise; a seed set on its model after the fit
(``_set_random_state``: without it, SDV samples every time from one fixed seed)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from benchmarks.run import DATA, peer_python

PEER = DATA / "sdv-venv"
PEER_PACKAGES = ["sdv==2.0.0"]
SCRIPT = """
import json, sys, time, warnings
import numpy as np, pandas as pd
from sdv.metadata import Metadata
from sdv.single_table import GaussianCopulaSynthesizer

warnings.simplefilter("ignore")
jobs = json.loads(sys.argv[1])
for job in jobs:
    data = pd.read_csv(job["table"])
    metadata = Metadata.detect_from_dataframes({"table": data})
    for seed, out in zip(job["seeds"], job["outs"]):
        start = time.perf_counter()
        synthesizer = GaussianCopulaSynthesizer(metadata)
        synthesizer.fit({"table": data})
        synthesizer._set_random_state(seed)  # else every sample draws from SDV's one fixed seed
        synthesizer.sample(num_rows=len(data))["table"].to_csv(out, index=False)
        print(json.dumps({"out": out, "seconds": time.perf_counter() - start}), flush=True)
"""


def gaussian_copula(tables: dict[str, Path], seeds: tuple[int, ...], folder: Path) -> dict[str, list[Path]]:
    """For each table's CSV, GaussianCopula's synthetic rows (as many as the table's) for each seed, written under
    ``folder`` as ``sdv_{table}_{seed}.csv``."""
    jobs = [{"table": str(path), "seeds": list(seeds), "outs": [str(folder / f"sdv_{name}_{seed}.csv") for seed in seeds]}
            for name, path in tables.items()]
    subprocess.run([peer_python(PEER, PEER_PACKAGES), "-c", SCRIPT, json.dumps(jobs)], check=True, stdout=subprocess.DEVNULL)
    return {name: [Path(out) for out in job["outs"]] for name, job in zip(tables, jobs)}
