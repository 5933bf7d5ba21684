"""Data: choose a table (bundled demo or upload) and see how each column will be treated."""

import io
from pathlib import Path

import streamlit as st

from core.errors import InputError
from core.io import read_table
from core.schema import apply_kinds, profile_columns, profiles_table, resolve_kinds

DEMO_TABLES = {"Hospital stays (demo, 2 000 patients)": Path(__file__).resolve().parents[1] / "assets" / "demo_clinical.csv"}
UPLOAD = "Upload a file"


@st.cache_data(show_spinner="Reading the table…")
def load_bytes(data: bytes, file_name: str):
    return read_table(io.BytesIO(data), file_name=file_name)


@st.cache_data(show_spinner="Reading the table…")
def load_demo(path: str):
    return read_table(path)


@st.cache_data
def column_profiles(frame):
    kinds = resolve_kinds(frame)
    return profiles_table(profile_columns(apply_kinds(frame, kinds), kinds))


st.title("Data")
st.write("Choose the table to protect. Nothing leaves this computer: the file is read here and never sent anywhere.")
source = st.radio("Table", [*DEMO_TABLES, UPLOAD], horizontal=True)
frame, name = None, None
try:
    if source == UPLOAD:
        upload = st.file_uploader("CSV, Excel or Parquet file", type=["csv", "tsv", "txt", "xlsx", "parquet"])
        if upload is not None:
            frame, name = load_bytes(upload.getvalue(), upload.name), upload.name
    else:
        frame, name = load_demo(str(DEMO_TABLES[source])), DEMO_TABLES[source].name
except InputError as error:
    st.error(str(error))

if frame is None:
    st.info("Upload a table to begin, or pick the demo table.")
    st.stop()

st.session_state["table"], st.session_state["table_name"] = frame, name
st.subheader(f"{name}: {len(frame):,} rows, {frame.shape[1]} columns")
st.dataframe(frame.head(200), hide_index=True)
st.subheader("Columns")
st.caption(
    "How each column will be treated. Numeric columns are averaged between neighbours, categorical ones drawn "
    "among the neighbours' values, dates handled as numbers. Read the warnings: they say what to fix."
)
st.dataframe(column_profiles(frame), hide_index=True, width="stretch")
