"""The clinical demo of linked tables (assets/demo_hospital): written by assets/make_demo_data.py, byte for byte,
every rule of its schema holding, and avatarized with every link kept."""

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
