from functools import reduce

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from core.dataset import Kind
from core.engine.encoding import TableCodec, code_dtype
from core.engine.schema import apply_kinds, resolve_kinds


def codec_for(frame, overrides=None):
    kinds = resolve_kinds(frame, overrides)
    typed = apply_kinds(frame, kinds)
    return TableCodec(kinds).fit(typed), typed


def test_round_trip_restores_types_and_missing_values():
    frame = pd.DataFrame({
        "count": [1, 2, None, 4],
        "weight": [70.25, 80.5, 90.125, None],
        "day": pd.to_datetime(["2024-01-01", None, "2024-03-01", "2024-04-01"]),
        "stamp": pd.to_datetime(["2024-01-01 10:00:01", "2024-01-01 10:00:02", None, "2024-01-02 00:00:00"]),
        "flag": [True, False, None, True],
        "colour": ["red", None, "blue", "red"],
        "code": [3, 1, 3, 2],
    })
    codec, typed = codec_for(frame, {"count": "numeric"})  # "code" is categorical by default: 3 whole values
    decoded = codec.decode(codec.encode(typed))
    assert list(decoded.columns) == list(frame.columns)
    assert decoded["count"].dtype == "Int64" and decoded["count"].isna().tolist() == [False, False, True, False]
    assert decoded["weight"].tolist()[:3] == [70.25, 80.5, 90.125]
    assert decoded["day"].tolist()[0] == pd.Timestamp("2024-01-01") and pd.isna(decoded["day"].iloc[1])
    assert decoded["stamp"].tolist()[1] == pd.Timestamp("2024-01-01 10:00:02")
    assert decoded["flag"].dtype == "boolean" and decoded["flag"].tolist()[:2] == [True, False]
    assert decoded["colour"].astype(object).where(decoded["colour"].notna(), None).tolist() == ["red", None, "blue", "red"]
    assert decoded["code"].tolist() == [3, 1, 3, 2]


def test_decoding_rounds_to_the_precision_written():
    frame = pd.DataFrame({"n": [1, 2, 3], "x": [1.5, 2.25, 3.0], "d": pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-05"])})
    codec, typed = codec_for(frame, {"n": "numeric"})
    encoded = codec.encode(typed)
    shifted = encoded.with_arrays(encoded.numeric + np.array([0.4, 0.0041, 3600.0 * 11]), encoded.codes)
    decoded = codec.decode(shifted)
    assert decoded["n"].tolist() == [1, 2, 3] and decoded["n"].dtype == np.int64
    assert decoded["x"].tolist() == [1.5, 2.25, 3.0]
    assert decoded["d"].tolist() == list(pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-05"]))


def test_datetimes_are_seconds_since_epoch_and_keep_their_timezone():
    frame = pd.DataFrame({"t": pd.to_datetime(["1970-01-01 00:01:00", "1970-01-02 00:00:00"]).tz_localize("Europe/Paris")})
    codec, typed = codec_for(frame)
    encoded = codec.encode(typed)
    assert encoded.numeric[:, 0].tolist() == [60.0 - 3600.0, 86_400.0 - 3600.0]
    assert codec.decode(encoded)["t"].tolist() == frame["t"].tolist()


def test_unknown_modalities_are_coded_like_missing_values():
    codec, typed = codec_for(pd.DataFrame({"c": ["a", "b"]}))
    other = apply_kinds(pd.DataFrame({"c": ["b", "z", None]}), {"c": Kind.CATEGORICAL})
    assert codec.encode(other).codes[:, 0].tolist() == [1, -1, -1]


def test_codes_take_the_smallest_integer_type_that_holds_every_modality():
    assert code_dtype([]) == np.int8 and code_dtype([range(2), range(127)]) == np.int8
    assert code_dtype([range(2), range(128)]) == np.int16 and code_dtype([range(40_000)]) == np.int32
    frame = pd.DataFrame({"job": [f"job {i}" for i in range(300)] * 2, "sex": ["F", "M"] * 300})
    kinds = resolve_kinds(frame)
    typed = apply_kinds(frame, kinds)
    codec = TableCodec(kinds).fit(typed)
    table = codec.encode(typed)
    assert table.codes.dtype == np.int16 and table.codes[:, 0].max() == 299
    pd.testing.assert_frame_equal(codec.decode(table).astype(str), frame.astype(str))


def test_avatars_keep_the_columns_usual_precision():
    # 99 % of the earnings are written with at most 2 decimals, 1 % with 5: the usual precision is 2 decimals
    rng = np.random.default_rng(0)
    earnings = rng.integers(0, 1_000_000, 1_000) / 100
    earnings[:10] = np.round(earnings[:10] + 0.00123, 5)
    codec, typed = codec_for(pd.DataFrame({"earnings": earnings, "measure": rng.normal(size=1_000)}))
    shifted = codec.encode(typed)
    shifted.numeric[:, 0] += 0.003
    decoded = codec.decode(shifted)
    assert np.all(np.abs(decoded["earnings"] * 100 - np.round(decoded["earnings"] * 100)) < 1e-6)
    assert not np.allclose(decoded["measure"], np.round(decoded["measure"], 6))  # full precision: measured


def test_dates_beyond_nanoseconds_and_time_zones_round_trip():
    # the "open end" 9999-12-31 and a date of 1500 lie outside pandas' nanosecond range: kept exactly
    frame = pd.DataFrame({
        "until": pd.Series(pd.to_datetime(["2020-01-01", "9999-12-31", "1500-01-01", None])).astype("datetime64[ms]"),
        "seen": pd.Series(pd.to_datetime(["2020-01-01 10:00", "2021-06-01 11:30", None, "2022-01-01 09:00"]))
        .dt.tz_localize("Europe/Paris"),
    })
    codec, typed = codec_for(frame)
    decoded = codec.decode(codec.encode(typed))
    assert decoded["until"].tolist()[:3] == frame["until"].tolist()[:3] and pd.isna(decoded["until"].iloc[3])
    assert decoded["until"].dtype == frame["until"].dtype  # the unit read (ms), kept
    assert decoded["seen"].dtype == frame["seen"].dtype and decoded["seen"].iloc[1] == frame["seen"].iloc[1]


def test_tiny_values_keep_their_precision():
    # values near 1e-300 are not whole numbers: rounding them to 0 decimals would make them 0
    frame = pd.DataFrame({"tiny": np.linspace(1e-300, 9e-300, 5)})
    codec, typed = codec_for(frame, {"tiny": "numeric"})
    assert codec.decode(codec.encode(typed))["tiny"].tolist() == frame["tiny"].tolist()


def test_whole_numbers_beyond_what_an_integer_holds_stay_floats():
    """1e299 is a whole number: it used to be cast to int64 and come back as -9223372036854775808."""
    frame = pd.DataFrame({"x": [6.6e299, -5.1e299, 1.7e299, np.nan]})
    kinds = resolve_kinds(frame)
    typed = apply_kinds(frame, kinds)
    codec = TableCodec(kinds).fit(typed)
    decoded = codec.decode(codec.encode(typed))["x"]
    assert decoded.dtype == "float64"
    np.testing.assert_array_equal(decoded.to_numpy(), frame["x"].to_numpy())


@given(data=st.data(), n_parts=st.integers(1, 5))
@settings(max_examples=40, deadline=None)
def test_codecs_of_parts_merged_are_the_codec_of_the_rows_one_after_the_other(data, n_parts):
    rng = np.random.default_rng(data.draw(st.integers(0, 1_000)))
    n_rows = 200
    frame = pd.DataFrame({
        "weight": np.where(np.arange(n_rows) != 5, rng.normal(70, 9, n_rows).round(1), rng.normal(70, 9, n_rows)),
        "count": rng.integers(0, 30, n_rows).astype(float),
        "day": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 900, n_rows) * 3_600, unit="s"),
        "colour": rng.choice(["red", "green", "blue", "violet", "grey"], n_rows, p=[0.4, 0.3, 0.2, 0.06, 0.04]),
    })
    kinds = resolve_kinds(frame, {"count": "numeric"})
    typed = apply_kinds(frame, kinds)
    cuts = [0, *sorted(data.draw(st.sets(st.integers(1, n_rows - 1), min_size=n_parts - 1, max_size=n_parts - 1))),
            n_rows]
    parts = [TableCodec(kinds).fit(typed.iloc[start:stop]) for start, stop in zip(cuts, cuts[1:], strict=False)]
    merged, whole = reduce(lambda first, second: first.merged(second), parts), TableCodec(kinds).fit(typed)
    assert merged.numeric_columns_ == whole.numeric_columns_  # decimals, resolution, unit
    assert {name: list(modalities) for name, modalities in merged.categories_.items()} == \
        {name: list(modalities) for name, modalities in whole.categories_.items()}
    assert merged.numeric_columns_[2].datetime_resolution_s == 3_600.0 and merged.numeric_columns_[0].decimals == 1


def test_a_modality_seen_in_one_part_only_is_in_the_merged_codec():
    kinds = {"colour": Kind.CATEGORICAL}
    first = TableCodec(kinds).fit(apply_kinds(pd.DataFrame({"colour": ["red", "blue"]}), kinds))
    last = TableCodec(kinds).fit(apply_kinds(pd.DataFrame({"colour": ["red", "violet"]}), kinds))
    assert list(first.merged(last).categories_["colour"]) == ["blue", "red", "violet"]
