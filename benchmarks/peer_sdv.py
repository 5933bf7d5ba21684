"""SDV's GaussianCopulaSynthesizer (issue 30), HMASynthesizer (issue 31) and PARSynthesizer (issue 32) as peers: their
synthetic rows for tables given as CSV files, made in a venv of its own under ``benchmarks/data/sdv-venv`` (SDV
imports CTGAN, hence PyTorch: the CPU build, ``pip install torch==2.13.0`` first, 1.4 GB in all; never one of the
project's requirements). Its metadata detected from each table (``Metadata.detect_from_dataframes``), its defaults
otherwise; a seed set on its model after the fit (``_set_random_state``: without it, SDV samples every time from
one fixed seed)"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from benchmarks.run import DATA, peer_python

PEER = DATA / "sdv-venv"
PEER_PACKAGES = ["torch==2.13.0", "sdv==2.0.0"]  # torch first: the CPU build on this machine's disk
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
    return {name: [Path(out) for out in job["outs"]] for name, job in zip(tables, jobs, strict=True)}


HMA_SCRIPT = """
import json, resource, sys, time, warnings
import pandas as pd
from sdv.metadata import Metadata
from sdv.multi_table import HMASynthesizer
from sdv.utils import drop_unknown_references

warnings.simplefilter("ignore")
job = json.loads(sys.argv[1])
data = {name: pd.read_csv(path, dtype={column: str for column in job["keys"].get(name, [])})
        for name, path in job["tables"].items()}
described = Metadata.detect_from_dataframes(data).to_dict()
described["relationships"] = [{"parent_table_name": link["parent"], "child_table_name": link["child"],
                               "parent_primary_key": link["key"], "child_foreign_key": link["foreign_key"]}
                              for link in job["links"]]
for name, table in described["tables"].items():
    for column in job["keys"].get(name, []):
        table["columns"][column] = {"sdtype": "id"}
    table.pop("primary_key", None)
    if job["primary_keys"].get(name):
        table["primary_key"] = job["primary_keys"][name]
metadata = Metadata.load_from_dict(described)
data = drop_unknown_references(data, metadata, drop_missing_values=False, verbose=False)
for seed, out in zip(job["seeds"], job["outs"]):
    start = time.perf_counter()
    synthesizer = HMASynthesizer(metadata)
    synthesizer.fit(data)
    synthesizer._numpy_seed = seed  # else every sample draws from SDV's one fixed seed: the model's and each table's
    for table in synthesizer._table_synthesizers.values():
        table._set_random_state(seed)
    sampled = synthesizer.sample(num_rows=len(data[job["root"]]), main_table_name=job["root"])
    for name, frame in sampled.items():
        frame.to_csv(f"{out}/{name}.csv", index=False)
    print(json.dumps({"out": out, "seconds": time.perf_counter() - start,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)
"""


def hma(tables: dict[str, Path], primary_keys: dict[str, str], links: list[dict], seeds: tuple[int, ...],
        folder: Path, timeout_s: float) -> list[dict] | str:
    """SDV's HMASynthesizer (its defaults) on linked tables given as CSV files: for each seed, every table sampled at
    the originals' scale into ``folder / f"hma_{seed}"`` (children whose parent is unknown dropped first, as SDV
    requires; missing keys kept), as many rows of the first table without a parent as it has. Each run's seconds and peak memory, or why it did not run (the first line of its
    error, or the ``timeout_s`` it exceeded)."""
    keys = {name: [key for key in [primary_keys.get(name)] if key] for name in tables}
    for link in links:
        keys[link["child"]].append(link["foreign_key"])
    outs = [folder / f"hma_{seed}" for seed in seeds]
    for out in outs:
        out.mkdir(parents=True, exist_ok=True)
    children = {link["child"] for link in links}
    job = {"root": next(name for name in tables if name not in children),
           "tables": {name: str(path) for name, path in tables.items()}, "primary_keys": primary_keys,
           "keys": keys, "links": links, "seeds": list(seeds), "outs": [str(out) for out in outs]}
    return _peer_runs(HMA_SCRIPT, job, timeout_s)


def _peer_runs(script: str, job: dict, timeout_s: float) -> list[dict] | str:
    """``script`` run in the peer's venv on ``job``: each run's line of JSON, or why it did not run (the first line
    of its error, or the ``timeout_s`` it exceeded)."""
    try:
        result = subprocess.run([peer_python(PEER, PEER_PACKAGES), "-c", script, json.dumps(job)],
                                capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return f"did not finish within {timeout_s / 60:.0f} min"
    if result.returncode:
        lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
        raised = [line for line in lines if re.match(r"^[\w.]+(Error|Exception): ", line)]  # not SDV's advert after it
        return f"failed: {(raised or lines or ['no message'])[-1]}"
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


PAR_SCRIPT = """
import json, resource, sys, time, warnings
import numpy as np, pandas as pd, torch
from sdv.metadata import Metadata
from sdv.sequential import PARSynthesizer

warnings.simplefilter("ignore")
job = json.loads(sys.argv[1])
data = pd.read_csv(job["table"], dtype={job["person"]: str})
metadata = Metadata.detect_from_dataframes({"series": data})
metadata.update_column(column_name=job["person"], sdtype="id", table_name="series")
if job["date_format"]:
    metadata.update_column(column_name=job["time"], sdtype="datetime", datetime_format=job["date_format"],
                           table_name="series")
else:
    metadata.update_column(column_name=job["time"], sdtype="numerical", table_name="series")
metadata.set_sequence_key(column_name=job["person"], table_name="series")
metadata.set_sequence_index(column_name=job["time"], table_name="series")
persons = data[job["person"]].nunique()
for seed, out in zip(job["seeds"], job["outs"]):
    start = time.perf_counter()
    torch.manual_seed(seed)
    np.random.seed(seed)
    synthesizer = PARSynthesizer(metadata, context_columns=job["context"], cuda=False)
    synthesizer.fit({"series": data})
    sampled = synthesizer.sample_sequences(num_sequences=persons)
    (sampled["series"] if isinstance(sampled, dict) else sampled).to_csv(out, index=False)
    print(json.dumps({"out": out, "seconds": time.perf_counter() - start,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)
"""


def par(table: Path, person: str, time_column: str, context: list[str], date_format: str | None,
        seeds: tuple[int, ...], folder: Path, timeout_s: float) -> list[dict] | str:
    """SDV's PARSynthesizer (its defaults: 128 epochs, on the CPU) on one long table of measures (``person`` the
    sequence key, ``time_column`` the sequence index, the persons' ``context`` columns constant within each): as
    many sequences as persons, for each seed (torch's and numpy's set before each fit), written as
    ``folder / f"par_{seed}.csv"``. Each run's seconds and peak memory, or why it did not run."""
    job = {"table": str(table), "person": person, "time": time_column, "context": context,
           "date_format": date_format, "seeds": list(seeds), "outs": [str(folder / f"par_{seed}.csv") for seed in seeds]}
    return _peer_runs(PAR_SCRIPT, job, timeout_s)
