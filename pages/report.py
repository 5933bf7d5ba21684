"""Report: download the avatars, the metrics and a self-contained HTML report."""

import json

import streamlit as st

from core.engine.io import csv_bytes
from core.engine.split import Holdout
from core.i18n import _, number
from core.presentation.format import formula_warning
from core.presentation.metrics_json import run_json
from core.presentation.report import build_html_report
from core.workflows.verdict import verdict_of_run
from dashboard import language, state
from dashboard.text import plain
from dashboard.widgets import verdict_box

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Report and downloads"))
run = state.require_run()
release = state.release_run()
st.write(plain(run.summary()))
stem = run.table_name.rsplit(".", 1)[0]
with st.spinner(_("Preparing the files…")):
    files = state.run_files(run, {
        "avatars": lambda: csv_bytes(run.avatars),
        "metrics": lambda: json.dumps(run_json(run), indent=2, allow_nan=False),
        "report": lambda: build_html_report(run),
        "formula_note": lambda: formula_warning(run.avatars) or "",  # once per run: it reads every text value
    })

st.subheader(_("Share"))
shared = release or run
verdict_box(shared)
confirmed = verdict_of_run(shared).ready or st.checkbox(
    _("I have read the verdict: these avatars are not ready to share, and I take them anyway."), key="not_ready_ok")
if release is not None:
    release_files = state.run_files(release, {
        "avatars": lambda: csv_bytes(release.avatars),
        "metrics": lambda: json.dumps(run_json(release), indent=2, allow_nan=False),
    })
    st.write(_("**Avatars of all {rows} rows**, made with the same settings; their privacy is measured on all rows "
               "(the verdict above).").format(rows=number(len(release.avatars), ",")))
    st.download_button(
        _("Avatars of all {rows} rows (CSV, shuffled)").format(rows=number(len(release.avatars), ",")),
        release_files["avatars"], file_name=f"{stem}_avatars_all_rows.csv", mime="text/csv",
        icon=":material/download:", type="primary", on_click="ignore", key="download_release_avatars",
        help=_("The avatars in random order: no row is linked to a real person's row."), disabled=not confirmed,
    )
    st.download_button(
        _("Their metrics (JSON)"), release_files["metrics"],
        file_name=f"{stem}_metrics_all_rows.json", mime="application/json", icon=":material/data_object:",
        on_click="ignore", key="download_release_metrics",
    )
    st.write(_("**The assessed avatars** ({rows} rows, made from half of the rows and measured against the other "
               "half):").format(rows=number(len(run.avatars), ",")))
elif run.evaluation.holdout is Holdout.REAL:
    st.caption(_("These avatars were made from half of the rows. To share avatars of every row, make them on the "
                 "Generate page (one click, same settings)."))
if release is not None and not verdict_of_run(run).ready:
    st.caption(_("The assessed avatars are not ready to share either (see the Privacy page)."))
st.download_button(
    _("Avatars (CSV, shuffled, {rows} rows)").format(rows=number(len(run.avatars), ",")), files["avatars"],
    file_name=f"{stem}_avatars.csv", mime="text/csv", icon=":material/download:",
    type="secondary" if release is not None else "primary", on_click="ignore", key="download_avatars",
    help=_("The avatars in random order: no row is linked to a real person's row."),
    disabled=not (confirmed or verdict_of_run(run).ready),
)
if files["formula_note"]:
    st.caption(plain(files["formula_note"]))
st.download_button(
    _("Metrics (JSON)"), files["metrics"], file_name=f"{stem}_metrics.json", mime="application/json",
    icon=":material/data_object:", on_click="ignore", key="download_metrics",
)
st.download_button(
    _("Report (HTML, opens offline)"), files["report"], file_name=f"{stem}_report.html", mime="text/html",
    icon=":material/description:", on_click="ignore", key="download_report",
    help=_("Parameters, metrics with their meaning, and the figures, in one file."),
)

if run.avatarizer.method_.paired:  # paired with the originals (without building the paired frame)
    st.subheader(_("Sensitive"))
    with st.expander(_("Paired avatars (do not share)"), icon=":material/warning:"):
        st.warning(_(
            "In this file avatar number i was made from real row number i of the data avatarized. The pairing is "
            "what the privacy metrics measure, and exactly what an attacker would want: keep it for checks only."
        ))
        understood = st.checkbox(_("I understand: this file must stay private."), key="paired_understood")
        st.download_button(
            _("Paired avatars (CSV)"), csv_bytes(run.avatarizer.paired_avatars_) if understood else b"",
            file_name=f"{stem}_PAIRED_private.csv", mime="text/csv", disabled=not understood, icon=":material/lock:",
            on_click="ignore", key="download_paired",
        )
