"""Run inside a peer's venv only (``benchmarks/peers.py`` makes each): one peer's synthetic rows, or one neutral judge
of everyone's, for the jobs given as JSON; one line of JSON per job on stdout. It imports nothing of the project.

    VENV/bin/python benchmarks/peers_side.py make mostly|synthpop|gaussian_copula|ctgan JOBS.json
    VENV/bin/python benchmarks/peers_side.py qa|anonymeter|sdmetrics JOBS.json

A ``make`` job: ``train`` (CSV), ``out`` (CSV written, as many rows as the train half), ``seed``, ``workspace``. A
judge's job: ``train``, ``holdout``, ``synthetic`` (CSVs), ``target`` and ``task`` (``classification`` or
``regression``: the holdout model's), ``folder`` (the judge's own files).
"""

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def make(tool: str, job: dict) -> dict:
    """The peer's synthetic rows for ``job``, its defaults otherwise; the epochs it trained for where it says."""
    train = pd.read_csv(job["train"])
    start, said = time.perf_counter(), {}
    if tool == "mostly":  # MOSTLY AI's TabularARGN on the CPU, its default model, trained until its early stop
        from mostlyai.engine import TabularARGN
        model = TabularARGN(random_state=job["seed"], workspace_dir=job["workspace"], device="cpu").fit(train)
        synthetic = model.sample(n_samples=len(train))
        progress = pd.read_csv(Path(job["workspace"]) / "ModelStore" / "model-data" / "progress-messages.csv")
        said = {"epochs": float(progress["epoch"].max())}
    elif tool == "synthpop":  # synthpop-py's CART, each column in the table's order
        from synthpop import Synthesiser
        synthetic = Synthesiser(random_seed=job["seed"]).fit(train).generate(n=len(train))
    else:  # SDV's, its metadata detected from the table
        from sdv.metadata import Metadata
        from sdv.single_table import CTGANSynthesizer, GaussianCopulaSynthesizer
        metadata = Metadata.detect_from_dataframes({"table": train})
        kind = GaussianCopulaSynthesizer if tool == "gaussian_copula" else CTGANSynthesizer
        synthesizer = kind(metadata)
        synthesizer.fit({"table": train})
        synthesizer._set_random_state(job["seed"])  # else every sample draws from SDV's one fixed seed
        synthetic = synthesizer.sample(num_rows=len(train))["table"]
    synthetic.to_csv(job["out"], index=False)
    return {"seconds": time.perf_counter() - start, **said}


def _frames(job: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    train, holdout = pd.read_csv(job["train"]), pd.read_csv(job["holdout"])
    synthetic = pd.read_csv(job["synthetic"])[list(train.columns)]
    for column in train.columns:  # the judges read each column as the train half is typed
        if train[column].dtype == object:
            holdout[column], synthetic[column] = holdout[column].astype(object), synthetic[column].astype(object)
            synthetic[column] = synthetic[column].where(synthetic[column].isna(), synthetic[column].astype(str))
    return train, holdout, synthetic


def holdout_model(learned: pd.DataFrame, holdout: pd.DataFrame, target: str, task: str) -> float:
    """A gradient-boosting model learned on ``learned`` (synthetic or real rows), scored on the real holdout: the
    area under the ROC curve (classification, the first class of the train half as positive) or R^2."""
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.metrics import r2_score, roc_auc_score
    learned, holdout = learned.dropna(subset=[target]), holdout.dropna(subset=[target])
    features = [column for column in learned.columns if column != target]
    both = pd.get_dummies(pd.concat([learned[features], holdout[features]], keys=["l", "h"]), dummy_na=False)
    x_learned, x_holdout = both.loc["l"].astype(float), both.loc["h"].astype(float)
    if task == "regression":
        model = HistGradientBoostingRegressor(random_state=0).fit(x_learned, learned[target].astype(float))
        return float(r2_score(holdout[target].astype(float), model.predict(x_holdout)))
    positive = sorted(holdout[target].astype(str).unique())[0]
    y_learned, y_holdout = learned[target].astype(str) == positive, holdout[target].astype(str) == positive
    if y_learned.nunique() < 2:
        return 0.5
    model = HistGradientBoostingClassifier(random_state=0).fit(x_learned, y_learned)
    return float(roc_auc_score(y_holdout, model.predict_proba(x_holdout)[:, 1]))


def qa(job: dict) -> dict:
    """mostlyai-qa's accuracy (1 - total variation on uni-, bi- and trivariate marginals), its ceiling (the
    holdout's own accuracy) and its DCR share; the holdout model learned on the synthetic rows and on the real."""
    from mostlyai import qa as mostly_qa
    train, holdout, synthetic = _frames(job)
    _, metrics = mostly_qa.report(syn_tgt_data=synthetic, trn_tgt_data=train, hol_tgt_data=holdout,
                                  report_path=Path(job["folder"]) / "qa.html")
    return {"accuracy": metrics.accuracy.overall, "ceiling": metrics.accuracy.overall_max,
            "dcr_share": metrics.distances.dcr_share,
            "ml": holdout_model(synthetic, holdout, job["target"], job["task"]),
            "ml_real": holdout_model(train, holdout, job["target"], job["task"])}


def anonymeter(job: dict) -> dict:
    """Anonymeter's inference risk with the holdout as control, each column in turn the secret and every other
    known, averaged (a number with more than 20 values guessed within Anonymeter's 5 %); at most 500 attacks."""
    from anonymeter.evaluators import InferenceEvaluator
    train, holdout, synthetic = _frames(job)
    attacks, risks = min(500, len(holdout)), {}
    for secret in train.columns:
        np.random.seed(job["seed"])  # Anonymeter samples its targets with numpy's global generator
        known = [column for column in train.columns if column != secret]
        numeric = pd.api.types.is_numeric_dtype(train[secret]) and train[secret].nunique() > 20
        risks[secret] = InferenceEvaluator(train, synthetic, aux_cols=known, secret=secret, regression=numeric,
                                           n_attacks=attacks, control=holdout).evaluate(n_jobs=1).risk().value
    return {"inference_mean": float(np.mean(list(risks.values()))), "inference": risks}


def sdmetrics(job: dict) -> dict:
    """SDMetrics' quality report's overall score (column shapes and pair trends)."""
    from sdmetrics.reports.single_table import QualityReport
    from sdv.metadata import Metadata
    train, _, synthetic = _frames(job)
    metadata = Metadata.detect_from_dataframes({"table": train}).to_dict()["tables"]["table"]
    report = QualityReport()
    report.generate(train, synthetic, metadata, verbose=False)
    return {"sdmetrics_quality": float(report.get_score())}


def main() -> None:
    warnings.simplefilter("ignore")
    if sys.argv[1] == "make":
        tool, jobs = sys.argv[2], json.loads(Path(sys.argv[3]).read_text())
        for job in jobs:
            print(json.dumps({"out": job["out"], **make(tool, job)}), flush=True)
        return
    judge = {"qa": qa, "anonymeter": anonymeter, "sdmetrics": sdmetrics}[sys.argv[1]]
    for job in json.loads(Path(sys.argv[2]).read_text()):
        print(json.dumps({"synthetic": job["synthetic"], **judge(job)}), flush=True)


if __name__ == "__main__":
    main()
