"""`make bench`: wall time and peak memory of the command line against its floor, written to RESULTS.md.

For each size (mixed tables of :mod:`benchmarks.tables`), each measure is the median of
``--repeats`` runs, each command a fresh process timed by GNU time (wall seconds, peak
resident memory). The floor is measured in the same run: reading and writing the CSV
with pyarrow, plus an exact 11-nearest-neighbour search on as many 5-D points with
scipy's cKDTree on every core. Ratios, not raw times, are what compare across machines.

    python -m benchmarks.run [--sizes 10000,100000,1000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import venv
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.csv as pa_csv
from scipy.spatial import cKDTree

from benchmarks.tables import benchmark_csv, clinical_csv
from core.dataset import Role, Table
from core.engine.io import read_table, use_system_memory_pool
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer
from core.engine.schema import apply_kinds, drop_columns, resolve_kinds
from core.metrics.analysis.request import AnalysisRequest
from core.metrics.evaluation import analyse, evaluate_avatarization
from core.metrics.registry import PRIVACY_METRICS, SIGNAL_METRICS
from core.metrics.risk_profile import risk_profile
from core.workflows.plan import ColumnPlan
from core.workflows.run import build_avatarizer
from core.workflows.sweep import run_sweep, sweep_settings
from tests.support import mixed_table

ROOT = Path(__file__).resolve().parents[1]
PEER_MAX_ROWS = 100_000
SWEEP_ROWS = 10_000
SWEEP_K = "2,5,10,20,50"
DATA = ROOT / "benchmarks" / "data"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
COMMANDS = {
    "Avatar k = 10": ["--k", "10"],
    "FastDP gaussian": ["--fast-dp-epsilon", "1", "--mechanism", "gaussian"],
    "FastDP gmm": ["--fast-dp-epsilon", "1", "--mechanism", "gmm"],
    "FastDP histogram": ["--fast-dp-epsilon", "1", "--mechanism", "histogram"],
}


def peer_python(folder: Path, packages: list[str]) -> Path:
    """The Python of a peer's venv under ``folder`` (made once, with ``packages``): a peer measured side by side is
    never one of the project's requirements."""
    python = folder / "bin" / "python"
    if not python.exists():
        venv.create(folder, with_pip=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *packages],
                       check=True)
    return python


def mean_error(values: list[float | None]) -> str:
    """``mean ± standard error`` of the values known over the seeds, ``n/a`` without any."""
    known = [value for value in values if value is not None]
    if not known:
        return "n/a"
    error = statistics.stdev(known) / len(known) ** 0.5 if len(known) > 1 else 0.0
    return f"{statistics.mean(known):.1f} ± {error:.1f}"


def timed_command(arguments: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of one command, in a fresh process."""
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", *arguments], cwd=ROOT, capture_output=True, text=True, check=True
    )
    seconds, kilobytes = result.stderr.strip().splitlines()[-1].split()
    return float(seconds), float(kilobytes) / 1024


def floor_seconds(path: Path, n_rows: int) -> tuple[float, float]:
    """Reading and writing the CSV (pyarrow), and a bare exact 11-NN search in 5-D (cKDTree, all cores)."""
    start = time.perf_counter()
    table = pa_csv.read_csv(path)
    pa_csv.write_csv(table, io.BytesIO())
    io_seconds = time.perf_counter() - start
    points = np.random.default_rng(0).standard_normal((n_rows, 5))
    start = time.perf_counter()
    cKDTree(points).query(points, k=11, workers=-1)
    return io_seconds, time.perf_counter() - start


def median_seconds(repeats: int, run) -> float:
    """Median wall seconds of ``run()`` in this process."""
    def seconds() -> float:
        start = time.perf_counter()
        run()
        return time.perf_counter() - start

    return statistics.median(seconds() for _ in range(repeats))


def median_of(repeats: int, measure) -> tuple[float, float]:
    runs = [measure() for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def bench_size(n_rows: int, repeats: int, folder: Path) -> dict:
    path = benchmark_csv(n_rows, DATA)
    table_mb = pd.read_csv(path).memory_usage(deep=True).sum() / 2**20
    floors = [floor_seconds(path, n_rows) for _ in range(repeats)]
    io_floor = statistics.median(f[0] for f in floors)
    knn_floor = statistics.median(f[1] for f in floors)
    python = [sys.executable, "-m", "core", "avatarize", str(path), "--seed", "1", "--no-holdout", "--ncp", "5"]
    measures = {}
    for label, options in COMMANDS.items():
        out = folder / f"{n_rows}.csv"
        measures[label] = median_of(repeats, lambda options=options, out=out: timed_command(
            [*python, *options, "--out", str(out)]))
    metrics = folder / f"{n_rows}.json"
    measures["Avatar k = 10 --json (every metric, attacks included)"] = median_of(repeats, lambda: timed_command([
        *python, "--k", "10", "--out", str(folder / "j.csv"), "--json", str(metrics), *ATTACKER, "--no-fix"]))
    timings = json.loads(metrics.read_text())["timings_s"]
    return {"rows": n_rows, "table_mb": table_mb, "io_floor": io_floor, "knn_floor": knn_floor,
            "measures": measures, "timings": timings, "peer": peer_line(n_rows, repeats),
            "risk_profile": median_seconds(repeats, lambda: profile_upload(path)),
            "sweep": sweep_lines(repeats, folder) if n_rows == SWEEP_ROWS else []}


ATTACKER = ["--known", "age", "sex", "region", "enrolled", "--sensitive", "income", "occupation"]


def profile_upload(path: Path) -> None:
    """The Data page's risk profile (SPEC 6.4) on the attacker's known variables, once the table is typed."""
    frame = read_table(path)[ATTACKER[1:5]]
    kinds = resolve_kinds(frame)
    risk_profile(apply_kinds(frame, kinds), kinds, ATTACKER[1:5])


def sweep_lines(repeats: int, folder: Path) -> list[str]:
    """The trade-off sweep on the benchmark table and on the clinical-like table, both at ``SWEEP_ROWS`` rows."""
    return [
        sweep_line(benchmark_csv(SWEEP_ROWS, DATA), "mixed benchmark table (independent noise)", [], repeats, folder),
        sweep_line(clinical_csv(SWEEP_ROWS, DATA), "clinical-like table of the demo", ["patient_id"], repeats, folder),
    ]


def sweep_line(path: Path, table: str, dropped: list[str], repeats: int, folder: Path) -> str:
    """The trade-off sweep (5 k values x 3 seeds, every run scored) against one scored Avatar run at the largest k.

    Both with the default holdout, as commands (fresh processes) and in process.
    """
    largest = SWEEP_K.split(",")[-1]
    common = ["--seed", "0", "--ncp", "5", *(option for name in dropped for option in ("--drop", name))]
    sweep = [sys.executable, "-m", "core", "sweep", str(path), "--k", SWEEP_K, "--seeds", "3", *common,
             "--json", str(folder / "sweep.json")]
    single = [sys.executable, "-m", "core", "avatarize", str(path), "--k", largest, *common,
              "--out", str(folder / "single.csv"), "--json", str(folder / "single.json")]
    sweep_seconds = median_of(repeats, lambda: timed_command(sweep))[0]
    single_seconds = median_of(repeats, lambda: timed_command(single))[0]
    frame, plan = read_table(path), ColumnPlan(Table.described(path.name, roles=dict.fromkeys(dropped, Role.DROPPED)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        settings = sweep_settings([int(k) for k in SWEEP_K.split(",")])
        sweep_in_process = median_seconds(
            repeats, lambda: run_sweep(frame, plan, Parameters(seed=0, ncp=5), settings, n_seeds=3)
        )
        kept = drop_columns(frame, dropped, "dropped")
        single_in_process = median_seconds(
            repeats,
            lambda: evaluate_avatarization(build_avatarizer(plan, Parameters(k=int(largest), seed=0, ncp=5)).fit(kept)),
        )
    return (
        f"Trade-off sweep on the {table}, {SWEEP_ROWS:,} rows, k = {SWEEP_K} x 3 seeds, every run scored, against "
        f"one scored Avatar run at k = {largest}: as commands {sweep_seconds:.2f} s / {single_seconds:.2f} s = "
        f"{sweep_seconds / single_seconds:.1f}x; in process {sweep_in_process:.2f} s / {single_in_process:.2f} s = "
        f"{sweep_in_process / single_in_process:.1f}x."
    )


def peer_line(n_rows: int, repeats: int) -> str:
    """SDV's GaussianCopula (fit + sample as many rows) beside Avatar's fit, in process, on the same table.

    Optional: measured only where SDV is installed (``pip install -r requirements-bench.txt``), and only up to
    ``PEER_MAX_ROWS`` rows.
    """
    try:
        from sdv.metadata import Metadata
        from sdv.single_table import GaussianCopulaSynthesizer
    except ImportError:
        return (f"SDV GaussianCopula at {n_rows:,} rows: skipped, SDV is not installed here "
                "(`pip install -r requirements-bench.txt`, which takes torch 2.13.0, the CPU build on disk, first).")
    if n_rows > PEER_MAX_ROWS:
        return f"SDV GaussianCopula at {n_rows:,} rows: not measured (the comparison stops at {PEER_MAX_ROWS:,} rows)."
    frame = read_table(benchmark_csv(n_rows, DATA))

    def copula() -> None:
        synthesizer = GaussianCopulaSynthesizer(Metadata.detect_from_dataframe(frame))
        synthesizer.fit(frame)
        synthesizer.sample(len(frame))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            copula_seconds = median_seconds(repeats, copula)
        except Exception as error:  # a peer's own failure is a result to report, not a reason to stop the benchmark
            return f"SDV GaussianCopula at {n_rows:,} rows: failed ({type(error).__name__}: {error})."
        avatar_seconds = median_seconds(repeats, lambda: Avatarizer(k=10, seed=0, holdout=False).fit(frame))
    return (
        f"Peer, in process, {n_rows:,} rows in and out: SDV GaussianCopula (fit + sample) {copula_seconds:.2f} s, "
        f"Avatar k = 10 {avatar_seconds:.2f} s: Avatar is {copula_seconds / avatar_seconds:.1f}x faster."
    )


DEFAULTS_SECTION = "## Identifier and many-modality columns (the defaults of SPEC section 2 step 1)"


def default_cases_lines(repeats: int, folder: Path) -> list[str]:
    """Time and peak memory of the two tables that used to run away: a unique e-mail column (20 000 rows) and a
    30 000-code column (60 000 rows), now handled by default (new identifiers; categorical reduction)."""
    rng = np.random.default_rng(0)
    emails = mixed_table(20_000, seed=1, missing=0.05).assign(
        email=[f"person{i}@example.org" for i in rng.permutation(20_000)])
    codes = mixed_table(60_000, seed=2).assign(code=[f"C{i}" for i in rng.integers(0, 30_000, 60_000)])
    lines = [DEFAULTS_SECTION, "", "| table | command | wall time | peak memory |", "| --- | --- | --- | --- |"]
    for name, frame in (("20,000 rows, a unique e-mail column", emails),
                        (f"60,000 rows, a {codes['code'].nunique():,}-code column", codes)):
        path = folder / "case.csv"
        frame.to_csv(path, index=False)
        python = [sys.executable, "-m", "core", "avatarize", str(path), "--k", "10", "--seed", "0",
                  "--out", str(folder / "case_avatars.csv")]
        for label, extra in (("avatarize --k 10", []), ("avatarize --k 10 --json", ["--json", str(folder / "c.json")])):
            seconds, megabytes = median_of(repeats, lambda python=python, extra=extra: timed_command([*python, *extra]))
            lines.append(f"| {name} | `{label}` | {seconds:.2f} s | {megabytes:.0f} MB |")
    return [*lines, "", "Before these defaults the e-mail table ran past 600 s and 15.8 GB, and the code table over "
            "120 s (issue 15's measures)."]


ANALYSES_SECTION = "## Does the analysis still hold (SPEC section 9): the analyses' time"
STUDY = ["outcome=readmitted_30d", "time=length_of_stay_days", "event=readmitted_30d", "group=department",
         "value=length_of_stay_days"]


def analyses_lines(sizes: list[int], repeats: int) -> list[str]:
    """Each analysis's time, in process, on the demo's clinical table (avatars of half the rows, k = 10, the other
    half the real holdout): what the Analysis page waits for, and `--analysis` adds to a run."""
    lines = [ANALYSES_SECTION, "", "On the demo's hospital-stay table (`benchmarks/tables.py` `clinical_csv`), "
             "`avatarize --k 10` with the real holdout, then `--analysis " + " ".join(STUDY) + "` (gradient "
             "boosting and a logistic regression on every other column, Kaplan-Meier curves, log-rank and Cox by "
             "department, length of stay by department). Median of " + f"{repeats} runs, seconds.", "",
             "| rows | avatars made and scored | prediction | regression | survival | group statistics "
             "| missing shares | every analysis |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    request = AnalysisRequest.from_options(option.split("=", 1) for option in STUDY)
    for n_rows in sizes:
        frame = read_table(clinical_csv(n_rows, DATA))
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            evaluation = evaluate_avatarization(Avatarizer(k=10, seed=0).fit(frame.drop(columns=["patient_id"])))
            made = time.perf_counter() - start
            analyse(evaluation, request)
            runs.append({"made": made, **{name: evaluation.timings_s[f"analysis: {name}"]
                                          for name in request.names()}})
        median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        total = sum(value for key, value in median.items() if key != "made")
        lines.append(f"| {n_rows:,} | {median['made']:.1f} | " + " | ".join(
            f"{median[name]:.2f}" for name in request.names()) + f" | {total:.1f} |")
        print(f"analyses at {n_rows:,} rows measured", file=sys.stderr)
    return lines


def update_section(lines: list[str]) -> None:
    """Replace the section that ``lines`` starts with in RESULTS.md (or add it at the end)."""
    text = RESULTS.read_text() if RESULTS.exists() else ""
    start = text.find(lines[0])
    if start < 0:
        RESULTS.write_text(text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n")
        return
    end = text.find("\n## ", start + len(lines[0]))
    RESULTS.write_text(text[:start] + "\n".join(lines) + "\n" + (text[end + 1:] if end >= 0 else ""))


def write_results(results: list[dict]) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Measured {dt.date.today().isoformat()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, by `make bench` (`benchmarks/run.py`). Each figure is the median of "
        "several runs of a fresh `python -m core avatarize` process (no holdout, ncp = 5, mixed table of "
        "`benchmarks/tables.py`: 4 numeric columns, categorical columns with 2, 5 and 200 modalities, a date, "
        "missing values).",
        "",
        "Floor = reading and writing the CSV (pyarrow) + a bare exact 11-NN search in 5-D on as many points "
        "(scipy cKDTree, all cores). Memory ratio = peak resident memory / size of the loaded table (pandas); at "
        "small sizes the interpreter and its libraries (about 135 MB) dominate it.",
        "",
    ]
    for result in results:
        floor = result["io_floor"] + result["knn_floor"]
        avatar_seconds = result["measures"]["Avatar k = 10"][0]
        lines += [
            f"## {result['rows']:,} rows (loaded table {result['table_mb']:.0f} MB)",
            "",
            f"Floor: {floor:.2f} s (CSV read + write {result['io_floor']:.2f} s, 11-NN search "
            f"{result['knn_floor']:.2f} s).",
            "",
            "| command | wall time | / floor | vs Avatar | peak memory | / table |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for label, (seconds, megabytes) in result["measures"].items():
            lines.append(
                f"| {label} | {seconds:.2f} s | {seconds / floor:.2f}x | {avatar_seconds / seconds:.2f}x faster "
                f"| {megabytes:.0f} MB | {megabytes / result['table_mb']:.1f}x |"
            )
        timings = result["timings"]
        metric_names = (*(module.DEFINITION.name for module in SIGNAL_METRICS), "privacy projection",
                        *(module.DEFINITION.name for module in PRIVACY_METRICS), "privacy")
        lines += ["", "Inside `--json` (seconds; the attacks with `" + " ".join(ATTACKER) + "`; what two metrics "
                  "share is counted in the first: the closer avatars in hidden_rate, the nearest originals in "
                  "closest_rate): " + ", ".join(
            f"{name} {timings[name]:.2f}" for name in metric_names if name in timings) + ".", "",
            f"Risk profile of the upload (the Data page, SPEC 6.4) on `{', '.join(ATTACKER[1:5])}`: "
            f"{result['risk_profile']:.2f} s.", ""]
        lines += [result["peer"], ""]
        for line in result["sweep"]:
            lines += [line, ""]
    text = "\n".join(lines)
    RESULTS.write_text(text)
    return text


def main() -> None:
    use_system_memory_pool()  # as the command line does
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--defaults-only", action="store_true", help="measure only the identifier and code cases")
    parser.add_argument("--analyses-only", action="store_true", help="measure only the analyses of SPEC section 9")
    arguments = parser.parse_args()
    if arguments.analyses_only:
        update_section(analyses_lines([int(s) for s in arguments.sizes.split(",")], arguments.repeats))
        return
    if arguments.defaults_only:
        with tempfile.TemporaryDirectory() as folder:
            update_section(default_cases_lines(arguments.repeats, Path(folder)))
        return
    with tempfile.TemporaryDirectory() as folder:
        results = []
        for size in (int(s) for s in arguments.sizes.split(",")):
            results.append(bench_size(size, arguments.repeats, Path(folder)))
            print(f"{size:,} rows measured", file=sys.stderr)
        print(write_results(results))
        update_section(default_cases_lines(arguments.repeats, Path(folder)))
    update_section(analyses_lines([size for size in (100_000, 1_000_000)
                                   if str(size) in arguments.sizes.split(",")], arguments.repeats))


if __name__ == "__main__":
    main()
