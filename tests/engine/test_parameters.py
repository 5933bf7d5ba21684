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


def test_switching_to_fast_dp_puts_avatars_own_settings_back_to_their_defaults():
    # the fix search's fallback and the Trade-off page's settings switch an Avatar run with its spread restored
    switched = Parameters(k=10, spread="restored", seed=3).as_fast_dp(0.5, "gmm")
    assert (switched.k, switched.spread, switched.fast_dp_epsilon, switched.mechanism, switched.seed) == (
        None, "local_mean", 0.5, "gmm", 3)


def test_a_table_in_fast_dp_leaves_the_runs_avatar_spread_and_one_in_avatar_takes_it():
    # `--tables schema.json --k 10 --spread restored` with a table in AvatarFastDP: refused before (spread is
    # Avatar's), though the user asked it of the Avatar tables only
    from core.dataset import Table

    run = Parameters(k=10, spread="restored")
    assert run.for_table(Table("t", parameters={"fast_dp_epsilon": 1.0})).spread == "local_mean"
    assert run.for_table(Table("t", parameters={"k": 5})).spread == "restored"
    assert run.for_table(Table("t")).spread == "restored"
