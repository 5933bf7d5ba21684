"""Report: download the avatars, the metrics and a self-contained HTML report."""

import json

import streamlit as st

from core.io import csv_bytes
from core.report import build_html_report
from core.run import run_metrics
from dashboard import state

st.title("Report and downloads")
run = state.require_run()
st.write(run.summary())
stem = run.table_name.rsplit(".", 1)[0]

st.subheader("Share")
st.download_button(
    "Avatars (CSV, shuffled)", lambda: csv_bytes(run.avatars), file_name=f"{stem}_avatars.csv", mime="text/csv",
    icon=":material/download:", type="primary",
    help="The avatars in random order: no row is linked to a real person's row.",
)
st.download_button(
    "Metrics (JSON)", lambda: json.dumps(run_metrics(run), indent=2, allow_nan=False), file_name=f"{stem}_metrics.json",
    mime="application/json", icon=":material/data_object:",
)
st.download_button(
    "Report (HTML, opens offline)", lambda: build_html_report(run), file_name=f"{stem}_report.html", mime="text/html",
    icon=":material/description:", help="Parameters, metrics with their meaning, and the figures, in one file.",
)

if run.avatarizer.paired_avatars_ is not None:
    st.subheader("Sensitive")
    with st.expander("Paired avatars (do not share)", icon=":material/warning:"):
        st.warning(
            "In this file avatar number i was made from real row number i of the data avatarized. The pairing is "
            "what the privacy metrics measure, and exactly what an attacker would want: keep it for checks only."
        )
        understood = st.checkbox("I understand: this file must stay private.")
        st.download_button(
            "Paired avatars (CSV)", lambda: csv_bytes(run.avatarizer.paired_avatars_), file_name=f"{stem}_PAIRED_private.csv",
            mime="text/csv", disabled=not understood, icon=":material/lock:",
        )
