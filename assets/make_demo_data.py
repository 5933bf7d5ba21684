"""Write ``assets/demo_clinical.csv``: a synthetic hospital-stay table for demos and tests.

Invented from scratch (no real person behind any row) with the structure of real
clinical data: mixed kinds, an identifier, correlated measurements, a skewed length of
stay, dates, and values missing not at random (HbA1c is rarely measured for patients
without diabetes). Run ``make demo-data`` to write it again; the seed fixes every value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

N_PATIENTS = 2_000
SEED = 20_260_101
DESTINATION = Path(__file__).with_name("demo_clinical.csv")
DEPARTMENTS = ("cardiology", "endocrinology", "general medicine", "geriatrics", "nephrology", "oncology")


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


if __name__ == "__main__":
    make_demo_table().to_csv(DESTINATION, index=False)
    print(f"wrote {DESTINATION}")
