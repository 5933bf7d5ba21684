"""Byte identity across a restructuring (issue 29): ``python -m benchmarks.byte_identity --save DIR`` keeps the
outputs of the commands, ``--compare DIR`` makes them again and says which file differs.

The outputs: ``avatarize`` of the AIDS table (``../shared/reference/aids/original.csv``) and of the demo table
(``assets/demo_clinical.csv``), seeds 1 to 3, Avatar k = 10 and AvatarFastDP (epsilon 1) with each mechanism:
the avatars (``--out``), the metrics (``--json``, without its timings) and the report (``--report``, without its
date, the run's seconds and the figures' div ids); and a batch run of the demo in 3 batches (its parts, and its metrics without timings).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.run import ROOT

AIDS = ROOT.parent / "shared" / "reference" / "aids" / "original.csv"
DEMO = ROOT / "assets" / "demo_clinical.csv"
METHODS = {"avatar": ["--k", "10"], **{f"fast_dp_{mechanism}": ["--fast-dp-epsilon", "1", "--mechanism", mechanism]
                                       for mechanism in ("gaussian", "gmm", "histogram")}}
SEEDS = (1, 2, 3)
DATED = re.compile(rb"Made on [^<]*</p>")  # the report's date: it differs from run to run
SECONDS = re.compile(rb" in -?[0-9.,]+ s\.( Then [0-9.,]+ s checking)?")  # the run's and the fix search's times
# the figures' div ids: plotly's random ones before d5c1ed1, numbered since; a baseline of either compares
FIGURE_ID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|figure-[0-9]+")


def _command(*arguments: object) -> None:
    result = subprocess.run([sys.executable, "-m", "core", *map(str, arguments)], cwd=ROOT, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, arguments))}: {result.stderr.strip()}")


def _steady(report: bytes) -> bytes:
    """The report without what differs from run to run: its date, the run's and the fix search's seconds, plotly's
    div ids."""
    return FIGURE_ID.sub(b"id", SECONDS.sub(b" in ... s.", DATED.sub(b"Made on ...</p>", report)))


def _without_timings(path: Path) -> bytes:
    def strip(value):
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items() if key != "timings_s"}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return json.dumps(strip(json.loads(path.read_text())), indent=1, sort_keys=True).encode()


def outputs(folder: Path) -> None:
    """Every output of the list above, written under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as name:
        scratch = Path(name)
        for table in (AIDS, DEMO):
            for method, options in METHODS.items():
                for seed in SEEDS:
                    stem = f"{table.stem}_{method}_{seed}"
                    _command("avatarize", table, *options, "--seed", seed, "--out", folder / f"{stem}.csv",
                             "--json", scratch / "m.json", "--report", scratch / "r.html")
                    (folder / f"{stem}.json").write_bytes(_without_timings(scratch / "m.json"))
                    report = (scratch / "r.html").read_bytes()
                    (folder / f"{stem}.html").write_bytes(_steady(report))
        rows = sum(1 for _ in DEMO.open()) - 1
        batch = scratch / "batch"
        _command("avatarize", DEMO, "--k", "10", "--seed", "1", "--batch-rows", -(-rows // 3), "--out", batch,
                 "--json", scratch / "b.json")
        for part in sorted(batch.glob("part-*")):
            (folder / f"batch_{part.name}").write_bytes(part.read_bytes())
        (folder / "batch_metrics.json").write_bytes(_without_timings(scratch / "b.json").replace(
            str(scratch).encode(), b"SCRATCH"))


def _compared(path: Path) -> bytes:
    """A kept file as compared: a report made steady again (one kept by an earlier version of this script kept what
    it did not yet see as varying, such as the fix search's seconds)."""
    return _steady(path.read_bytes()) if path.suffix == ".html" else path.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--save", type=Path, help="keep the outputs in this folder")
    action.add_argument("--compare", type=Path, help="make them again and compare with this folder")
    arguments = parser.parse_args()
    if not AIDS.is_file():
        raise SystemExit(f"{AIDS}: the AIDS table is needed (../shared)")
    if arguments.save:
        outputs(arguments.save)
        print(f"{len(list(arguments.save.iterdir()))} files kept in {arguments.save}")
        return
    with tempfile.TemporaryDirectory() as name:
        again = Path(name)
        outputs(again)
        kept = {path.name for path in arguments.compare.iterdir()}
        made = {path.name for path in again.iterdir()}
        differ = sorted(name for name in kept & made
                        if _compared(arguments.compare / name) != _compared(again / name))
        missing, extra = sorted(kept - made), sorted(made - kept)
    print(f"{len(kept & made) - len(differ)} of {len(kept)} files equal byte for byte"
          + (f"; differ: {', '.join(differ)}" if differ else "")
          + (f"; missing: {', '.join(missing)}" if missing else "") + (f"; new: {', '.join(extra)}" if extra else ""))
    raise SystemExit(1 if differ or missing or extra else 0)


if __name__ == "__main__":
    main()
