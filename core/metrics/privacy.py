"""Distance-based privacy metrics (SPEC section 6).

Computed between the originals the avatars were made from and all their avatars, in
the latent space of a projection fitted on those originals (first ``ncp`` axes; a
missing value sits at the centroid, a modality the originals lack too), on the full
reference. Every neighbour search is a KD-tree query: no n x n matrix.

Decisions written down here:
- an original is *hidden* when at least one other avatar is strictly closer to it
  than its own avatar (a tie with its own avatar does not hide it), so that the
  hidden rate is the share of originals whose local cloaking is at least 1;
- local cloaking counts avatars strictly closer than the own avatar; every count is
  exact up to ``EXACT_COUNT_PAIRS`` original-avatar pairs (about 11 600 x 11 600);
  beyond, counts are exact up to a cap (:func:`local_cloaking_cap`: 256 up to 65 536
  originals, 16 from a million), so that the cost stays that of bounded k-NN queries;
  when more than half the originals reach the cap, the median is reported as the cap
  with ``at_least`` set;
- rows and values are compared on the typed values (missing equals missing);
- the unique-value share ``u_v`` is the number of distinct values of ``v`` among the
  originals (missing counting as one value) divided by the number of originals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from core.metrics.result import MetricResult, with_target
from core.engine.schema import Kind

LOCAL_CLOAKING_BUDGET = 2**24
LOCAL_CLOAKING_MIN_CAP = 16
LOCAL_CLOAKING_MAX_CAP = 256
LOCAL_CLOAKING_CHUNK = 2**16  # originals queried at a time, nearest own avatars first
EXACT_COUNT_PAIRS = 2**27  # originals x avatars up to which every count is exact (radius counts)
COUNTING_LEAF_SIZE = 128  # radius counts of hundreds of avatars: big leaves (16: 1.5x to 2x the time; 64: 6 % more)
STRICTLY_CLOSER = 1 - 1e-9  # radius factor: rounding never counts the own avatar, ties are not closer
TARGETS = {
    "hidden_rate": 90.0,
    "local_cloaking": 5.0,
    "distance_to_closest": 0.2,
    "closest_distances_ratio": 0.3,
    "row_direct_match_protection": 90.0,
    "column_direct_match_protection": 50.0,
}
NOT_PAIRED = "Not applicable: it needs each avatar paired with the original it was made from."
TEXTS = {
    "hidden_rate": (
        "Hidden rate", "%",
        "Share of individuals whose own avatar is not the closest one to them: an attacker who links each person "
        "to the nearest avatar is wrong this often.",
    ),
    "local_cloaking": (
        "Local cloaking", "avatars",
        "For a typical individual, how many other avatars are closer to them than their own avatar: the crowd "
        "their avatar hides in.",
    ),
    "distance_to_closest": (
        "Distance to closest", "",
        "Typical distance from an avatar to the nearest real individual in the latent space. Near 0, avatars sit "
        "on top of real people.",
    ),
    "closest_distances_ratio": (
        "Closest distances ratio", "",
        "For a typical avatar, the distance to its nearest real individual divided by the distance to the second "
        "nearest. Near 0, an avatar points at one person; near 1, it sits between several.",
    ),
    "row_direct_match_protection": (
        "Row direct match protection", "%",
        "Share of real rows that do not appear, identical in every column, among the avatars.",
    ),
    "column_direct_match_protection": (
        "Column direct match protection", "%",
        "For the most exposed column: how rarely avatars copy their own original's value, weighted by how "
        "identifying that column's values are.",
    ),
}


def _result(name: str, value: float | None, reason: str | None = None, breakdown: dict | None = None) -> MetricResult:
    label, unit, text = TEXTS[name]
    target = TARGETS[name]
    return MetricResult(
        name=name, label=label, value=value, goal="maximize", interpretation=text, target=target,
        target_text=f"> {target:g}{' ' + unit if unit else ''}",
        passed=with_target(value, target), not_applicable=reason, breakdown=breakdown or {},
    )


@dataclass(frozen=True)
class PrivacyReference:
    """The originals' side of the privacy metrics, computed once for any number of avatar sets (a sweep)."""

    coordinates: np.ndarray
    tree: cKDTree | None  # over the coordinates; None below two originals
    kinds: Mapping[str, Kind]
    rows: pd.DataFrame  # typed values, comparable with ``==`` (see :func:`_comparable`)
    row_hashes: np.ndarray
    unique_shares: dict[str, float]  # u_v: distinct values of v / originals

    @classmethod
    def of(cls, coordinates: np.ndarray, originals: pd.DataFrame, kinds: Mapping[str, Kind]) -> PrivacyReference:
        rows = _comparable(originals, kinds)
        return cls(
            coordinates=coordinates,
            tree=cKDTree(coordinates) if len(coordinates) >= 2 else None,
            kinds=kinds,
            rows=rows,
            row_hashes=pd.util.hash_pandas_object(rows, index=False).to_numpy(),
            unique_shares={name: rows[name].nunique(dropna=False) / len(rows) for name in rows.columns},
        )


def privacy_metrics(
    reference: PrivacyReference,
    avatar_coordinates: np.ndarray,
    avatars: pd.DataFrame,
    paired: bool,
    unpaired_reason: str = NOT_PAIRED,
) -> dict[str, MetricResult]:
    """The six metrics of SPEC section 6, keyed by their JSON names.

    ``avatar_coordinates`` are the rows of ``avatars`` in the latent space of ``reference``;
    with ``paired``, avatar ``i`` was made from original ``i``; without, the metrics that
    need pairing are not applicable, for ``unpaired_reason``.
    """
    results = {}
    if paired:
        closer = count_closer_avatars(reference.coordinates, avatar_coordinates)
        results["hidden_rate"] = _result("hidden_rate", float(100 * np.mean(closer.counts >= 1)))
        results["local_cloaking"] = _result(
            "local_cloaking", closer.median,
            breakdown={"counts": closer.counts, "at_least": closer.at_least, "censored_at": closer.censored_at},
        )
    else:
        results["hidden_rate"] = _result("hidden_rate", None, unpaired_reason)
        results["local_cloaking"] = _result("local_cloaking", None, unpaired_reason)

    if reference.tree is not None:
        distances, _ = reference.tree.query(avatar_coordinates, k=2, workers=-1)
        nearest, second = distances[:, 0], distances[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(second > 0, nearest / second, 1.0)
        results["distance_to_closest"] = _result(
            "distance_to_closest", float(np.median(nearest)), breakdown={"distances": nearest}
        )
        results["closest_distances_ratio"] = _result(
            "closest_distances_ratio", float(np.median(ratios)), breakdown={"ratios": ratios}
        )
    else:
        for name in ("distance_to_closest", "closest_distances_ratio"):
            results[name] = _result(name, None, "Not applicable: it needs at least two originals.")

    avatar_rows = _comparable(avatars, reference.kinds)
    found = np.isin(reference.row_hashes, pd.util.hash_pandas_object(avatar_rows, index=False).to_numpy())
    results["row_direct_match_protection"] = _result(
        "row_direct_match_protection", float(100 * (1 - found.mean())), breakdown={"rows_found": int(found.sum())}
    )
    if paired:
        per_variable = []
        for name, unique_share in reference.unique_shares.items():
            match_share = float(np.mean(reference.rows[name].to_numpy() == avatar_rows[name].to_numpy()))
            per_variable.append({
                "variable": name, "match_share": match_share, "unique_share": float(unique_share),
                "protection": float(100 * (1 - match_share * unique_share)),
            })
        value = min(row["protection"] for row in per_variable)
        results["column_direct_match_protection"] = _result(
            "column_direct_match_protection", value, breakdown={"per_variable": per_variable}
        )
    else:
        results["column_direct_match_protection"] = _result("column_direct_match_protection", None, unpaired_reason)
    return results


@dataclass(frozen=True)
class CloserAvatars:
    """Per original, the number of avatars strictly closer than its own, and their median."""

    counts: np.ndarray
    median: float
    at_least: bool
    censored_at: int | None  # a count equal to it means "at least"; None: every count exact


def local_cloaking_cap(n_originals: int) -> int:
    """Counts are exact below ``clip(2^24 / n, 16, 256)``: about 16 million neighbours at most."""
    return int(np.clip(LOCAL_CLOAKING_BUDGET // max(n_originals, 1), LOCAL_CLOAKING_MIN_CAP, LOCAL_CLOAKING_MAX_CAP))


def count_closer_avatars(original_coordinates: np.ndarray, avatar_coordinates: np.ndarray) -> CloserAvatars:
    """Counts of avatars strictly closer to original ``i`` than avatar ``i``.

    Up to ``EXACT_COUNT_PAIRS`` original-avatar pairs, every count is exact: one radius
    count per original (closer by more than one part in a billion, so that rounding
    never counts the own avatar). Beyond, growing k-NN queries bound the work:
    a query of ``LOCAL_CLOAKING_MIN_CAP`` neighbours gives every count below that exactly;
    counts that reach it stay "at least" that many unless the median needs them, in
    which case those originals are queried again with four times as many neighbours
    (or straight with :func:`local_cloaking_cap` when the median looks beyond that, see
    :func:`_next_k`), then with the cap (never more than there are avatars); originals
    are queried nearest own avatar first, each chunk's search stopping at its largest
    own distance (avatars beyond it never count). The
    median is exact unless more than half the counts reach the last ``k``; it is then
    reported as that ``k`` with ``at_least`` set. ``censored_at`` is the last ``k``:
    a count equal to it means "at least" (``None`` when every count is exact).
    """
    n_rows, n_avatars = len(original_coordinates), len(avatar_coordinates)
    own_distances = np.linalg.norm(original_coordinates - avatar_coordinates, axis=1)
    if n_rows * n_avatars <= EXACT_COUNT_PAIRS:  # at most that many pairs to count: count them all
        counts = cKDTree(avatar_coordinates, leafsize=COUNTING_LEAF_SIZE).query_ball_point(
            original_coordinates, own_distances * STRICTLY_CLOSER, return_length=True, workers=-1
        ).astype(np.int64)
        counts[own_distances == 0] = 0  # a copy: no avatar can be strictly closer
        return CloserAvatars(counts, float(np.median(counts)), False, None)
    tree = cKDTree(avatar_coordinates, balanced_tree=False, compact_nodes=False)
    counts = np.zeros(n_rows, dtype=np.int64)
    reach = np.zeros(n_rows)  # distance to the k-th nearest avatar, for the pending originals
    pending = np.argsort(own_distances, kind="stable")  # by own distance: each chunk's queries stop at its largest
    last_k = min(local_cloaking_cap(n_rows), n_avatars)
    k = min(LOCAL_CLOAKING_MIN_CAP, last_k)
    while True:
        chunk_rows = max(1, min(LOCAL_CLOAKING_BUDGET // 4 // k, LOCAL_CLOAKING_CHUNK))
        for start in range(0, len(pending), chunk_rows):
            rows = pending[start: start + chunk_rows]
            distances, _ = tree.query(
                original_coordinates[rows], k=k, distance_upper_bound=own_distances[rows].max(), workers=-1
            )  # avatars beyond the own distance never count: the search stops there
            distances = distances.reshape(len(rows), k)
            counts[rows] = np.sum(distances < own_distances[rows, None], axis=1)
            reach[rows] = distances[:, -1]
        pending = pending[counts[pending] == k]
        if n_rows - len(pending) > n_rows // 2 or k == last_k:  # both middle counts are exact, or no further
            break
        k = _next_k(k, last_k, counts, pending, own_distances, reach, original_coordinates.shape[1])
    at_least = bool(k < n_avatars and n_rows - len(pending) <= n_rows // 2)
    return CloserAvatars(counts, float(np.median(counts)), at_least, k)


def _next_k(
    k: int, last_k: int, counts: np.ndarray, pending: np.ndarray, own: np.ndarray, reach: np.ndarray, n_dims: int
) -> int:
    """Four times ``k``, or straight ``last_k`` when the median count looks beyond four times ``k``.

    A pending original's count is guessed from the density around it: ``k (own / reach)^d``
    avatars in its ball, ``reach`` being the distance to its ``k``-th nearest avatar; a
    query to ``4 k`` would only be repeated at ``last_k``. The guess only picks the next
    query: every count reported still comes from one.
    """
    guessed = counts.astype(float)
    guessed[pending] = k * (own[pending] / np.maximum(reach[pending], 1e-300)) ** n_dims
    return last_k if np.median(guessed) > 4 * k else min(4 * k, last_k)


def _comparable(frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> pd.DataFrame:
    """Columns whose ``==`` and hashes compare typed values, missing equal to missing."""
    columns = {}
    for name in frame.columns:
        column = frame[name]
        if kinds[name] is Kind.CATEGORICAL:
            labels = np.append(column.cat.categories.astype(str).to_numpy(dtype=object), "\x00missing")
            columns[name] = labels[column.cat.codes.to_numpy()]  # code -1: missing
        elif pd.api.types.is_datetime64_any_dtype(column):
            columns[name] = np.where(column.isna().to_numpy(), np.iinfo(np.int64).min,
                                     column.astype("datetime64[ns]").to_numpy().view(np.int64))
        else:
            values = column.to_numpy(dtype=float, na_value=np.nan)
            columns[name] = np.where(np.isnan(values), np.inf * -1, values)  # -inf stands for missing
    return pd.DataFrame(columns)
