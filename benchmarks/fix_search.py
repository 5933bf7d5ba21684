"""The fix search's cost and what it finds (SPEC 6.3): ``python -m benchmarks.fix_search``, a section of RESULTS.md.

Each case is one table and setting, run as a user runs it, in a fresh process: a scored run (``avatarize --json
--no-fix``) against the judged run (``avatarize --json``: the verdict, and the fix search when a target is missed).
The goal is a judged run at most 3x the scored one. What the search found is read from the judged run's JSON: the
fix, whether it keeps the signal, the settings tried, and the Hellinger Mean and Correlation Difference Ratio of the
run and of the fix.

    python -m benchmarks.fix_search [--cases wage_like:100000,diamonds_like:1000000,...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from benchmarks.public_tables import table_csv
from benchmarks.run import DATA, timed_command, update_section

SHARED_AIDS = Path(__file__).resolve().parents[2] / "shared" / "reference" / "aids" / "original.csv"
CASES = ("wage_like:100000:10,wage_resampled:100000:10,diamonds_like:100000:10,diamonds_like:1000000:10,aids::10,wage::10,"
         "birthwt::10,breast_cancer::10")


def measured(path: Path, k: int, folder: Path, extra: list[str]) -> dict:
    """The scored and the judged run of ``path`` at ``k``: their seconds and memory, and the judged run's JSON."""
    command = [sys.executable, "-m", "core", "avatarize", str(path), "--k", str(k), "--seed", "0",
               "--out", str(folder / "avatars.csv"), "--json", str(folder / "metrics.json"), *extra]
    scored = timed_command([*command, "--no-fix"])
    judged = timed_command(command)
    return {"scored": scored, "judged": judged, "metrics": json.loads((folder / "metrics.json").read_text())}


def line(name: str, k: int, result: dict) -> str:
    metrics, verdict = result["metrics"], result["metrics"]["verdict"]
    signal = metrics["signal"]
    ratio = result["judged"][0] / result["scored"][0]
    cells = [name, f"k = {k}", f"{result['scored'][0]:.1f} s", f"{result['judged'][0]:.1f} s", f"{ratio:.1f}x",
             verdict["status"], str(len(verdict["tried"])),
             f"{signal['hellinger_mean']:.1f} / {_number(signal['correlation_difference_ratio'])}"]
    if verdict["fix_settings"] is not None:
        chosen = next(tried for tried in verdict["tried"] if tried["instruction"] == _instruction(verdict))
        after = chosen["signal"]
        cells += [_instruction(verdict), f"{after['hellinger_mean']['fix']:.1f} / "
                  f"{_number(after.get('correlation_difference_ratio', {}).get('fix'))}",
                  "yes" if verdict["fix_keeps_signal"] else "no (cost said)"]
    else:
        cells += ["none found" if verdict["tried"] else "not needed", "", ""]
    return "| " + " | ".join(cells) + " |"


def _instruction(verdict: dict) -> str:
    """The fix's instruction, as the sentence names it."""
    return next(tried["instruction"] for tried in verdict["tried"]
                if tried["ready"] and tried["instruction"] in verdict["fix"])


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=CASES, help="table:rows:k, comma-separated (rows empty: the table as is)")
    arguments = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for case in arguments.cases.split(","):
            name, size, k = case.split(":")
            if name == "aids":
                if not SHARED_AIDS.exists():
                    print("aids: ../shared is absent, skipped", file=sys.stderr)
                    continue
                path, extra, label = SHARED_AIDS, ["--drop", "pidnum"], "AIDS (2,139 rows)"
            else:
                path = table_csv(name, int(size) if size else None, DATA)
                extra, label = [], f"{name} ({int(size):,} rows)" if size else name
            rows.append(line(label, int(k), measured(path, int(k), Path(folder), extra)))
            print(rows[-1], file=sys.stderr)
    update_section([
        "## The fix search (SPEC 6.3): its cost and what it finds", "",
        "Each table run as a user runs it, in a fresh process, with the real holdout (`--seed 0`): `avatarize --json "
        "--no-fix` (scored) against `avatarize --json` (judged: the verdict, and when a target is missed the fix "
        "search, each setting tried sharing the run's preparation and neighbour search; goal: at most 3x). "
        "Signal = Hellinger Mean / Correlation Difference Ratio. `python -m benchmarks.fix_search`.", "",
        "| table | setting | scored | judged | judged / scored | verdict | settings tried | signal | fix | fix's "
        "signal | keeps the signal |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |", *rows])


if __name__ == "__main__":
    main()
