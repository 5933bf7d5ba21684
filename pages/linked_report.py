"""Report, for linked tables: one zip of every table's avatars, the metrics and the report; each also alone."""

import streamlit as st

from core.i18n import N_, _, number
from core.presentation.linked_archive import linked_archive, linked_metrics_text
from core.presentation.report import build_linked_report
from core.workflows.linked_run import LinkedRun
from dashboard import language, state
from dashboard.linked import linked_verdict_box, require_linked_run
from dashboard.text import plain

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Report and downloads"))
run = require_linked_run()
st.write(plain(run.summary()))
release = state.linked_release()


def files_of(made: LinkedRun) -> dict[str, str | bytes]:
    with st.spinner(_("Preparing the files…")):
        return state.run_files(made, {
            "archive": lambda: linked_archive(made),
            "metrics": lambda: linked_metrics_text(made),
            "report": lambda: build_linked_report(made),
        })


def contents(made: LinkedRun) -> str:
    tables = ", ".join(_("{table} ({rows} rows)").format(table=plain(name), rows=number(len(avatars), ","))
                       for name, avatars in made.fitted.avatars_.items())
    return _("In the zip: {tables}, metrics.json and report.html.").format(tables=tables)


st.subheader(_("Share"))
shared = release or run
linked_verdict_box(shared)
confirmed = shared.verdict.ready or st.checkbox(
    _("I have read the verdict: these avatars are not ready to share, and I take them anyway."), key="not_ready_ok")
ZIP_HELP = N_("One CSV per table (shuffled, new keys, the links written from the linkage), metrics.json and "
              "report.html.")
if release is not None:
    st.write(_("**Avatars of every row**, made with the same settings; their privacy is measured on every person "
               "(the verdict above)."))
    st.download_button(_("Every table's avatars of every row, the metrics and the report (ZIP)"),
                       files_of(release)["archive"], file_name="avatars_all_rows.zip", mime="application/zip",
                       icon=":material/download:", type="primary", on_click="ignore", key="download_release_archive",
                       help=_(ZIP_HELP), disabled=not confirmed)
    st.caption(contents(release))
    st.write(_("**The assessed avatars** (made from half of the people and measured against the other half):"))
elif run.held_out:
    st.caption(_("These avatars were made from half of the people. To share avatars of every row, make them on the "
                 "Generate page (one click, same settings)."))
files = files_of(run)
st.download_button(
    _("Every table's avatars, the metrics and the report (ZIP)"), files["archive"], file_name="avatars.zip",
    mime="application/zip", icon=":material/download:", type="secondary" if release is not None else "primary",
    on_click="ignore", key="download_archive", help=_(ZIP_HELP), disabled=not (confirmed or run.verdict.ready))
st.caption(contents(run))
st.download_button(_("Metrics (JSON)"), files["metrics"], file_name="metrics.json", mime="application/json",
                   icon=":material/data_object:", on_click="ignore", key="download_metrics")
st.download_button(_("Report (HTML, opens offline)"), files["report"], file_name="report.html", mime="text/html",
                   icon=":material/description:", on_click="ignore", key="download_report",
                   help=_("The verdict, the relations between the tables, each person with everything about them, "
                          "then each table alone, in one file."))
