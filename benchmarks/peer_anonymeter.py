"""Our attacks side by side with Anonymeter's on the same split (SPEC 6.2): ``python -m benchmarks.peer_anonymeter``.

The AIDS table (``../shared/reference/aids/``), avatarized as docs/metrics.md's comparison does (``--drop pidnum --k 20``)
but with the real holdout, seeds 1 to 3; the attacker of docs/metrics.md (known age, gender, race, wtkg; sensitive cens
and cd420). Our linkability and inference risks (against the holdout as control) and Anonymeter 1.1.0's on the same
members (WO), avatars and controls (HO), every person attacked (Anonymeter's ``n_attacks`` = the smaller half;
its targets and naive guesses sampled with a numpy seed), with their 95 % intervals. Anonymeter runs in a venv of
its own (it pins numpy < 1.27), made once under ``benchmarks/data/anonymeter-venv``: never one of the project's
requirements. The two attacks differ in their distance (Anonymeter: Gower, L1 on scaled numbers plus 0/1 per
category; ours: the FAMD coding of SPEC 2) and their tolerance for a number (Anonymeter: 5 % of the guess; ours: 5 %
of the range), so they agree within their intervals, not to the digit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from benchmarks.run import DATA, peer_python, update_section
from core.engine.io import read_table
from core.engine.parameters import Parameters
from core.metrics.attack import Knowledge
from core.metrics.evaluation import evaluate_avatarization
from core.workflows.plan import ColumnPlan
from core.workflows.run import build_avatarizer

AIDS = Path(__file__).resolve().parents[2] / "shared" / "reference" / "aids" / "original.csv"
PEER = DATA / "anonymeter-venv"
PEER_PACKAGES = ["anonymeter==1.1.0"]
ATTACKER = Knowledge(known=("age", "gender", "race", "wtkg"), sensitive=("cens", "cd420"))
SEEDS = (1, 2, 3)


def interval(entry: dict) -> str:
    return f"{entry['risk']:.1f} % [{entry['low']:.1f}, {entry['high']:.1f}]"


def main() -> None:
    if not AIDS.exists():
        raise SystemExit(f"{AIDS} is absent: this comparison needs the shared reference files.")
    warnings.simplefilter("ignore")
    table = read_table(AIDS).drop(columns=["pidnum"])
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        for seed in SEEDS:
            avatarizer = build_avatarizer(ColumnPlan(), Parameters(k=20, ncp=5, seed=seed)).fit(table)
            ours = evaluate_avatarization(avatarizer, knowledge=ATTACKER).privacy
            paths = [folder / name for name in ("working.csv", "avatars.csv", "holdout.csv", "spec.json")]
            for frame, path in zip((avatarizer.working_data_, avatarizer.avatars_, avatarizer.holdout_data_), paths, strict=True):
                frame.to_csv(path, index=False)
            first, second = ATTACKER.halves
            paths[3].write_text(json.dumps({"seeds": [seed], "known": list(ATTACKER.known),
                                            "sensitive": list(ATTACKER.sensitive), "numeric": ["cd420"],
                                            "groups": [list(first), list(second)]}))
            answer = subprocess.run([peer_python(PEER, PEER_PACKAGES), Path(__file__).with_name("peer_anonymeter_side.py"), *paths],
                                    capture_output=True, text=True)
            if answer.returncode:
                raise SystemExit(f"Anonymeter failed: {answer.stderr.strip().splitlines()[-1]}")
            peer = json.loads(answer.stdout)[str(seed)]
            peer = {name: {key: 100 * value for key, value in entry.items()} for name, entry in peer.items()}
            inference = {entry["variable"]: entry for entry in ours["inference_risk"].breakdown["per_variable"]}
            link = ours["linkability_risk"].breakdown
            rows.append(f"| {seed} | {interval(link)} | {interval(peer['linkability'])} | "
                        f"{interval(inference['cens'])} | {interval(peer['cens'])} | "
                        f"{interval(inference['cd420'])} | {interval(peer['cd420'])} |")
            print(rows[-1], file=sys.stderr)
    update_section([
        "## The attacks side by side with Anonymeter 1.1.0 (SPEC 6.2)", "",
        __doc__.split("\n\n", 1)[1].replace("\n", " ").strip(), "",
        "| seed | linkability, ours | linkability, Anonymeter | inference `cens`, ours | inference `cens`, "
        "Anonymeter | inference `cd420`, ours | inference `cd420`, Anonymeter |",
        "| --- | --- | --- | --- | --- | --- | --- |", *rows])


if __name__ == "__main__":
    main()
