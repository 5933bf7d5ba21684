"""The Avatar method: a random local combination of each individual's nearest neighbours.

SPEC section 3. For each individual ``i``: its ``k`` nearest neighbours in the first
``ncp`` latent coordinates, excluding ``i`` itself; weights
``P_j = (1 / d_ij) * E_j * 2^(-pi_j)`` with ``E_j ~ Exp(1)`` and ``pi`` a uniform random
permutation of ``0..k-1``, normalised to sum to 1; the avatar is the weighted
combination of the neighbours. Because coding, projection and inverse projection
are linear, the combination is computed in closed form on the neighbours' values:
numeric value ``sum_j w_j x_j``; categorical value drawn from the neighbours' weighted
modality frequencies, which is the same as taking the value of one neighbour drawn
with probabilities ``w`` (an independent draw per variable).
"""

from __future__ import annotations

import numpy as np

from core.engine.encoding import EncodedTable
from core.engine.neighbours import NeighbourTree

SYNTHESIS_ROWS = 2**14  # rows searched, weighted and combined at a time: memory stays that of a chunk


def neighbours_excluding_self(coordinates: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices (n, k) of each row's ``k`` nearest other rows, nearest first: one exact tree query
    per row, on every core, repeated points counted once (:class:`~core.engine.neighbours.NeighbourTree`)."""
    return NeighbourTree(coordinates).query_excluding_self(np.arange(len(coordinates)), k)


def avatarize_rows(
    table: EncodedTable,
    coordinates: np.ndarray,
    k: int,
    rng: np.random.Generator,
    neighbours: tuple[np.ndarray, np.ndarray] | None = None,
) -> EncodedTable:
    """Every row's avatar, by chunks of ``SYNTHESIS_ROWS`` rows: neighbours, weights, combination.

    ``neighbours`` are (distances, indices) already found for every row (a sweep's
    search at its largest ``k``, cut to this ``k``); without them each chunk is searched
    in a tree over ``coordinates``. Either way the random draws come in the same order.
    """
    tree = None if neighbours is not None else NeighbourTree(coordinates)
    numeric = np.empty(table.numeric.shape)
    codes = np.empty(table.codes.shape, dtype=table.codes.dtype)
    for start in range(0, table.n_rows, SYNTHESIS_ROWS):
        rows = np.arange(start, min(start + SYNTHESIS_ROWS, table.n_rows))
        if tree is not None:
            distances, indices = tree.query_excluding_self(rows, k)
        else:
            assert neighbours is not None  # no tree: they were given
            distances, indices = neighbours[0][rows], neighbours[1][rows]
        numeric[rows], codes[rows] = combine_neighbours(table, indices, neighbour_weights(distances, rng), rng)
    return table.with_arrays(numeric, codes)


def neighbour_weights(distances: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Normalised weights ``w_j = P_j / sum(P)`` with ``P_j = (1 / d_ij) * E_j * 2^(-pi_j)``.

    A zero distance (a duplicate row) is replaced by the smallest positive distance
    of its row, so that it does not take all the weight; a row whose neighbours are
    all duplicates gets every distance set to 1.
    """
    n_rows, k = distances.shape
    zero = distances <= 0
    if zero.any():
        floor = np.where(zero, np.inf, distances).min(axis=1, keepdims=True)
        floor[~np.isfinite(floor)] = 1.0
        distances = np.where(zero, floor, distances)
    weights = rng.exponential(1.0, size=(n_rows, k))
    ranks = rng.permuted(np.broadcast_to(np.arange(k, dtype=np.int32), (n_rows, k)), axis=1)  # a permutation per row
    np.ldexp(weights, -ranks, out=weights)  # E_j * 2^(-pi_j), exactly, in place
    weights /= distances
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


def combine_neighbours(
    table: EncodedTable, indices: np.ndarray, weights: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The avatars in closed form: weighted sums of numeric values, weighted draws of categories.

    Returns the numeric values and the codes of one avatar per row of ``indices``.
    """
    numeric = np.empty((len(indices), table.numeric.shape[1]))
    for j in range(table.numeric.shape[1]):
        numeric[:, j] = np.einsum("ij,ij->i", table.numeric[:, j][indices], weights)
    cumulative = np.cumsum(weights, axis=1)
    last = indices.shape[1] - 1
    rows = np.arange(len(indices))
    codes = np.empty((len(indices), table.codes.shape[1]), dtype=table.codes.dtype)
    for j in range(table.codes.shape[1]):
        targets = rng.random(len(indices)) * cumulative[:, -1]
        chosen = np.minimum((cumulative <= targets[:, None]).sum(axis=1), last)
        codes[:, j] = table.codes[indices[rows, chosen], j]
    return numeric, codes
