"""Linked tables in batches on a Dask LocalCluster of two worker processes, as ``avatarize --tables --batch-rows``
makes them: one batch is the run in memory, several keep every family whole."""

import shutil
from pathlib import Path

import pandas as pd
import pytest
from dask.distributed import LocalCluster

from core.dataset import Dataset
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.engine.io import read_table, write_table
from core.errors import InputError
from core.workflows.batch_run import BatchSettings, local_cluster_options
from core.engine.family_batches import DealtTable
from core.workflows.linked_batch_run import _crowded_batch, avatarize_linked_in_batches

ASSETS = Path(__file__).resolve().parents[2] / "assets"
PARAMS = {"k": 5, "seed": 4}


@pytest.fixture(scope="module")
def two_workers():
    with LocalCluster(**local_cluster_options(2)) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def hospital(tmp_path):
    """The clinical demo (patients -> stays -> prescriptions), copied where a test may change it."""
    shutil.copytree(ASSETS / "demo_hospital", tmp_path / "hospital")
    return tmp_path / "hospital"


def parts(folder: Path) -> pd.DataFrame:
    """A table's parts read back one after the other, each row with its batch."""
    return pd.concat([read_table(part).assign(batch=position) for position, part in enumerate(sorted(
        folder.iterdir()))], ignore_index=True)


@pytest.mark.parametrize("part_format", ["csv", "parquet"])
def test_one_batch_is_the_linked_run_in_memory_byte_for_byte(hospital, tmp_path, two_workers, part_format):
    dataset = Dataset.read(hospital / "schema.json")
    run = avatarize_linked_in_batches(dataset, tmp_path / "out", PARAMS, BatchSettings(
        batch_rows=100_000, scheduler=two_workers, part_format=part_format))
    memory = DatasetAvatarizer(dataset, **PARAMS).fit()
    assert run.n_batches == 1 and run.held_out == sum(len(frame) for frame in memory.holdout_data_.values())
    for name, avatars in memory.avatars_.items():
        write_table(avatars, tmp_path / f"memory.{part_format}")
        (part,) = (tmp_path / "out" / name).iterdir()
        assert part.name == f"part-00000.{part_format}"
        assert part.read_bytes() == (tmp_path / f"memory.{part_format}").read_bytes(), name
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["patients", "prescriptions", "stays"]


def test_several_batches_keep_every_family_whole_with_new_keys_one_batch_after_the_other(hospital, tmp_path,
                                                                                        two_workers):
    dataset = Dataset.read(hospital / "schema.json")
    run = avatarize_linked_in_batches(dataset, tmp_path / "out", {**PARAMS, "holdout": False}, BatchSettings(
        batch_rows=2_500, scheduler=two_workers, part_format="csv"))
    patients, stays, prescriptions = (parts(tmp_path / "out" / name) for name in ("patients", "stays", "prescriptions"))
    assert run.n_batches == 4 and run.avatars == run.rows == {"patients": 1_000, "stays": 1_994, "prescriptions": 6_817}
    assert patients.patient_id.is_unique and stays.stay_id.is_unique
    assert patients.patient_id.tolist() == [f"PAV{number:05d}" for number in range(1, 1_001)]  # the originals' form
    # each child's parent in its own batch's part: a family never split
    owner = stays.dropna(subset="patient_id").merge(patients[["patient_id", "batch"]], on="patient_id",
                                                    suffixes=("", "_parent"))
    assert len(owner) == stays.patient_id.notna().sum() and (owner.batch == owner.batch_parent).all()
    stay = prescriptions.merge(stays[["stay_id", "batch"]], on="stay_id", suffixes=("", "_parent"))
    assert len(stay) == len(prescriptions) and (stay.batch == stay.batch_parent).all()
    assert stays.patient_id.isna().sum() == 19  # the stays without a patient, kept as many
    originals = read_table(hospital / "patients.csv")
    assert not set(patients.patient_id) & set(originals.patient_id)


def test_the_avatars_do_not_depend_on_the_workers(hospital, tmp_path, two_workers):
    dataset = Dataset.read(hospital / "schema.json")
    settings = BatchSettings(batch_rows=3_000, scheduler=two_workers, part_format="csv")
    avatarize_linked_in_batches(dataset, tmp_path / "a", PARAMS, settings)
    with LocalCluster(**local_cluster_options(1, processes=False)) as one:
        avatarize_linked_in_batches(dataset, tmp_path / "b", PARAMS, BatchSettings(
            batch_rows=3_000, scheduler=one.scheduler_address, part_format="csv"))
    written = sorted(path.relative_to(tmp_path / "a") for path in (tmp_path / "a").rglob("*.csv"))
    assert len(written) == 12
    assert all((tmp_path / "a" / path).read_bytes() == (tmp_path / "b" / path).read_bytes() for path in written)


def test_a_time_series_in_batches_keeps_each_persons_measures_beside_it(tmp_path, two_workers):
    shutil.copytree(ASSETS / "demo_followup", tmp_path / "followup")
    dataset = Dataset.read(tmp_path / "followup" / "schema.json")
    run = avatarize_linked_in_batches(dataset, tmp_path / "out", PARAMS, BatchSettings(
        batch_rows=2_000, scheduler=two_workers, part_format="csv"))
    patients, labs = parts(tmp_path / "out" / "patients"), parts(tmp_path / "out" / "labs")
    assert run.n_batches == 3 and len(patients) == run.avatars["patients"] and len(labs) == run.avatars["labs"] > 0
    owner = labs.merge(patients[["patient_id", "batch"]], on="patient_id", suffixes=("", "_parent"))
    assert len(owner) == len(labs) and (owner.batch == owner.batch_parent).all()


def test_a_batch_too_small_or_refused_names_it_and_leaves_nothing(hospital, tmp_path, two_workers):
    dataset = Dataset.read(hospital / "schema.json")
    with pytest.raises(InputError, match=r"--batch-rows is too small: batch \d+ of 4906 holds"):
        avatarize_linked_in_batches(dataset, tmp_path / "small", PARAMS, BatchSettings(batch_rows=2, scheduler=two_workers))
    with pytest.raises(InputError, match=r"batch \d of 4: Table '\w+': k must be smaller"):
        avatarize_linked_in_batches(dataset, tmp_path / "large_k", {**PARAMS, "k": 400, "holdout": False},
                                    BatchSettings(batch_rows=2_500, scheduler=two_workers))
    assert not (tmp_path / "small").exists() and not (tmp_path / "large_k").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("kept")
    with pytest.raises(InputError, match="already holds files"):
        avatarize_linked_in_batches(dataset, tmp_path / "full", PARAMS, BatchSettings(batch_rows=2_500,
                                                                                     scheduler=two_workers))
    assert [path.name for path in (tmp_path / "full").iterdir()] == ["mine.txt"]


def test_a_full_disk_while_a_batch_writes_is_one_line_and_leaves_nothing(hospital, tmp_path, monkeypatch):
    from core.workflows import linked_batch_run

    def full(frame, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(linked_batch_run, "write_table", full)
    with LocalCluster(**local_cluster_options(1, processes=False)) as cluster:  # the failure reaches the worker
        with pytest.raises(InputError, match=r"--out .*out: cannot write .*part-00000.csv \(No space left on device\)"):
            avatarize_linked_in_batches(Dataset.read(hospital / "schema.json"), tmp_path / "out", PARAMS,
                                        BatchSettings(batch_rows=100_000, scheduler=cluster.scheduler_address,
                                                      part_format="csv"))
    assert not (tmp_path / "out").exists()


def test_a_batch_its_families_make_over_twice_the_rows_asked_is_said():
    # batches of 1 000 rows asked; batch 2 holds 700 patients' rows and 1 800 of their stays: 2 500, 2.5 times
    dealt = {"patients": DealtTable(counts=(300, 700, 300), unparented=None),
             "stays": DealtTable(counts=(400, 1_800, 500), unparented=None)}
    assert _crowded_batch(dealt, 1_000) == ("batch 2 of 3 holds 2,500 rows, 2.5 times --batch-rows: a family is never "
                                            "split, and some are large; the worker that avatarizes it holds that many "
                                            "rows.")
    assert _crowded_batch(dealt, 1_250) is None  # 2 500 is twice 1 250: not over
    assert _crowded_batch({"patients": DealtTable(counts=(9_000,), unparented=None)}, 1_000) is None  # one batch
