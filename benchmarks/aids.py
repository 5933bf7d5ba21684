"""The AIDS comparison of docs/metrics.md: `python -m benchmarks.aids` prints its three tables (markdown).

Every generator's output in `../shared/reference/aids/` is scored as `python -m core evaluate original.csv AVATARS
--seed 0` scores it (approximate holdout, default typing), with the attacker of docs/metrics.md: known variables `age,
gender, race, wtkg`, sensitive `cd420, cens`. CTGAN and synthpop rows are not made row by row from the originals
(not paired). Our row: `avatarize --drop pidnum --k 20 --ncp 5 --no-holdout`, seeds 1, 2, 3, each scored the same way
on its paired avatars; mean (± standard deviation).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from core.engine.io import read_table
from core.engine.pipeline import Avatarizer
from core.metrics.attack import Knowledge
from core.metrics.evaluation import Evaluation, evaluate
from core.workflows.verdict import verdict_of

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "aids"
ATTACKER = Knowledge(known=("age", "gender", "race", "wtkg"), sensitive=("cd420", "cens"))
OTHERS = (("commercial Avatar engine (k = 20, ncp = 5)", "engine_avatars_k20_ncp5.csv", None),
          ("CTGAN", "ctgan.csv", False), ("synthpop", "synthpop.csv", False))
SIGNAL = (("Hellinger Mean", "hellinger_mean", "{:.1f}"), ("Correlation Difference Ratio",
          "correlation_difference_ratio", "{:.1f}"), ("multivariate Hellinger", "multivariate_hellinger_distance",
          "{:.3f}"))
PRIVACY = (("hidden rate", "hidden_rate", "{:.1f} %"), ("local cloaking", "local_cloaking", "{:.1f}"),
           ("row direct match protection", "row_direct_match_protection", "{:.1f} %"),
           ("closest rate", "closest_rate", "{:.1f} %"), ("linkability risk", "linkability_risk", "{:.1f} %"),
           ("correlation protection rate", "correlation_protection_rate", "{:.1f} %"),
           ("distance to closest", "distance_to_closest", "{:.3f}"),
           ("closest distances ratio", "closest_distances_ratio", "{:.3f}"),
           ("column direct match protection", "column_direct_match_protection", "{:.1f} %"))


def figures(evaluation: Evaluation) -> dict[str, float | None]:
    """Every figure of the tables, by column key (the inference risks per sensitive variable, as upper ends)."""
    values = {key: evaluation.signal[key].value for _, key, _ in SIGNAL}
    values |= {key: evaluation.privacy[key].value for _, key, _ in PRIVACY}
    values["linkability_high"] = evaluation.privacy["linkability_risk"].breakdown.get("high")
    for entry in evaluation.privacy["inference_risk"].breakdown.get("per_variable", []):
        values[f"inference {entry['variable']}"] = entry["risk"]
    identity = evaluation.privacy["replicated_uniques"].breakdown
    values |= {"UiO": identity.get("UiO"), "repU": identity.get("repU")}
    for name, measures in evaluation.privacy["disclosive_correct_original"].breakdown.get("per_variable", {}).items():
        values |= {f"DiSCO {name}": measures["DiSCO"], f"Dorig {name}": measures["Dorig"]}
    values["S_pMSE"] = evaluation.signal["propensity_mse"].value
    return values


def scored(original, avatars, paired: bool | None) -> Evaluation:
    return evaluate(original, avatars, seed=0, paired=paired, knowledge=ATTACKER)


def cell(values: list[float | None], pattern: str) -> str:
    present = [value for value in values if value is not None]
    if not present:
        return "n/a"
    text = pattern.format(np.mean(present))
    return text if len(present) == 1 else f"{text} (± {np.std(present, ddof=1):.{3 if '3f' in pattern else 1}f})"


def verdict_cell(evaluations: list[Evaluation]) -> str:
    """``ready``, or ``not ready: closest rate`` with every metric that fails with some seed."""
    failing = sorted({result.label.lower() for evaluation in evaluations
                      for results in verdict_of(evaluation).failing.values() for result in results})
    return "not ready: " + ", ".join(failing) if failing else "ready"


def main() -> None:
    if not REFERENCE.is_dir():
        raise SystemExit(f"{REFERENCE} is absent: this comparison needs the shared reference files.")
    warnings.simplefilter("ignore")
    original = read_table(REFERENCE / "original.csv")
    rows = {name: [scored(original, read_table(REFERENCE / file), paired)]
            for name, file, paired in OTHERS}
    base = original.drop(columns=["pidnum"])
    rows["**this project** (k = 20, ncp = 5)"] = [
        scored(original, Avatarizer(k=20, ncp=5, holdout=False, seed=seed).fit(base).paired_avatars_, True)
        for seed in (1, 2, 3)]
    inference = [f"inference {name}" for name in ATTACKER.sensitive]
    header_one = ["generator", *(label for label, _, _ in SIGNAL), *(label for label, _, _ in PRIVACY[:4])]
    header_two = ["generator", *(label for label, _, _ in PRIVACY[4:]), "linkability upper 95 %",
                  *(f"inference risk `{name}`" for name in ATTACKER.sensitive), "verdict"]
    disclosure = [("", "UiO", "{:.1f} %"), ("", "repU", "{:.1f} %"),
                  *(("", f"{measure} {name}", "{:.1f} %") for name in ATTACKER.sensitive for measure in ("Dorig", "DiSCO")),
                  ("", "S_pMSE", "{:.1f}")]
    header_three = ["generator", "UiO", "repU", *(f"{measure} `{name}`" for name in ATTACKER.sensitive
                                                  for measure in ("Dorig", "DiSCO")), "S_pMSE"]
    for header, columns in ((header_one, [*SIGNAL, *PRIVACY[:4]]), (header_two, [
            *PRIVACY[4:], ("", "linkability_high", "{:.1f} %"), *(("", name, "{:.1f} %") for name in inference)]),
            (header_three, disclosure)):
        print("| " + " | ".join(header) + " |")
        print("| " + " | ".join("---" for _ in header) + " |")
        for name, evaluations in rows.items():
            values = [figures(evaluation) for evaluation in evaluations]
            cells = [cell([value.get(key) for value in values], pattern) for _, key, pattern in columns]
            if header is header_two:
                cells.append(verdict_cell(evaluations))
            print("| " + " | ".join([name, *cells]) + " |")
        print()


if __name__ == "__main__":
    main()
