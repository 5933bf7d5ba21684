"""Nearest-neighbour search where points repeat: a k-d tree over the distinct points, each standing for its copies.

A k-d tree cannot split equal points: 100 000 copies of one point are one leaf that every query into it scans, so
a table of a few repeated rows (three yes/no columns) cost n^2 (800 000 rows: 311 s). Here each distinct point is
one point of the tree with a count; a query of the ``k`` nearest finds at most ``k`` distinct points, whose copies
are then taken in order of distance, so that repeats cost n log n. Among the copies of one point, query ``q``
takes them from position ``q`` on (modulo the count): every copy serves as often, and a row never gets itself.
Without repeats the tree, its answers and their order are exactly scipy's on the points as given.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

LEAF_SIZE = 32  # on latent coordinates, answers as fast as scipy's 16 with a quarter less memory


class NeighbourTree:
    """A ``cKDTree`` over the distinct rows of ``points`` (first-seen order), with ``counts`` copies each.

    ``group_`` maps each row to its distinct point, ``members_`` lists the rows by distinct point (in row order),
    ``starts_`` where each point's rows begin there and ``rank_`` each row's position among its copies.
    Unbalanced and not compacted: on latent coordinates it builds and answers faster.
    """

    def __init__(self, points: np.ndarray, leafsize: int = LEAF_SIZE):
        points = _as_rows(np.ascontiguousarray(points, dtype=float))
        self.n = len(points)
        self.group_, distinct = distinct_rows(points)
        self.repeats_ = len(distinct) < self.n
        self.tree_ = cKDTree(distinct, leafsize=leafsize, balanced_tree=False, compact_nodes=False)
        if self.repeats_:
            self.counts_ = np.bincount(self.group_, minlength=len(distinct))
            self.members_ = np.argsort(self.group_, kind="stable")
            self.starts_ = np.cumsum(self.counts_) - self.counts_
            self.rank_ = np.empty(self.n, dtype=np.intp)
            self.rank_[self.members_] = np.arange(self.n) - np.repeat(self.starts_, self.counts_)

    @overload
    def query(self, queries: np.ndarray, k: int, *, p: float = 2, distance_upper_bound: float = np.inf,
              rows: Literal[True] = True) -> tuple[np.ndarray, np.ndarray]: ...

    @overload
    def query(self, queries: np.ndarray, k: int, *, p: float = 2, distance_upper_bound: float = np.inf,
              rows: bool) -> tuple[np.ndarray, np.ndarray | None]: ...

    def query(self, queries: np.ndarray, k: int, *, p: float = 2, distance_upper_bound: float = np.inf,
              rows: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """Distances and rows (q, k) of the ``k`` nearest rows of each query, nearest first, copies counted; where
        fewer are within ``distance_upper_bound``, distance ``inf`` and row ``n``, as scipy's. ``rows=False``:
        the distances alone (None for the rows), quicker."""
        queries = _as_rows(np.asarray(queries, dtype=float))
        width = min(k, self.tree_.n) if self.repeats_ else k
        distances, found = self._distinct_query(queries, min(k, self.tree_.n), p, distance_upper_bound, width)
        if not self.repeats_:
            return distances, found if rows else None
        return self._expand(distances, found, k, np.arange(len(queries)), own=None, rows=rows)

    def query_excluding_self(self, rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Distances and rows (len(rows), k) of the ``k`` nearest other rows of the tree's ``rows``, nearest first.

        Without repeats: one query of ``k + 1``, the row itself dropped (where ties at distance 0 crowd it out of
        the ``k + 1``, the farthest is dropped instead). With repeats, a row's own copies come first, from the one
        after it on.
        """
        if not self.repeats_:
            points = self.tree_.data[rows]
            distances, found = self._distinct_query(points, k + 1, 2, np.inf, k + 1)
            if np.array_equal(found[:, 0], rows):  # the usual case: no copy
                return distances[:, 1:], found[:, 1:]
            is_self = found == rows[:, None]
            is_self[~is_self.any(axis=1), -1] = True
            keep = ~is_self
            return distances[keep].reshape(len(rows), k), found[keep].reshape(len(rows), k)
        own = self.group_[rows]
        width = min(k + 1, self.tree_.n)
        distances, found = self._distinct_query(self.tree_.data[own], width, 2, np.inf, width)
        return self._expand(distances, found, k, rows, own=own)

    def _distinct_query(self, queries: np.ndarray, k: int, p: float, bound: float, width: int
                        ) -> tuple[np.ndarray, np.ndarray]:
        """scipy's answer as (q, width) arrays, padded with ``inf`` and the tree's size beyond its ``k``."""
        distances = np.full((len(queries), width), np.inf)
        found = np.full((len(queries), width), self.tree_.n, dtype=np.intp)
        if len(queries) and k > 0:
            d, i = self.tree_.query(queries, k=k, p=p, distance_upper_bound=bound, workers=-1)
            distances[:, :k], found[:, :k] = d.reshape(len(queries), k), i.reshape(len(queries), k)
        return distances, found

    @overload
    def _expand(self, distances: np.ndarray, found: np.ndarray, k: int, spread: np.ndarray,
                own: np.ndarray | None, rows: Literal[True] = True) -> tuple[np.ndarray, np.ndarray]: ...

    @overload
    def _expand(self, distances: np.ndarray, found: np.ndarray, k: int, spread: np.ndarray,
                own: np.ndarray | None, rows: bool) -> tuple[np.ndarray, np.ndarray | None]: ...

    def _expand(self, distances: np.ndarray, found: np.ndarray, k: int, spread: np.ndarray,
                own: np.ndarray | None, rows: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """Distinct points found, nearest first, replaced by their copies until ``k``: query ``i`` takes a point's
        copies from position ``spread[i]`` on; its own point's (``own``), from the one after its own row on."""
        counts = np.append(self.counts_, 0)[found]
        if own is not None:
            is_own = found == own[:, None]
            counts[is_own] -= 1
        taken = np.diff(np.minimum(np.cumsum(counts, axis=1), k), axis=1, prepend=0).ravel()
        filled = np.arange(k) < taken.reshape(found.shape).sum(axis=1)[:, None]  # short of k: padded at the end
        out_distances = np.full((len(found), k), np.inf)
        out_distances[filled] = np.repeat(distances.ravel(), taken)
        if not rows:
            return out_distances, None
        start_at = np.broadcast_to(spread[:, None], found.shape).copy()
        if own is not None:
            start_at[is_own] = self.rank_[spread].repeat(is_own.sum(axis=1)) + 1
        first = np.cumsum(taken) - taken  # where each found point's copies begin in the flat answer
        entry_of_copy = np.repeat(np.arange(len(taken)), taken)
        point = found.ravel()[entry_of_copy]
        copy = np.arange(len(entry_of_copy)) - first[entry_of_copy] + start_at.ravel()[entry_of_copy]
        copy %= self.counts_[point]
        copy += self.starts_[point]
        out_rows = np.full((len(found), k), self.n, dtype=np.intp)
        out_rows[filled] = self.members_[copy]
        return out_distances, out_rows


BOUNDED_CHUNK = 2**16  # queries searched at a time under one bound
SMALLEST_BOUND = 1e-150  # its square is still positive: a bound of 0 would find nothing (the tree compares squares)


def nearest_within(tree: NeighbourTree, queries: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Each query's distance to its nearest point of ``tree`` where that is at most ``bounds[i]``, else ``inf``.

    Exactly the distance an unbounded search gives where it is within the bound (the bound only prunes the
    search): queries taken by increasing bound, ``BOUNDED_CHUNK`` at a time, each chunk's search stopped at its
    largest bound.
    """
    queries = _as_rows(np.asarray(queries, dtype=float))
    nearest = np.full(len(queries), np.inf)
    order = np.argsort(bounds, kind="stable")
    for start in range(0, len(order), BOUNDED_CHUNK):
        rows = order[start: start + BOUNDED_CHUNK]
        reach = max(float(np.nextafter(bounds[rows[-1]], np.inf)), SMALLEST_BOUND)
        nearest[rows] = tree.query(queries[rows], 1, distance_upper_bound=reach, rows=False)[0][:, 0]
    nearest[nearest > bounds] = np.inf
    return nearest


def _as_rows(points: np.ndarray) -> np.ndarray:
    return points[:, None] if points.ndim == 1 else points


def row_hashes(points: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row (linear time; ``np.unique(axis=0)`` sorts rows as bytes, ten times slower at a
    million)."""
    return pd.util.hash_pandas_object(pd.DataFrame(points, copy=False), index=False).to_numpy()


def distinct_rows(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's distinct point and the distinct points, in first-seen order: rows hashed (linear time), then
    checked equal to their point; a hash collision, never seen, falls back on an exact sort."""
    if len(points) < 2:
        return np.arange(len(points)), points
    group, firsts = pd.factorize(row_hashes(points))
    if len(firsts) == len(points):
        return np.arange(len(points)), points
    first_row = np.full(len(firsts), len(points))
    np.minimum.at(first_row, group, np.arange(len(points)))
    distinct = points[first_row]
    if not np.array_equal(distinct[group], points):  # a collision: exact, by sorting (ten times slower)
        _, firsts, group = np.unique(points, axis=0, return_index=True, return_inverse=True)
        order = np.argsort(firsts, kind="stable")
        relabel = np.empty_like(order)
        relabel[order] = np.arange(len(order))
        group, distinct = relabel[group.ravel()], points[firsts[order]]
    return group.astype(np.intp), distinct
