"""The AIDS analysis comparison of docs/metrics.md (SPEC section 9): `python -m benchmarks.aids_analysis` prints its tables
(markdown) and draws the Kaplan-Meier curves by treatment arm into `benchmarks/aids_survival.png` for docs/metrics.md
(plotly's figure photographed by Debian's chromium; without chromium, the figure is not drawn).

Survival: the Kaplan-Meier curves by arm (`arms`: 0 zidovudine, 1 zidovudine and didanosine, 2 zidovudine and
zalcitabine, 3 didanosine), the log-rank test across arms, and the Cox hazard ratio of the treatment (`treat`: any
other therapy against zidovudine alone) and of each arm against arm 0, on all 2 139 patients, on the commercial
engine's avatars (made from every row) and on ours (`avatarize --drop pidnum --k 20 --ncp 5 --no-holdout`, seeds 1
to 3). Prediction of `cens` (ROC AUC, gradient boosting on every other column): trained on the real rows, on the
engine's avatars and on ours, tested on real rows; ours both ways (made from every row like theirs, and made from
half the rows with the other half as a real holdout never seen).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from benchmarks.photograph import photograph
from core.engine.io import read_table
from core.engine.pipeline import Avatarizer
from core.engine.schema import apply_kinds, resolve_kinds
from core.metrics.analysis.request import AnalysisRequest
from core.metrics.analysis.survival import SurvivalResult, survival
from core.metrics.evaluation import analyse, evaluate, evaluate_avatarization
from core.presentation.analysis_figures import GROUP_COLOURS
from core.presentation.analysis_text import interval, p_text

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "aids"
HERE = Path(__file__).resolve().parent
ARMS = {"0": "zidovudine", "1": "zidovudine + didanosine", "2": "zidovudine + zalcitabine", "3": "didanosine"}
SEEDS = (1, 2, 3)
PREDICTION = AnalysisRequest(outcome="cens")


def survival_of(original, avatars, covariate: str) -> SurvivalResult:
    """Curves by arm and hazard ratios of ``covariate`` on every original row (the "real" side) and ``avatars``."""
    kinds = resolve_kinds(original)
    typed_original, typed_avatars = apply_kinds(original, kinds), apply_kinds(avatars[list(original.columns)], kinds)
    return survival(typed_original, typed_original, typed_avatars, kinds, "days", "cens", group="arms",
                    covariate=covariate)


def survival_rows(sources: dict[str, object], original) -> list[str]:
    """The hazard ratios' table: treatment, then each arm against arm 0, with the log-rank test across arms."""
    lines = ["| data | hazard ratio of the treatment (`treat` = 1) | arm 1 against 0 | arm 2 against 0 | arm 3 against 0 "
             "| log-rank across arms |", "| --- | --- | --- | --- | --- | --- |"]
    for name, avatars in sources.items():
        treat = [survival_of(original, frame, "treat") for frame in avatars]
        arms = [survival_of(original, frame, "arms") for frame in avatars]
        side = "real" if avatars[0] is original else "avatars"
        cells = [_ratios([getattr(result.hazard_ratios[0], side) for result in treat])]
        cells += [_ratios([getattr(result.hazard_ratios[arm], side) for result in arms]) for arm in range(3)]
        cells.append(", ".join(p_text(result.logrank_p[side]) for result in arms))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _ratios(estimates) -> str:
    if len(estimates) == 1:
        return interval(estimates[0], 2)
    values = [estimate.value for estimate in estimates]
    return f"{interval(estimates[0], 2)} (seeds {SEEDS[0]}-{SEEDS[-1]}: {min(values):.2f} to {max(values):.2f})"


def prediction_rows(original, engine, ours_every_row) -> list[str]:
    lines = ["| trained on | tested on | ROC AUC of `cens` [95 %] | share of the real model's |",
             "| --- | --- | --- | --- |"]
    every = evaluate(original, engine, seed=0)
    analyse(every, PREDICTION, ["prediction"])
    result = every.analyses["prediction"]
    lines.append(f"| the real rows (a random half) | the other half | {_score(result.real)} | |")
    lines.append(f"| the commercial engine's avatars (of that half's patients) | the other half, which the engine "
                 f"saw | {_score(result.avatars)} | {100 * result.ratio:.0f} % |")
    shares, scores = [], []
    for frame in ours_every_row:
        scored = evaluate(original, frame, seed=0)
        analyse(scored, PREDICTION, ["prediction"])
        scores.append(scored.analyses["prediction"].avatars)
        shares.append(scored.analyses["prediction"].ratio)
    lines.append(f"| our avatars made from every row (of that half's patients) | the other half, which the avatars "
                 f"saw | {_seeds(scores)} | {_mean(shares)} |")
    real_scores, scores, shares = [], [], []
    for seed in SEEDS:
        run = evaluate_avatarization(Avatarizer(k=20, ncp=5, holdout=True, seed=seed).fit(original))
        analyse(run, PREDICTION, ["prediction"])
        result = run.analyses["prediction"]
        real_scores.append(result.real)
        scores.append(result.avatars)
        shares.append(result.ratio)
    lines.append(f"| the real rows (half, set aside by `avatarize`) | the real holdout | {_seeds(real_scores)} | |")
    lines.append(f"| our avatars of that half (real holdout) | the real holdout, never seen | {_seeds(scores)} | "
                 f"{_mean(shares)} |")
    return lines


def _score(score) -> str:
    return f"{score.value:.3f} [{score.low:.3f}, {score.high:.3f}]"


def _seeds(scores) -> str:
    values = [score.value for score in scores]
    return f"{_score(scores[0])} (seeds {SEEDS[0]}-{SEEDS[-1]}: {min(values):.3f} to {max(values):.3f})"


def _mean(shares) -> str:
    return f"{100 * np.mean(shares):.0f} %"


def curves_figure(original, panels: dict[str, object]) -> go.Figure:
    """The Kaplan-Meier curves by arm, one panel per data set, the same colour for an arm everywhere."""
    figure = make_subplots(rows=1, cols=len(panels), shared_yaxes=True, subplot_titles=list(panels),
                           horizontal_spacing=0.03)
    for column, frame in enumerate(panels.values(), start=1):
        result = survival_of(original, frame, "arms")
        side = "real" if frame is original else "avatars"
        for index, curve in enumerate(result.curves[side]):
            figure.add_trace(go.Scatter(x=result.times, y=curve.survival, mode="lines", line={
                "shape": "hv", "color": GROUP_COLOURS[index], "width": 2}, name=f"arm {curve.group}: "
                f"{ARMS[curve.group]}", legendgroup=curve.group, showlegend=column == 1), row=1, col=column)
        figure.update_xaxes(title_text="days", row=1, col=column)
    figure.update_yaxes(title_text="share without the event (cens = 1)", tickformat=".0%", range=[0.5, 1.01],
                        row=1, col=1)
    figure.update_layout(template="plotly_white", width=1300, height=470, font={"family": "Arial", "size": 13},
                         margin={"l": 60, "r": 20, "t": 40, "b": 40},
                         legend={"orientation": "h", "y": -0.2, "x": 0})
    return figure


def main() -> None:
    if not REFERENCE.is_dir():
        raise SystemExit(f"{REFERENCE} is absent: this comparison needs the shared reference files.")
    warnings.simplefilter("ignore")
    original = read_table(REFERENCE / "original.csv").drop(columns=["pidnum"])
    engine = read_table(REFERENCE / "engine_avatars_k20_ncp5.csv")
    ours = [Avatarizer(k=20, ncp=5, holdout=False, seed=seed).fit(original).paired_avatars_ for seed in SEEDS]
    print("\n".join(survival_rows({"all 2 139 patients": [original],
                                   "commercial engine's avatars (k = 20, ncp = 5)": [engine],
                                   "**our avatars** (k = 20, ncp = 5, every row)": ours}, original)))
    print()
    print("\n".join(prediction_rows(original, engine, ours)))
    figure = curves_figure(original, {"2 139 patients": original, "commercial engine's avatars": engine,
                                      f"our avatars (k = 20, seed {SEEDS[0]})": ours[0]})
    photograph(figure, HERE / "aids_survival.png", 1300, 470)


if __name__ == "__main__":
    main()
