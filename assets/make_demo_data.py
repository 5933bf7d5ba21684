"""Write ``assets/demo_clinical.csv``, a synthetic hospital-stay table, ``assets/demo_hospital/``, three linked
tables (patients -> stays -> prescriptions, with their ``schema.json``), and ``assets/demo_followup/``, patients and
their lab results over time (a time series, with its ``schema.json``), for demos and tests.

Invented from scratch (no real person behind any row) with the structure of real
clinical data: mixed kinds, an identifier, correlated measurements, a skewed length of
stay, dates, and values missing not at random (HbA1c is rarely measured for patients
without diabetes). Run ``make demo-data`` to write it again; the seed fixes every value.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

N_PATIENTS = 2_000
SEED = 20_260_101
DESTINATION = Path(__file__).with_name("demo_clinical.csv")
DEPARTMENTS = ("cardiology", "endocrinology", "general medicine", "geriatrics", "nephrology", "oncology")
DATASET_FOLDER = Path(__file__).with_name("demo_hospital")
N_DATASET_PATIENTS = 1_000
FOLLOWUP_FOLDER = Path(__file__).with_name("demo_followup")
N_FOLLOWUP_PATIENTS = 600
DRUGS = ("amoxicillin", "atorvastatin", "bisoprolol", "furosemide", "insulin", "metformin", "morphine", "paracetamol")


def make_demo_table(n_patients: int = N_PATIENTS, seed: int = SEED) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = np.clip(rng.normal(58, 16, n_patients), 18, 97).round().astype(int)
    sex = rng.choice(["F", "M"], n_patients, p=[0.52, 0.48])
    bmi = np.clip(rng.lognormal(np.log(26.5), 0.17, n_patients) + 0.04 * (age - 58), 15, 55)
    smoker = rng.choice(["never", "former", "current"], n_patients, p=[0.5, 0.3, 0.2])
    diabetes_risk = -4.2 + 0.035 * age + 0.09 * (bmi - 25)
    diabetes = rng.random(n_patients) < 1 / (1 + np.exp(-diabetes_risk))
    hba1c = np.where(diabetes, rng.normal(7.6, 1.2, n_patients), rng.normal(5.4, 0.4, n_patients))
    hba1c_measured = rng.random(n_patients) < np.where(diabetes, 0.95, 0.35)
    systolic = 96 + 0.45 * age + 0.8 * (bmi - 25) + 6 * (smoker == "current") + rng.normal(0, 12, n_patients)
    cholesterol = 4.1 + 0.012 * age + 0.05 * (bmi - 25) + rng.normal(0, 0.8, n_patients)
    cholesterol_measured = rng.random(n_patients) > 0.08

    department_weights = np.column_stack([
        0.15 + 0.004 * age + 0.1 * (smoker == "current"),
        0.05 + 0.35 * diabetes,
        np.full(n_patients, 0.35),
        np.where(age >= 75, 0.5, 0.02),
        0.05 + 0.1 * diabetes,
        0.1 + 0.002 * age,
    ])
    department_weights /= department_weights.sum(axis=1, keepdims=True)
    cumulative = department_weights.cumsum(axis=1)
    department = np.array(DEPARTMENTS)[(cumulative < rng.random(n_patients)[:, None]).sum(axis=1)]

    stay_scale = 2.5 + 0.05 * (age - 18) + 2.0 * (department == "oncology")
    length_of_stay = np.maximum(1, rng.gamma(1.3, stay_scale)).round().astype(int)
    readmission_risk = -3.0 + 0.08 * length_of_stay + 0.02 * (age - 58) + 0.6 * diabetes
    readmitted = rng.random(n_patients) < 1 / (1 + np.exp(-readmission_risk))
    admission = pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 730, n_patients), unit="D")

    return pd.DataFrame({
        "patient_id": [f"P{number:05d}" for number in rng.permutation(n_patients) + 1],
        "age": age,
        "sex": sex,
        "bmi": bmi.round(1),
        "systolic_bp": systolic.round().astype(int),
        "cholesterol_mmol_l": pd.Series(cholesterol.round(2)).where(cholesterol_measured),
        "smoker": smoker,
        "diabetes": np.where(diabetes, "yes", "no"),
        "hba1c_percent": pd.Series(hba1c.round(1)).where(hba1c_measured),
        "department": department,
        "admission_date": admission.strftime("%Y-%m-%d"),
        "length_of_stay_days": length_of_stay,
        "readmitted_30d": readmitted,
    })


def make_demo_dataset(n_patients: int = N_DATASET_PATIENTS, seed: int = SEED) -> dict[str, pd.DataFrame]:
    """Patients, their stays and each stay's prescriptions, invented: older and diabetic patients stay more often
    and longer, a stay's drugs follow its department and its patient (insulin for a diabetic), a longer stay gets
    more prescriptions; 1 % of the stays name no registered patient (transfers: missing keys)."""
    rng = np.random.default_rng(seed + 1)
    age = np.clip(rng.normal(62, 15, n_patients), 18, 97).round().astype(int)
    diabetes = rng.random(n_patients) < 1 / (1 + np.exp(-(-3.6 + 0.035 * age)))
    patients = pd.DataFrame({
        "patient_id": [f"P{number:05d}" for number in rng.permutation(n_patients) + 1],
        "age": age,
        "sex": rng.choice(["F", "M"], n_patients, p=[0.52, 0.48]),
        "bmi": np.clip(rng.lognormal(np.log(26.5), 0.17, n_patients) + 2.5 * diabetes, 15, 55).round(1),
        "smoker": rng.choice(["never", "former", "current"], n_patients, p=[0.5, 0.3, 0.2]),
        "diabetes": np.where(diabetes, "yes", "no"),
    })
    per_patient = rng.poisson(0.6 + 0.025 * (age - 18) + 0.8 * diabetes)
    owner = np.repeat(np.arange(n_patients), per_patient)
    n_stays = len(owner)
    weights = np.column_stack([0.2 + 0.004 * age[owner], 0.05 + 0.4 * diabetes[owner], np.full(n_stays, 0.3),
                               np.where(age[owner] >= 75, 0.4, 0.02), 0.05 + 0.15 * diabetes[owner],
                               0.08 + 0.002 * age[owner]])
    department = np.array(DEPARTMENTS)[(np.cumsum(weights / weights.sum(axis=1, keepdims=True), axis=1)
                                        < rng.random(n_stays)[:, None]).sum(axis=1)]
    days = np.maximum(1, rng.gamma(1.4, 2.0 + 0.06 * (age[owner] - 18) + 2.5 * (department == "oncology")))
    patient_of_stay = patients["patient_id"].to_numpy()[owner].astype(object)
    patient_of_stay[rng.random(n_stays) < 0.01] = None
    admission = pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 730, n_stays), unit="D")
    stays = pd.DataFrame({
        "stay_id": [f"S{number:06d}" for number in rng.permutation(n_stays) + 1],
        "patient_id": patient_of_stay,
        "department": department,
        "admission_date": admission.strftime("%Y-%m-%d"),
        "length_of_stay_days": days.round().astype(int),
        "intensive_care": np.where(rng.random(n_stays) < 0.04 + 0.012 * days, "yes", "no"),
    })
    per_stay = 1 + rng.poisson(0.6 + 0.25 * days)
    stay = np.repeat(np.arange(n_stays), per_stay)
    n_prescriptions = len(stay)
    drug_weights = np.column_stack([
        np.full(n_prescriptions, 1.0),  # amoxicillin
        1.0 + 2.0 * (department[stay] == "cardiology"),  # atorvastatin
        0.5 + 2.5 * (department[stay] == "cardiology"),  # bisoprolol
        0.3 + 2.0 * np.isin(department[stay], ["nephrology", "geriatrics"]),  # furosemide
        0.05 + 3.0 * diabetes[owner][stay],  # insulin
        0.1 + 2.0 * diabetes[owner][stay],  # metformin
        0.2 + 3.0 * (department[stay] == "oncology"),  # morphine
        np.full(n_prescriptions, 2.0),  # paracetamol
    ])
    drug = np.array(DRUGS)[(np.cumsum(drug_weights / drug_weights.sum(axis=1, keepdims=True), axis=1)
                            < rng.random(n_prescriptions)[:, None]).sum(axis=1)]
    usual_dose = dict(zip(DRUGS, (3000, 20, 5, 40, 30, 1500, 30, 3000), strict=True))
    dose = np.array([usual_dose[name] for name in drug]) * rng.lognormal(0, 0.25, n_prescriptions)
    prescriptions = pd.DataFrame({
        "stay_id": stays["stay_id"].to_numpy()[stay],
        "drug": drug,
        "daily_dose_mg": dose.round(1),
        "days": np.minimum(days[stay].round().astype(int), 1 + rng.poisson(3, n_prescriptions)),
    })
    return {"patients": patients, "stays": stays, "prescriptions": prescriptions}


DATASET_SCHEMA = {
    "tables": {"patients": {"path": "patients.csv", "primary_key": "patient_id"},
               "stays": {"path": "stays.csv", "primary_key": "stay_id"},
               "prescriptions": {"path": "prescriptions.csv"}},
    "links": [{"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id"},
              {"parent": "stays", "key": "stay_id", "child": "prescriptions", "foreign_key": "stay_id"}],
}


def make_demo_followup(n_patients: int = N_FOLLOWUP_PATIENTS, seed: int = SEED) -> dict[str, pd.DataFrame]:
    """Patients followed after starting a treatment, and their lab results at each visit, invented: 1 to 15 visits
    at irregular days (every 2 to 16 weeks), LDL cholesterol falling on the statin and flat on the diet, higher with
    age, with noise; fatigue more frequent early and on the statin's first weeks; 2 % of the lab values missing."""
    rng = np.random.default_rng(seed + 2)
    age = np.clip(rng.normal(60, 12, n_patients), 30, 90).round().astype(int)
    treatment = rng.choice(["statin", "diet"], n_patients, p=[0.55, 0.45])
    patients = pd.DataFrame({
        "patient_id": [f"F{number:04d}" for number in rng.permutation(n_patients) + 1],
        "age": age,
        "sex": rng.choice(["F", "M"], n_patients, p=[0.5, 0.5]),
        "treatment": treatment,
    })
    visits = rng.integers(1, 16, n_patients)
    owner = np.repeat(np.arange(n_patients), visits)
    first = np.r_[0, np.cumsum(visits)[:-1]]
    gaps = rng.integers(14, 113, len(owner))
    gaps[first] = 0
    within = np.arange(len(owner)) - np.repeat(first, visits)
    day = np.cumsum(gaps) - np.repeat(np.cumsum(gaps)[first], visits)  # days since the first visit
    start = pd.Timestamp("2023-01-02") + pd.to_timedelta(rng.integers(0, 365, n_patients), unit="D")
    statin = treatment[owner] == "statin"
    baseline = 3.2 + 0.015 * (age[owner] - 60) + np.repeat(rng.normal(0, 0.45, n_patients), visits)
    ldl = baseline - np.where(statin, 1.1 * (1 - np.exp(-day / 90)), 0.0003 * day) + rng.normal(0, 0.18, len(owner))
    fatigue = rng.random(len(owner)) < 0.12 + 0.18 * statin * np.exp(-day / 60) + 0.1 * (within == 0)
    labs = pd.DataFrame({
        "patient_id": patients["patient_id"].to_numpy()[owner],
        "visit_date": (start[owner] + pd.to_timedelta(day, unit="D")).strftime("%Y-%m-%d"),
        "ldl_mmol_l": pd.Series(np.clip(ldl, 0.8, None).round(2)).where(rng.random(len(owner)) >= 0.02),
        "fatigue": np.where(fatigue, "yes", "no"),
    })
    return {"patients": patients, "labs": labs}


FOLLOWUP_SCHEMA = {
    "tables": {"patients": {"path": "patients.csv", "primary_key": "patient_id"},
               "labs": {"path": "labs.csv", "time": "visit_date"}},
    "links": [{"parent": "patients", "key": "patient_id", "child": "labs", "foreign_key": "patient_id",
               "method": "time_series"}],
}


if __name__ == "__main__":
    make_demo_table().to_csv(DESTINATION, index=False)
    print(f"wrote {DESTINATION}")
    DATASET_FOLDER.mkdir(exist_ok=True)
    for name, frame in make_demo_dataset().items():
        frame.to_csv(DATASET_FOLDER / f"{name}.csv", index=False)
    (DATASET_FOLDER / "schema.json").write_text(json.dumps(DATASET_SCHEMA, indent=2) + "\n")
    print(f"wrote {DATASET_FOLDER}")
    FOLLOWUP_FOLDER.mkdir(exist_ok=True)
    for name, frame in make_demo_followup().items():
        frame.to_csv(FOLLOWUP_FOLDER / f"{name}.csv", index=False)
    (FOLLOWUP_FOLDER / "schema.json").write_text(json.dumps(FOLLOWUP_SCHEMA, indent=2) + "\n")
    print(f"wrote {FOLLOWUP_FOLDER}")
