"""Child avatars given parent avatars (SPEC 12, synthesis steps 3 and 4): how many children each parent avatar gets,
then which of them, by the link's method.

Step 3, :func:`children_per_parent`: each parent avatar's avatarized number of children rounded, clipped to the
observed range, the total brought to the real number of children by one-step changes in order of the rounding
residuals. Step 4, :func:`linked_parents`: each parent avatar repeated by its number of children (its *slots*), each
child avatar given a slot; the cost of a child on a slot is the distance, in the parent's latent space, between the
child's parent context (where its parent should be) and the slot's parent avatar:

- ``linear_sum_assignment``: the assignment of least total cost. Up to :data:`DENSE_MAX` children, scipy's exact
  solver on the dense cost matrix. Up to :data:`SPARSE_MAX` children, while the children per parent are few
  (:data:`SPANNED_PARENTS` parents' slots per child within :data:`SPARSE_MAX_SLOTS`), the sparse graph of each
  child's nearest slots (those of its nearest parents, :data:`FIRST_SLOTS` of them, doubled until the matching is
  certified least on every slot, with each child's greedy slot so that a full matching exists) solved by
  ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``: no n x n matrix, the dense solver's cost once
  certified (9 896 children, 3 per parent: 6 s; the dense solver takes 11 s on 6 000); at
  :data:`SPARSE_WIDEST` slots per child uncertified, the least on that graph (the clinical demo's 3 498
  prescriptions: 3.5 s, 4 % above the least, which the dense solver reaches in 16 s; the greedy method 15 %). Beyond, or with many children per parent (flights per plane, where that graph
  grows with the fan-out and HiGHS's network LP on 286 682 flights x 8 planes each took over 900 s),
  ``minimum_distance``'s links improved block by block (:func:`_least_cost_blocks`): never above its cost; 3 to
  5 % above the least on 6 000 to 10 000 children of 3 to 20 per parent (``minimum_distance``: 7 to 16 %); on the
  flights 0.5 % below ``minimum_distance``, where the former blocks (the children split by their gain) were 44 %
  above it, in a third of their time;
- ``minimum_distance``: each child to its nearest parent avatar with a slot left, in rounds (each parent takes the
  closest of the children that chose it, as many as its slots left; the others choose again among the parents with
  slots left): faster, a larger total cost.

``original_order`` (each child avatar follows its own original's parent avatar) needs no cost: the caller keeps the
real family structure.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import min_weight_full_bipartite_matching
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from core.dataset.links import LinkMethod

DENSE_MAX = 2_000  # children solved on the dense cost matrix (2 000 x 2 000 float64: 32 MB)
FIRST_SLOTS = 16  # each child's nearest slots in the sparse graph, doubled until a full matching exists
SPANNED_PARENTS = 4  # the sparse graph is certified when each child's nearest slots span several parents...
SPARSE_MAX_SLOTS = 64  # ...so it serves while that many parents' slots are this many per child at most
SPARSE_MAX = 10_000  # children solved on the sparse graph (its widening grows faster than the children)
SPARSE_WIDEST = 256  # the widest graph searched: slots per child
BLOCK_MAX = 250  # beyond, blocks of nearby parents, their children re-linked on a dense matrix of this many at most
BLOCK_CUTS = (0.5, 0.25, 0.75, 0.375, 0.625)  # each pass's first cut of the parents' slots: the blocks' borders move
BLOCK_GAIN = 0.002  # the passes stop at one that lowers the total cost by less than this share


def children_per_parent(estimated: np.ndarray, observed: np.ndarray, total: int) -> np.ndarray:
    """Each parent avatar's number of children (SPEC 12 step 3): ``estimated`` (its avatarized count) rounded and
    clipped to the range of ``observed`` (the real parents' counts), the sum brought to ``total`` one child at a time,
    to the parents whose rounding moved them farthest from their estimate first (a tie: the earlier parent)."""
    estimated = np.asarray(estimated, dtype=float)
    low, high = int(np.min(observed)), int(np.max(observed))
    if not len(estimated) * low <= total <= len(estimated) * high:
        raise ValueError(f"{total} children cannot be shared among {len(estimated)} parents of {low} to {high} each.")
    counts = np.clip(np.rint(estimated), low, high).astype(np.int64)
    residual = estimated - counts
    gap = total - int(counts.sum())
    while gap:
        step = 1 if gap > 0 else -1
        room = np.flatnonzero(counts < high if step > 0 else counts > low)
        chosen = room[np.argsort(-step * residual[room], kind="stable")[:abs(gap)]]
        counts[chosen] += step
        residual[chosen] -= step
        gap -= step * len(chosen)
    return counts


def linked_parents(contexts: np.ndarray, parents: np.ndarray, slots: np.ndarray, method: LinkMethod) -> np.ndarray:
    """The parent avatar (its row in ``parents``) of each child avatar, whose parent context is its row of
    ``contexts`` (both in the parent's latent space), parent ``p`` taking ``slots[p]`` children (their sum is the
    number of children), by ``method``; deterministic (a tie goes to the earlier parent, then the earlier child)."""
    contexts, parents = np.asarray(contexts, dtype=float), np.asarray(parents, dtype=float)
    slots = np.asarray(slots, dtype=np.int64)
    if int(slots.sum()) != len(contexts):
        raise ValueError(f"{len(contexts)} children for {int(slots.sum())} slots.")
    if method is LinkMethod.LINEAR_SUM_ASSIGNMENT:
        if len(contexts) <= DENSE_MAX:
            return _least_cost_dense(contexts, parents, slots)
        if (len(contexts) <= SPARSE_MAX
                and SPANNED_PARENTS * len(contexts) / max(int((slots > 0).sum()), 1) <= SPARSE_MAX_SLOTS):
            return _least_cost_sparse(contexts, parents, slots)
        return _least_cost_blocks(contexts, parents, slots)
    if method is LinkMethod.MINIMUM_DISTANCE:
        return _nearest_with_slot_left(contexts, parents, slots)
    raise ValueError(f"{method} links children without a cost.")


def assignment_cost(contexts: np.ndarray, parents: np.ndarray, linked: np.ndarray) -> float:
    """The total distance between each child's parent context and the parent avatar it is linked to."""
    return float(np.linalg.norm(np.asarray(contexts, dtype=float) - np.asarray(parents, dtype=float)[linked],
                                axis=1).sum())


def _least_cost_dense(contexts: np.ndarray, parents: np.ndarray, slots: np.ndarray) -> np.ndarray:
    slot_parent = np.repeat(np.arange(len(parents)), slots)
    rows, columns = linear_sum_assignment(cdist(contexts, parents[slot_parent]))
    return slot_parent[columns[np.argsort(rows)]]


def _least_cost_sparse(contexts: np.ndarray, parents: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """The least-cost assignment on the graph of each child's nearest slots and its slot in
    :func:`_nearest_with_slot_left` (so that a full matching always exists), widened until it is the least on every
    slot (:func:`_certified`). Beyond :data:`SPARSE_WIDEST` slots per child: the dense solver when it fits, else the
    least on the widest graph (at most the greedy method's cost)."""
    holding = np.flatnonzero(slots > 0)  # each holds a slot at least: k parents hold k slots or more
    tree, first_slot = cKDTree(parents[holding]), np.concatenate([[0], np.cumsum(slots)[:-1]])
    slot_parent = np.repeat(np.arange(len(parents)), slots)
    n_children, wanted = len(contexts), FIRST_SLOTS
    greedy = _nearest_with_slot_left(contexts, parents, slots)
    greedy_slot = np.empty(n_children, dtype=np.int64)  # each child its own slot of its greedy parent: the slots
    greedy_slot[np.argsort(greedy, kind="stable")] = np.arange(n_children)  # are numbered by parent, as sorted
    greedy_weight = np.linalg.norm(contexts - parents[greedy], axis=1) + 1.0
    while True:
        nearest = min(wanted, len(holding))
        distances, found = tree.query(contexts, k=nearest)
        distances, found = distances.reshape(n_children, nearest), holding[found.reshape(n_children, nearest)]
        held = slots[found]
        taken = np.clip(wanted - (np.cumsum(held, axis=1) - held), 0, held)  # the slots of each near parent
        rows = np.repeat(np.repeat(np.arange(n_children), nearest), taken.ravel())
        within = np.arange(int(taken.sum())) - np.repeat(np.cumsum(taken.ravel()) - taken.ravel(), taken.ravel())
        columns = np.repeat(first_slot[found].ravel(), taken.ravel()) + within
        weights = np.repeat(distances.ravel(), taken.ravel()) + 1.0  # + 1 on every edge: no zero read as no edge
        edges = np.concatenate([rows * n_children + columns, np.arange(n_children) * n_children + greedy_slot])
        kept = np.unique(edges, return_index=True)[1]  # a greedy edge already among the nearest: once
        rows, columns = np.r_[rows, np.arange(n_children)][kept], np.r_[columns, greedy_slot][kept]
        _, matched = min_weight_full_bipartite_matching(csr_matrix(
            (np.r_[weights, greedy_weight][kept], (rows, columns)), shape=(n_children, n_children)))
        linked = slot_parent[matched]
        radius = distances[np.arange(n_children), (taken > 0).sum(axis=1) - 1]  # the farthest parent joined
        if wanted >= n_children or _certified(linked, distances, found, taken > 0, radius, len(parents)):
            return linked
        if wanted >= SPARSE_WIDEST:
            return _least_cost_dense(contexts, parents, slots) if n_children <= DENSE_MAX else linked
        wanted *= 2


def _certified(linked: np.ndarray, distances: np.ndarray, found: np.ndarray, joined: np.ndarray, radius: np.ndarray,
               n_parents: int) -> bool:
    """Whether ``linked`` is the least-cost assignment on every slot, not only on the graph searched: a dual of the
    transportation problem (children to parents) whose reduced costs are non-negative on every pair. Parents'
    potentials ``v`` from the graph's pairs (shortest paths: ``v[a] <= v[j] + c(i, j) - c(i, a)`` for child ``i``
    linked to ``a`` and joined to ``j``; none if a cycle of negative cost remains, which a better assignment would
    take); a child ``i``'s pairs left out of the graph cost at least its ``radius``, which suffices when
    ``radius[i] >= c(i, a) + v[a] - min(v)``."""
    if not (found == linked[:, None]).any(axis=1).all():
        return False  # a child linked through its greedy edge, beyond its nearest parents
    own = np.take_along_axis(distances, np.argmax(found == linked[:, None], axis=1)[:, None], axis=1)[:, 0]
    rows = np.broadcast_to(np.arange(len(linked))[:, None], found.shape)[joined]
    tails, heads = found[joined], linked[rows]
    weights = distances[joined] - own[rows]
    potentials = np.zeros(n_parents)
    for _ in range(n_parents + 1):
        relaxed = potentials.copy()
        np.minimum.at(relaxed, heads, potentials[tails] + weights)
        if np.array_equal(relaxed, potentials):
            return bool((radius >= own + potentials[linked] - potentials.min() - 1e-9).all())
        potentials = relaxed
    return False  # a negative cycle: the assignment is not the least on its own graph


def _least_cost_blocks(contexts: np.ndarray, parents: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """The nearest parent with a slot left (:func:`_nearest_with_slot_left`), then improved block by block, a pass
    per share in :data:`BLOCK_CUTS` until one lowers the total cost by less than :data:`BLOCK_GAIN`: the parents
    grouped into blocks of nearby parents (:func:`_parent_blocks`) and the children linked to each block's parents
    re-linked at the least cost among them (their dense cost matrix). The links restricted to a block are one of its
    assignments, so no pass raises the total cost: never above ``minimum_distance``'s. A single parent's block keeps
    its children, no matrix: memory grows with the children, never with a family squared."""
    linked = _nearest_with_slot_left(contexts, parents, slots)
    cost = assignment_cost(contexts, parents, linked)
    for first_share in BLOCK_CUTS:
        by_parent = np.argsort(linked, kind="stable")
        starts = np.r_[0, np.cumsum(np.bincount(linked, minlength=len(parents)))]
        for holders in _parent_blocks(parents, slots, first_share):
            if len(holders) > 1:
                children = np.sort(np.concatenate([by_parent[starts[h]:starts[h + 1]] for h in holders]))
                linked[children] = holders[_least_cost_dense(contexts[children], parents[holders], slots[holders])]
        cost, before = assignment_cost(contexts, parents, linked), cost
        if cost > (1 - BLOCK_GAIN) * before:
            break
    return linked


def _parent_blocks(parents: np.ndarray, slots: np.ndarray, first_share: float) -> list[np.ndarray]:
    """The parents holding slots, halved until a block holds :data:`BLOCK_MAX` slots at most or a single parent: sorted
    on their widest coordinate, cut after the parents whose slots add up to ``first_share`` of the block's at most
    (the first cut; a half after), one parent on each side at least."""
    blocks, pending = [], [(np.flatnonzero(slots > 0), first_share)]
    while pending:
        holders, share = pending.pop()
        if len(holders) == 1 or int(slots[holders].sum()) <= BLOCK_MAX:
            blocks.append(holders)
            continue
        axis = int(np.argmax(np.ptp(parents[holders], axis=0)))
        holders = holders[np.argsort(parents[holders, axis], kind="stable")]
        held = np.cumsum(slots[holders])
        cut = int(np.clip(np.searchsorted(held, share * held[-1], side="right"), 1, len(holders) - 1))
        pending += [(holders[:cut], 0.5), (holders[cut:], 0.5)]
    return blocks


def _nearest_with_slot_left(contexts: np.ndarray, parents: np.ndarray, slots: np.ndarray) -> np.ndarray:
    linked = np.full(len(contexts), -1, dtype=np.int64)
    left, waiting = slots.copy(), np.arange(len(contexts))
    while waiting.size:
        open_parents = np.flatnonzero(left > 0)
        distances, nearest = cKDTree(parents[open_parents]).query(contexts[waiting], k=1, workers=-1)
        chosen = open_parents[nearest]
        order = np.lexsort((waiting, distances, chosen))  # by parent, the closest child first
        chosen, waiting = chosen[order], waiting[order]
        starts = np.flatnonzero(np.r_[True, chosen[1:] != chosen[:-1]])
        rank = np.arange(len(chosen)) - np.repeat(starts, np.diff(np.r_[starts, len(chosen)]))
        accepted = rank < left[chosen]
        linked[waiting[accepted]] = chosen[accepted]
        left -= np.bincount(chosen[accepted], minlength=len(parents))
        waiting = np.sort(waiting[~accepted])
    return linked
