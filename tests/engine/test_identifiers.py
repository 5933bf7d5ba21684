"""Identifier-like columns: no part in the synthesis, new identifiers of the same form (SPEC section 2 step 1)."""

import warnings

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from core import Avatarizer
from core.engine.identifiers import IdentifierForm
from core.metrics.evaluation import evaluate_avatarization


def people(n=600, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "email": [f"person{i}@example.org" for i in rng.permutation(n)],
        "patient": [f"P{i:05d}" for i in rng.permutation(n)],
        "record_id": np.arange(10_000, 10_000 + n),
        "age": rng.normal(50, 12, n).round(1),
        "sex": rng.choice(["F", "M"], n),
    })


def fit(frame, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Avatarizer(seed=0, **options).fit(frame)


def test_identifiers_take_no_part_and_get_new_values_of_the_same_form():
    frame = people()
    avatarizer = fit(frame, k=10)
    avatars = avatarizer.avatars_
    assert avatarizer.identifier_columns_ == ["email", "patient", "record_id"]
    assert list(avatars.columns) == list(frame.columns)
    for name in avatarizer.identifier_columns_:
        assert not set(avatars[name]) & set(frame[name])  # nothing of the originals
        assert avatars[name].is_unique
    assert avatars["record_id"].dtype == np.int64 and sorted(avatars["record_id"]) == list(range(100_001, 100_301))
    assert avatars["patient"].str.fullmatch(r"PAV\d{5}").all()  # the originals' letters and width, marked new
    assert avatars["email"].str.startswith("avatar-").all() and "@" not in "".join(avatars["email"])
    evaluation = evaluate_avatarization(avatarizer)
    assert evaluation.left_out_columns == ["email", "patient", "record_id"]
    assert evaluation.to_json()["left_out_columns"] == ["email", "patient", "record_id"]


def test_the_other_columns_are_made_as_without_the_identifiers():
    frame = people()
    with_ids = fit(frame, k=10).avatars_
    without = fit(frame.drop(columns=["email", "patient", "record_id"]), k=10).avatars_
    pd.testing.assert_frame_equal(with_ids[["age", "sex"]], without)


def test_a_kind_given_by_the_user_makes_it_an_ordinary_column_and_fast_dp_renews_too():
    frame = people(200)
    typed = fit(frame, k=5, column_kinds={"record_id": "numeric"})
    assert typed.identifier_columns_ == ["email", "patient"]
    assert fit(frame, fast_dp_epsilon=1.0).identifier_columns_ == ["email", "patient", "record_id"]
    excluded = fit(frame, k=5, exclude_variable_names=["patient"])
    assert "patient" not in excluded.identifier_columns_  # set aside on purpose: re-attached, real values
    assert set(excluded.avatars_["patient"]) <= set(frame["patient"])


def test_forms_read_on_the_values():
    assert IdentifierForm.of(pd.Series(["AB-0012", "AB-0340"], name="code")).new_values(3).tolist() == [
        "AB-AV0001", "AB-AV0002", "AB-AV0003"]
    assert IdentifierForm.of(pd.Series([5, 9, 12], name="n")).new_values(2).tolist() == [101, 102]  # > every id
    assert IdentifierForm.of(pd.Series(["x@a.org", "y@b.org"], name="mail")).new_values(2).tolist() == [
        "avatar-1", "avatar-2"]
    assert IdentifierForm.of(pd.Series(["avatar-1", "b"], name="odd")).new_values(1).tolist() == ["new-avatar-1"]


def test_nineteen_digit_whole_numbers_get_new_ones_within_int64_that_every_format_holds():
    new = IdentifierForm.of(pd.Series([2**62, 2**62 + 7, 5], name="n")).new_values(3)
    assert new.dtype == np.int64 and new.tolist() == [2**62 + 8, 2**62 + 9, 2**62 + 10]  # 10^19 + 1 passes int64
    top = 2**63 - 1
    below = IdentifierForm.of(pd.Series([top - 1, top], name="n"))
    assert below.new_values(2).tolist() == [top - 3, top - 2]  # no room above: just below the smallest
    assert below.new_values(1, first=1, total=2).tolist() == [top - 2]  # a batch's, numbered as the whole run's
    assert below.new_values(2).dtype == np.int64
    uint64 = IdentifierForm.of(pd.Series(np.array([2**63 + 10, 2**63 + 20], dtype=np.uint64), name="n"))
    assert uint64.new_values(2).tolist() == [2**63 + 8, 2**63 + 9]  # above int64: ids below them, in uint64's range
    assert uint64.new_values(2).dtype == np.uint64
    straddling = IdentifierForm.of(pd.Series(np.array([2**63 + 1, 2**63 + 5], dtype=np.uint64), name="n"))
    batches = [straddling.new_values(1, first=0, total=2), straddling.new_values(1, first=1, total=2)]
    assert [batch.dtype for batch in batches] == [np.uint64, np.uint64]  # one type for every batch's part
    assert [batch.iloc[0] for batch in batches] == [2**63 - 1, 2**63]
    spanning = IdentifierForm.of(pd.Series([-top, 17, top], name="n"))  # no room above nor below: the widest gap
    assert spanning.new_values(2).tolist() == [-top + 1, -top + 2] and spanning.new_values(2).dtype == np.int64
    edge = IdentifierForm.of(pd.Series(np.array([2**63, 2**64 - 1], dtype=np.uint64), name="n")).new_values(2)
    assert edge.dtype == np.uint64 and edge.tolist() == [2**63 - 2, 2**63 - 1]  # ending at 2^63: floats, twice 2^63
    every = IdentifierForm.of(pd.Series(np.array([0, 2**63 + 9, 2**64 - 1], dtype=np.uint64), name="n"))
    assert every.new_values(2).tolist() == [1, 2]  # unsigned originals keep ids of 0 or more, here in int64's range
    assert {every.new_values(1, first=batch, total=2).dtype for batch in (0, 1)} == {np.dtype(np.int64)}


@given(st.one_of(
    st.lists(st.integers(-10**12, 10**12), min_size=1, max_size=50, unique=True),
    st.lists(st.from_regex(r"[A-Z]{0,3}\d{1,6}", fullmatch=True), min_size=1, max_size=50, unique=True),
    st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=50, unique=True),
))
def test_new_identifiers_never_equal_an_original(values):
    column = pd.Series(values, name="id")
    new = IdentifierForm.of(column).new_values(len(values) + 5)
    assert not set(new.astype(str)) & set(column.astype(str)) and new.is_unique


def test_whole_numbers_beyond_float64_are_codes_kept_exactly_and_ids_renewed_exactly():
    big = pd.DataFrame({
        "account": [9_007_199_254_740_993 + i % 3 for i in range(40)],  # beyond 2^53: codes, never averaged
        "ticket": [9_223_372_036_854_775_000 + i for i in range(40)],  # unique: an identifier
        "x": np.arange(40) * 1.5,
    })
    avatarizer = fit(big, k=3)
    assert avatarizer.kinds_["account"] == "categorical" and set(avatarizer.avatars_["account"]) <= set(big["account"])
    tickets = avatarizer.avatars_["ticket"]
    assert tickets.is_unique and not set(tickets) & set(big["ticket"])
    assert tickets.dtype == np.int64 and min(tickets) == 9_223_372_036_854_775_040  # after the largest: 10^19 + 1
    # would pass int64


def test_new_identifiers_never_equal_an_original_beyond_the_sample():
    # the form was read on the first 1 000 values: PAV0001... among the last ones came out again as new ids
    column = pd.Series([f"P{i:04d}" for i in range(1, 1001)] + [f"PAV{i:04d}" for i in range(1, 101)], name="id")
    form = IdentifierForm.of(column)
    assert form.prefix == "PAVV" and not set(form.new_values(1100)) & set(column)
