"""What the parameters module proposes (core/engine/parameters.py)."""

import pytest

from core.engine.parameters import SUGGESTED_K, suggested_k


@pytest.mark.parametrize(("rows", "k"), [(0, 2), (25, 2), (39, 3), (50, 5), (100, 10), (1_000, 10), (10**6, 10)])
def test_the_k_proposed_is_10_or_a_tenth_of_a_small_table_and_at_least_2(rows, k):
    assert SUGGESTED_K == 10 and suggested_k(rows) == k
