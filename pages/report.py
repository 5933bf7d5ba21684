"""Report: download the avatars, the metrics and a self-contained HTML report."""

import json

import streamlit as st

from core.engine.io import csv_bytes
from core.presentation.report import build_html_report
from core.presentation.verdict_text import metrics_with_verdict
from core.workflows.verdict import verdict_of_run
from dashboard import state
from dashboard.widgets import verdict_box

st.title("Report and downloads")
run = state.require_run()
release = state.release_run()
st.write(run.summary())
stem = run.table_name.rsplit(".", 1)[0]
with st.spinner("Preparing the files…"):
    files = state.run_files(run, {
        "avatars": lambda: csv_bytes(run.avatars),
        "metrics": lambda: json.dumps(metrics_with_verdict(run), indent=2, allow_nan=False),
        "report": lambda: build_html_report(run),
    })

st.subheader("Share")
shared = release or run
verdict_box(shared)
confirmed = verdict_of_run(shared).ready or st.checkbox(
    "I have read the verdict: these avatars are not ready to share, and I take them anyway.", key="not_ready_ok")
if release is not None:
    release_files = state.run_files(release, {
        "avatars": lambda: csv_bytes(release.avatars),
        "metrics": lambda: json.dumps(metrics_with_verdict(release), indent=2, allow_nan=False),
    })
    st.write(f"**Avatars of all {len(release.avatars):,} rows**, made with the same settings; their privacy is "
             "measured on all rows (the verdict above).")
    st.download_button(
        f"Avatars of all {len(release.avatars):,} rows (CSV, shuffled)", release_files["avatars"],
        file_name=f"{stem}_avatars_all_rows.csv", mime="text/csv", icon=":material/download:", type="primary",
        on_click="ignore", help="The avatars in random order: no row is linked to a real person's row.",
        disabled=not confirmed,
    )
    st.download_button(
        "Their metrics (JSON)", release_files["metrics"],
        file_name=f"{stem}_metrics_all_rows.json", mime="application/json", icon=":material/data_object:",
        on_click="ignore",
    )
    st.write(f"**The assessed avatars** ({len(run.avatars):,} rows, made from half of the rows and measured "
             "against the other half):")
elif run.evaluation.holdout == "real":
    st.caption("These avatars were made from half of the rows. To share avatars of every row, make them on the "
               "Generate page (one click, same settings).")
if release is not None and not verdict_of_run(run).ready:
    st.caption("The assessed avatars are not ready to share either (see the Privacy page).")
st.download_button(
    f"Avatars (CSV, shuffled, {len(run.avatars):,} rows)", files["avatars"], file_name=f"{stem}_avatars.csv",
    mime="text/csv", icon=":material/download:", type="secondary" if release is not None else "primary",
    on_click="ignore", help="The avatars in random order: no row is linked to a real person's row.",
    disabled=not (confirmed or verdict_of_run(run).ready),
)
st.download_button(
    "Metrics (JSON)", files["metrics"], file_name=f"{stem}_metrics.json", mime="application/json",
    icon=":material/data_object:", on_click="ignore",
)
st.download_button(
    "Report (HTML, opens offline)", files["report"], file_name=f"{stem}_report.html", mime="text/html",
    icon=":material/description:", on_click="ignore",
    help="Parameters, metrics with their meaning, and the figures, in one file.",
)

if run.avatarizer.method_ == "avatar":  # paired with the originals (without building the paired frame)
    st.subheader("Sensitive")
    with st.expander("Paired avatars (do not share)", icon=":material/warning:"):
        st.warning(
            "In this file avatar number i was made from real row number i of the data avatarized. The pairing is "
            "what the privacy metrics measure, and exactly what an attacker would want: keep it for checks only."
        )
        understood = st.checkbox("I understand: this file must stay private.")
        st.download_button(
            "Paired avatars (CSV)", csv_bytes(run.avatarizer.paired_avatars_) if understood else b"",
            file_name=f"{stem}_PAIRED_private.csv", mime="text/csv", disabled=not understood, icon=":material/lock:",
            on_click="ignore",
        )
