"""The engine's batch steps run one after the other in this process (the workflow runs them on Dask)."""

import numpy as np
import pytest

from core.engine import batched
from core.engine.batched import Batches, WholeTable, avatarize_batch, decide
from core.engine.batches import batch_count, stage_group
from core.engine.encoding import EncodedTable
from core.engine.io import csv_bytes, read_table
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer
from core.engine.projection import Projection
from core.engine.sources import TableInput, TypedColumns
from core.engine.stages import model_weights
from core.engine.table_typing import type_column, typing_of_columns
from tests.support import mixed_table


def in_order(function, items):
    return [function(item) for item in items]


def batch_run(spec, folder, params, batch_rows):
    """Every step of a batch run, in this process: the avatars of each batch, and the decisions."""
    table = TableInput.open(str(spec))
    for made in ("columns", "batches/cache"):
        (folder / made).mkdir(parents=True)
    columns = [type_column(table, position, params.get("column_kinds"), folder / "columns")
               for position in range(len(table.columns))]
    typing = typing_of_columns(table.columns, columns, params.get("column_kinds"),
                               params.get("exclude_variable_names", ()), params.get("column_weights"))
    typed = TypedColumns(folder / "columns", table.columns, tuple(range(len(table.columns))), columns[0].group_rows)
    n_batches = batch_count(typed.n_rows, batch_rows)
    for group in range(len(typed.group_rows)):
        stage_group(typed, group, params["seed"], n_batches, folder / "batches")
    batches = Batches(typed, folder / "batches", n_batches)
    whole = decide(Parameters.of(params), WholeTable(typing), batches, in_order)
    fitted, first = [], 0
    total = sum(len(batches.rows(batch)) // 2 for batch in range(n_batches))
    for batch in range(n_batches):
        avatarizer = avatarize_batch(Parameters.of(params), batches.rows(batch), batch, whole, batches.cache(batch),
                                     (first, total))
        first += len(avatarizer.avatars_)
        fitted.append(avatarizer)
    return fitted, whole, batches


def hostile_table(n_rows, seed=0):
    """Missing values, a spike, an identifier, a column set aside, 150 modalities (reduced), dates."""
    rng = np.random.default_rng(seed)
    frame = mixed_table(n_rows, seed=seed, missing=0.1)
    frame.insert(0, "record", [f"R{i:06d}" for i in range(n_rows)])
    frame["earnings"] = np.where(rng.random(n_rows) < 0.2, 0.0, rng.gamma(3, 900, n_rows).round(2))
    frame["site"] = rng.choice([f"site_{i:03d}" for i in range(150)], n_rows)
    frame["note"] = rng.choice(["x", "y"], n_rows)
    return frame


@pytest.mark.parametrize("params", [
    {"k": 5, "seed": 11, "exclude_variable_names": ["note"]},
    {"k": 8, "seed": 2, "holdout": False, "imputation": "mean", "column_weights": {"age": 2.0}},
    {"fast_dp_epsilon": 1.0, "seed": 5},
    {"fast_dp_epsilon": 3.0, "mechanism": "gmm", "seed": 6, "exclude_variable_names": ["note"]},
    {"fast_dp_epsilon": 0.5, "mechanism": "histogram", "seed": 7, "use_categorical_reduction": False},
])
def test_one_batch_is_the_fit_in_memory_byte_for_byte(tmp_path, params):
    path = tmp_path / "t.csv"
    hostile_table(2_000).to_csv(path, index=False)
    (batch,), whole, _ = batch_run(path, tmp_path / "work", params, batch_rows=10_000)
    memory = Avatarizer(**params).fit(read_table(path))
    assert whole.layout.spikes and (whole.reduction is not None) == (params.get("use_categorical_reduction") is None)
    assert csv_bytes(batch.avatars_) == csv_bytes(memory.avatars_)
    assert batch.identifier_columns_ == memory.identifier_columns_ == ["record"]


def test_the_projection_of_summed_statistics_is_that_of_every_row(tmp_path):
    path = tmp_path / "t.csv"
    hostile_table(3_000, seed=4).to_csv(path, index=False)
    fitted, whole, batches = batch_run(path, tmp_path / "work", {"k": 5, "seed": 1}, batch_rows=700)
    assert len(fitted) == 5
    tables = [whole.model_table(batch.encoded_.complete) for batch in fitted]
    every_row = EncodedTable(
        numeric=np.vstack([table.numeric for table in tables]), codes=np.vstack([table.codes for table in tables]),
        numeric_names=tables[0].numeric_names, categorical_names=tables[0].categorical_names,
        categories=tables[0].categories)
    reference = Projection(model_weights(Parameters(k=5), whole.reduction, whole.typing.relations)).fit(every_row)
    summed = whole.projection
    assert every_row.n_rows == sum(len(batch.avatars_) for batch in fitted)
    np.testing.assert_allclose(summed.means_, reference.means_, rtol=1e-9, atol=1e-12)  # embedded columns: mean 0
    np.testing.assert_allclose(summed.stds_, reference.stds_, rtol=1e-9)
    np.testing.assert_allclose(summed.eigenvalues_, reference.eigenvalues_, rtol=1e-9, atol=1e-12)
    axes = reference.n_components_
    np.testing.assert_allclose(summed.components_[:axes], reference.components_[:axes], atol=1e-9)
    np.testing.assert_allclose(summed.transform(every_row, 5), reference.transform(every_row, 5), atol=1e-9)


@pytest.mark.parametrize("mechanism", ["gaussian", "histogram", "gmm"])
def test_fast_dp_samples_every_batch_from_one_model_of_every_row(tmp_path, monkeypatch, mechanism):
    monkeypatch.setattr(batched, "LATENT_SAMPLE_ROWS", 900)  # fewer than the rows avatarized: a sample, said
    path = tmp_path / "t.csv"
    hostile_table(4_000, seed=3).to_csv(path, index=False)
    params = {"fast_dp_epsilon": 2.0, "mechanism": mechanism, "seed": 4}
    fitted, whole, batches = batch_run(path, tmp_path / "work", params, batch_rows=1_000)
    assert len(fitted) == 4 and all(batch.synthesizer_ is whole.synthesizer for batch in fitted)
    assert whole.rows == 2_000 and whole.latent_sample_rows == pytest.approx(900, abs=4)
    coordinates = np.vstack([batch.coordinates_ for batch in fitted])
    clipped = np.clip(coordinates, whole.synthesizer.lower_, whole.synthesizer.upper_)
    if mechanism == "gaussian":  # the statistics of every row, summed over the batches
        np.testing.assert_allclose(whole.synthesizer.exact_["mean"], clipped.mean(axis=0), atol=1e-12)
        np.testing.assert_allclose(whole.synthesizer.exact_["covariance"], np.cov(clipped.T, bias=True), atol=1e-12)
    if mechanism == "histogram":
        assert whole.synthesizer.exact_["counts"].sum(axis=1).tolist() == [2_000.0] * whole.ncp
    np.testing.assert_allclose(whole.synthesizer.lower_, np.percentile(coordinates, 5, axis=0),
                               atol=0.1 * coordinates.std(axis=0).max())  # the sample's percentiles, near
