"""Hostile tables written to CSV and given to ``python -m core avatarize`` (issue 15): each is either avatarized
faithfully (no invented modality, values in the observed range, codes, offsets and identifiers as they should be)
or refused with exit code 2, one line naming the column, and nothing written. ``HOSTILE_EXAMPLES=1000`` for a
longer hunt."""

import contextlib
import io
import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main
from core.engine.io import read_table

NAMES = ["x", "x (missing)", "x (= 0)", "sex", "sex (missing)", "0", "1", "Ünïcödé name", "a,b", "weight kg",
         'say "hi"', " padded ", "two\nlines"]
KINDS = ["float", "extreme", "tiny", "infinite", "huge_codes", "int64_edges", "small_codes", "leading_zeros",
         "sentinel_dates", "offset_times", "summer_time", "na_text", "true_text", "flags", "emails", "spiky",
         "durations", "unicode"]
OFFSET = re.compile(r"[+-]\d{2}:?\d{2}$")


def column(kind: str, n_rows: int, rng: np.random.Generator) -> pd.Series:
    """``n_rows`` values of one hostile kind, with about 10 % missing where the kind allows it."""
    if kind in ("float", "extreme", "tiny", "infinite"):
        scale = {"float": 1.0, "extreme": 1e300, "tiny": 1e-300, "infinite": 1.0}[kind]
        values = rng.normal(size=n_rows) * scale
        values[rng.random(n_rows) < 0.1] = np.nan
        if kind == "infinite":
            values[rng.integers(n_rows)] = rng.choice([np.inf, -np.inf])
        return pd.Series(values)
    if kind == "huge_codes":  # whole numbers beyond 2^53: averaged they would lose digits
        return pd.Series(rng.choice([2**62 + 1, 2**62 + 7, -(2**63) + 3, 9_007_199_254_740_993], n_rows))
    if kind == "int64_edges":
        return pd.Series(rng.choice([2**63 - 1, -(2**63), 0, 1], n_rows))
    if kind == "small_codes":
        return pd.Series(rng.choice([70, 80, 90, 100], n_rows))
    if kind == "leading_zeros":
        return pd.Series(rng.choice(["01000", "00123", "07000", "99999"], n_rows))
    if kind == "sentinel_dates":
        dates = pd.Series(pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n_rows), unit="D"))
        text = dates.dt.strftime("%Y-%m-%d")
        text[rng.random(n_rows) < 0.15] = "9999-12-31"
        text[rng.random(n_rows) < 0.05] = "1500-06-01"
        return text
    if kind == "offset_times":
        times = pd.to_datetime("2024-03-30 08:00") + pd.to_timedelta(rng.integers(0, 5_000, n_rows), unit="min")
        return pd.Series(times.strftime("%Y-%m-%dT%H:%M:00+02:00"))
    if kind == "summer_time":  # offsets +01:00 and +02:00 on either side of the change of time
        times = pd.to_datetime("2024-03-28 08:00") + pd.to_timedelta(rng.integers(0, 6_000, n_rows), unit="min")
        local = times.tz_localize("UTC").tz_convert("Europe/Paris")
        return pd.Series(local.strftime("%Y-%m-%dT%H:%M:00%z")).str.replace(r"(\d{2})(\d{2})$", r"\1:\2", regex=True)
    if kind == "na_text":  # "NA" is North America here, not a missing value
        return pd.Series(rng.choice(["NA", "EU", "AS", "OC"], n_rows))
    if kind == "true_text":
        return pd.Series(rng.choice(["True", "False"], n_rows))
    if kind == "durations":
        return pd.Series(pd.to_timedelta(rng.integers(1, 400, n_rows), unit="h")).astype(str)
    if kind == "unicode":
        return pd.Series(rng.choice(["café", "naïve", "日本", "emoji 🙂", "a;b", 'quote "q"'], n_rows))
    if kind == "flags":
        return pd.Series(rng.random(n_rows) < 0.3)
    if kind == "emails":
        return pd.Series([f"person{i}.{rng.integers(1000)}@example.org" for i in range(n_rows)])
    values = np.where(rng.random(n_rows) < 0.4, 0.0, rng.gamma(2.0, 1_000.0, n_rows).round(2))  # spiky
    return pd.Series(values)


@st.composite
def hostile_tables(draw):
    n_rows = draw(st.integers(12, 60))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True))
    kinds = [draw(st.sampled_from(KINDS)) for _ in names]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return pd.DataFrame({name: column(kind, n_rows, rng) for name, kind in zip(names, kinds, strict=True)}), dict(zip(names, kinds, strict=True))


def as_said(name: str) -> str:
    """A column name as a one-line message gives it: stripped, a line break written \\n."""
    return name.strip().replace("\n", "\\n")


def avatarize(path: Path, out: Path, method: tuple[str, ...] = ("--k", "2")) -> tuple[int, str]:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        code = main(["avatarize", str(path), *method, "--seed", "1", "--out", str(out)])
    return code, stderr.getvalue()


@settings(max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "40")), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hostile_tables(), st.sampled_from([("--k", "2"), ("--fast-dp-epsilon", "1"),
                                           ("--fast-dp-epsilon", "0.5", "--mechanism", "gmm")]))
def test_a_hostile_table_is_avatarized_faithfully_or_refused_in_one_line(table_and_kinds, method):
    table, kinds = table_and_kinds
    with tempfile.TemporaryDirectory() as folder:
        path, out = Path(folder) / "hostile.csv", Path(folder) / "avatars.csv"
        table.to_csv(path, index=False)
        code, stderr = avatarize(path, out, method)
        if code != 0:
            refused = [line for line in stderr.splitlines() if line.startswith("error:")]
            assert code == 2 and len(refused) == 1 and "Traceback" not in stderr, stderr
            assert not out.exists() and list(Path(folder).iterdir()) == [path]  # nothing written, not even a part
            if set(kinds.values()) == {"emails"}:
                assert "nothing to synthesise" in refused[0], stderr
            else:
                infinite = [f"'{as_said(name)}'" for name, kind in kinds.items() if kind == "infinite"]
                assert "infinite value" in refused[0] and any(name in refused[0] for name in infinite), stderr
            return
        assert "infinite" not in kinds.values(), "an infinite value was accepted"
        assert set(kinds.values()) != {"emails"}, "a table of identifiers only was accepted"
        originals, avatars = read_table(path), read_table(out)
        assert list(avatars.columns) == list(originals.columns)
        for position, (name, kind) in enumerate(kinds.items()):  # by position: names are read stripped of spaces
            check_column(name, kind, originals.iloc[:, position], avatars.iloc[:, position])


def check_column(name: str, kind: str, original: pd.Series, avatar: pd.Series) -> None:
    present = avatar.dropna()
    if kind == "durations":
        durations, observed = pd.to_timedelta(present), pd.to_timedelta(original)
        assert observed.min() <= durations.min() and durations.max() <= observed.max(), name
    elif kind in ("float", "extreme", "tiny", "spiky"):
        assert pd.api.types.is_numeric_dtype(avatar), name
        assert original.min() <= present.min() and present.max() <= original.max(), name
        if kind == "tiny":
            assert (present != 0).all(), name  # values near 1e-300 used to become 0
    elif kind == "emails":
        assert not set(present.astype(str)) & set(original.astype(str)), f"{name}: a real e-mail was copied"
    elif kind in ("offset_times", "summer_time"):
        assert getattr(present.dt, "tz", None) is not None, f"{name}: the offset was lost"
        assert original.min() <= present.min() and present.max() <= original.max(), name
    elif kind == "sentinel_dates":
        assert str(present.min()) >= str(original.min()) and str(present.max()) <= str(original.max()), name
    else:  # codes, flags, text: only values the column holds
        assert set(present.astype(str)) <= set(original.dropna().astype(str)), name
