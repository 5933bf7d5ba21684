"""Which method the parameters ask for, and what each checks against the rows avatarized."""

import warnings

import pytest

from core.engine.methods import Avatar, AvatarFastDP, method_of
from core.engine.parameters import Parameters
from core.errors import InputError


def test_exactly_one_method_is_asked_for():
    assert method_of(Parameters(k=10)) == Avatar(10)
    fast = method_of(Parameters(fast_dp_epsilon=0.5, mechanism="histogram"))
    assert isinstance(fast, AvatarFastDP) and fast.synthesizer.epsilon_ == 0.5
    with pytest.raises(InputError, match="^k and fast_dp_epsilon are mutually exclusive"):
        method_of(Parameters(k=10, fast_dp_epsilon=1.0))
    with pytest.raises(InputError, match="^Set exactly one of k"):
        method_of(Parameters())
    with pytest.raises(InputError, match=r"^k must be at least 2, got 1\."):
        method_of(Parameters(k=1))
    with pytest.raises(InputError, match="^exclude_replacement_strategy 'row_order' needs avatars paired"):
        method_of(Parameters(fast_dp_epsilon=1.0, exclude_variable_names=("x",),
                             exclude_replacement_strategy="row_order"))


def test_only_avatar_pairs_each_avatar_with_an_original():
    assert Avatar.paired and not AvatarFastDP.paired
    assert (Avatar.name, AvatarFastDP.name) == ("avatar", "fast_dp")  # the JSON's words


def test_k_is_checked_against_the_rows_avatarized_and_the_holdout_said():
    with pytest.raises(InputError, match=r"^k must be smaller than the number of rows avatarized, 250 \(half of 500"):
        Avatar(250).check_rows(250, 500, holdout=True)
    with pytest.raises(InputError, match=r"^k must be smaller than the number of rows, 40, got 40\. Lower k"):
        Avatar(40).check_rows(40, 40, holdout=False)
    with pytest.warns(UserWarning, match="k = 2 combines only two neighbours"):
        Avatar(2).check_rows(40, 40, holdout=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Avatar(39).check_rows(40, 40, holdout=False)


def test_a_mixture_has_at_most_one_component_per_row_avatarized():
    method_of(Parameters(fast_dp_epsilon=1.0, mechanism="gmm", gmm_n_components=500)).check_rows(500, 1000, True)
    with pytest.raises(InputError, match=r"^gmm_n_components must be at most the number of rows avatarized, 499"):
        method_of(Parameters(fast_dp_epsilon=1.0, mechanism="gmm", gmm_n_components=500)).check_rows(499, 998, True)
    method_of(Parameters(fast_dp_epsilon=1.0, gmm_n_components=500)).check_rows(10, 10, False)  # not a mixture


def test_each_method_says_itself_with_its_main_parameter():
    assert Avatar(10).describe() == "Avatar, k = 10"
    assert method_of(Parameters(fast_dp_epsilon=0.3, mechanism="gmm")).describe() == \
        "AvatarFastDP (gmm), epsilon = 0.3"


def test_the_spread_is_avatars_own_and_said():
    assert method_of(Parameters(k=10)) == Avatar(10) and not Avatar(10).restore_spread
    restored = method_of(Parameters(k=10, spread="restored"))
    assert restored.restore_spread and restored.describe() == "Avatar, k = 10, spread restored"
    with pytest.raises(InputError, match="spread must be one of local_mean, restored, got 'wide'"):
        method_of(Parameters(k=10, spread="wide"))
    with pytest.raises(InputError, match="spread 'restored' is Avatar's"):  # never dropped without a word
        method_of(Parameters(fast_dp_epsilon=1.0, spread="restored"))
