"""Run inside the peer venv only (``benchmarks/peer_anonymeter.py`` makes it): Anonymeter 1.1.0's linkability and
inference evaluators on the files given, every member and control attacked, the result as JSON on stdout.

    PEER/bin/python benchmarks/peer_anonymeter_side.py WORKING.csv AVATARS.csv HOLDOUT.csv SPEC.json

It imports nothing of the project: the peer's own numpy and pandas (Anonymeter pins numpy < 1.27).
"""

import json
import sys

import numpy as np
import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator


def main() -> None:
    working, avatars, holdout = (pd.read_csv(path) for path in sys.argv[1:4])
    spec = json.loads(open(sys.argv[4]).read())
    attacks = min(len(working), len(holdout))
    results = {"n_attacks": attacks}
    for seed in spec["seeds"]:
        np.random.seed(seed)  # Anonymeter samples its targets with numpy's global generator
        first, second = spec["groups"]
        linkability = LinkabilityEvaluator(working, avatars, aux_cols=(first, second), n_attacks=attacks, control=holdout,
                                           n_neighbors=1).evaluate(n_jobs=1)
        risk = linkability.risk()
        entry = {"linkability": {"risk": risk.value, "low": risk.ci[0], "high": risk.ci[1]}}
        for secret in spec["sensitive"]:
            inference = InferenceEvaluator(working, avatars, aux_cols=spec["known"], secret=secret,
                                           regression=secret in spec["numeric"], n_attacks=attacks,
                                           control=holdout).evaluate(n_jobs=1)
            risk = inference.risk()
            entry[secret] = {"risk": risk.value, "low": risk.ci[0], "high": risk.ci[1]}
        results[str(seed)] = entry
    print(json.dumps(results))


if __name__ == "__main__":
    main()
