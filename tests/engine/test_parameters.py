"""What the parameters module proposes (core/engine/parameters.py)."""

import pytest

from core.engine.parameters import SCOPES, SUGGESTED_K, Parameters, suggested_k


@pytest.mark.parametrize(("rows", "k"), [(0, 2), (25, 2), (39, 3), (50, 5), (100, 10), (1_000, 10), (10**6, 10)])
def test_the_k_proposed_is_10_or_a_tenth_of_a_small_table_and_at_least_2(rows, k):
    assert SUGGESTED_K == 10 and suggested_k(rows) == k


def test_a_tables_entry_sets_the_parameters_of_a_table_and_nothing_its_columns_say():
    """Issue 48, a hostile hunt: a table's entry with ``"column_weights": {"x": 2}`` ran (exit 0), its weights replaced
    by those of the table's columns without a word. The scopes say what an entry may set."""
    from core.dataset import Table
    from core.errors import InputError

    for name in Parameters.names("columns"):
        with pytest.raises(InputError, match=rf"^Table 't': \"{name}\" is said by the table's \"columns\""):
            Parameters().for_table(Table("t", parameters={name: {}}))
    with pytest.raises(InputError, match=r"^Table 't': 'kk' is not a parameter of a table; a table's are k, "):
        Parameters().for_table(Table("t", parameters={"kk": 1}))
    assert Parameters().for_table(Table("t", parameters={"k": 7, "nf": 2})).k == 7
    assert Parameters.option_of("holdout") == "--no-holdout" and Parameters.option_of("holdout_min_rows") is None
    assert set(Parameters.names()) == {name for scope in SCOPES for name in Parameters.names(scope)}
