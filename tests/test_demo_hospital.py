"""The clinical demos of linked tables (assets/demo_hospital, and assets/demo_followup's time series): written by
assets/make_demo_data.py, byte for byte, every rule of their schemas holding, and avatarized with every link kept."""

import json
from pathlib import Path

import pandas as pd

from assets.make_demo_data import DATASET_FOLDER, DATASET_SCHEMA, make_demo_dataset
from core.dataset import Dataset
from core.dataset.keys import check_keys
from core.engine.dataset_avatarizer import DatasetAvatarizer, dataset_frames


def test_the_demo_files_are_what_the_script_writes(tmp_path):
    for name, frame in make_demo_dataset().items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        assert (tmp_path / f"{name}.csv").read_bytes() == (DATASET_FOLDER / f"{name}.csv").read_bytes(), name
    assert json.loads((DATASET_FOLDER / "schema.json").read_text()) == DATASET_SCHEMA


def test_the_demo_follows_its_schema_and_its_avatars_keep_every_link():
    dataset = Dataset.read(Path(DATASET_FOLDER / "schema.json"))
    frames = dataset_frames(dataset, {})
    unparented = check_keys(dataset, frames)
    assert [(item.link.child, item.missing, item.orphans) for item in unparented] == [("stays", 19, 0)]
    fitted = DatasetAvatarizer(dataset, k=10, seed=1).fit(frames)
    stays, patients = fitted.avatars_["stays"], fitted.avatars_["patients"]
    assert stays["patient_id"].dropna().isin(patients["patient_id"]).all()
    assert fitted.avatars_["prescriptions"]["stay_id"].isin(stays["stay_id"]).all()
    assert stays["patient_id"].isna().sum() == pd.isna(fitted.working_data_["stays"]["patient_id"]).sum()


def test_the_follow_up_demo_is_what_the_script_writes_and_its_series_is_rebuilt(tmp_path):
    from assets.make_demo_data import FOLLOWUP_FOLDER, FOLLOWUP_SCHEMA, make_demo_followup

    frames = make_demo_followup()
    for name, frame in frames.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        assert (tmp_path / f"{name}.csv").read_bytes() == (FOLLOWUP_FOLDER / f"{name}.csv").read_bytes(), name
    assert json.loads((FOLLOWUP_FOLDER / "schema.json").read_text()) == FOLLOWUP_SCHEMA
    visits = frames["labs"].groupby("patient_id").size()
    assert visits.min() == 1 and visits.max() == 15  # 1 to 15 visits at irregular days
    fitted = DatasetAvatarizer(Dataset.read(FOLLOWUP_FOLDER / "schema.json"), k=10, seed=1).fit()
    labs = fitted.avatars_["labs"]
    assert labs["patient_id"].isin(fitted.avatars_["patients"]["patient_id"]).all()
    assert labs.groupby("patient_id")["visit_date"].apply(lambda dates: dates.is_monotonic_increasing
                                                          and dates.is_unique).all()
