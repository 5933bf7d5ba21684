"""A table that describes another's columns (issue 46, core/dataset/codebooks.py), by hand."""

import pandas as pd

from core.dataset.codebooks import codebooks


def test_a_codebook_is_told_from_a_table_of_rows():
    births = pd.DataFrame({"id": range(300), "wt": 3.0, "Gestation": 280, "smoke": "never"})
    codebook = pd.DataFrame({"Variable ": ["ID", "wt", "gestation", "smoke", "(notes)"],
                             "meaning": ["the id", "weight", "days", "smoking", "see the survey's manual"]})
    regions = pd.DataFrame({"region": ["north", "south"], "population": [10, 20]})  # a lookup table: rows
    stays = pd.DataFrame({"id": range(40), "days": 3})
    assert codebooks({"births": births, "codebook": codebook, "regions": regions, "stays": stays}) == {
        "codebook": "births"}  # 4 of its 5 names are births' columns, case and spaces aside
    long = pd.concat([codebook] * 10)  # 50 rows for 4 columns: rows, not a description
    assert codebooks({"births": births, "codebook": long}) == {}
    assert codebooks({"births": births}) == {}
