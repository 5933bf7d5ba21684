"""Report: download the avatars to share (one table's as a CSV, linked tables' in one zip), the metrics and the
report (an A4 PDF to file, a self-contained HTML page); of the assessed avatars, and of every row's when made. The
release the report documents (its purpose, controller, data subjects, the controller's decision) is filled in
here."""

import streamlit as st

from core.i18n import N_, _, current_language, number
from core.i18n import language as language_of
from core.presentation.format import formula_warning
from core.errors import InputError
from core.presentation.run_files import metrics_text, report_bytes, shared_file
from core.workflows.run import GenerationRun
from core.workflows.runs import Run
from dashboard import jobs, language, state
from dashboard.text import plain
from dashboard.widgets import paired_avatars_section, release_form, verdict_box

ZIP_HELP = N_("One CSV per table (shuffled, new keys, the links written from the linkage), metrics.json, "
              "report.pdf and report.html.")
CSV_HELP = N_("The avatars in random order: no row is linked to a real person's row.")

language.use_session_language()  # first: this run's messages in the session's language
jobs.apply_ended()  # a job ended since the last run: its result first
st.title(_("Report and downloads"))
run = state.require_run()
release = state.release_run()
one_table = isinstance(run, GenerationRun)
stem = run.table_name.rsplit(".", 1)[0] + "_" if one_table else ""


def files_of(made: Run, every_row: bool = False) -> dict:
    """``made``'s files, built once (per language) for the session: of the avatars of every row, only those the
    page offers (the avatars and their metrics). The PDF is drawn when its button is pressed."""
    builders = {"avatars": lambda: shared_file(made), "metrics": lambda: metrics_text(made)}
    if not every_row:
        builders |= {"report": lambda: report_bytes(made, ".html"),
                     "formula_note": lambda: (  # once per run: it reads every text value
                         formula_warning(made.avatars) or "" if isinstance(made, GenerationRun) else "")}
    with st.spinner(_("Preparing the files…")):
        return state.run_files(made, builders)


def label(made: Run, every_row: bool) -> str:
    """The avatars' download: how many, in what file."""
    if not isinstance(made, GenerationRun):
        return (_("Every table's avatars of every row, the metrics and the report (ZIP)") if every_row else
                _("Every table's avatars, the metrics and the report (ZIP)"))
    rows = number(len(made.avatars), ",")
    return (_("Avatars of all {rows} rows (CSV, shuffled)") if every_row else
            _("Avatars (CSV, shuffled, {rows} rows)")).format(rows=rows)


def contents(made: Run) -> str | None:
    """What the zip holds (nothing to say of a CSV)."""
    if isinstance(made, GenerationRun):
        return None
    tables = ", ".join(_("{table} ({rows} rows)").format(table=plain(name), rows=number(len(avatars), ","))
                       for name, avatars in made.fitted.avatars_.items())
    return _("In the zip: {tables}, metrics.json, report.pdf and report.html.").format(tables=tables)


def download_avatars(made: Run, every_row: bool, *, primary: bool, allowed: bool) -> None:
    shared = files_of(made, every_row)["avatars"]
    name = f"{stem}avatars{'_all_rows' if every_row else ''}{shared.suffix}"
    st.download_button(label(made, every_row), shared.data, file_name=name, mime=shared.mime,
                       icon=":material/download:", type="primary" if primary else "secondary", on_click="ignore",
                       key="download_release_avatars" if every_row else "download_avatars",
                       help=_(CSV_HELP if one_table else ZIP_HELP), disabled=not allowed)
    if said := contents(made):
        st.caption(said)


st.subheader(_("Share"))
shared_run = release or run
st.write(plain(shared_run.summary()))  # what the verdict below is about (a helper's pass: it was the other run's)
verdict_box(shared_run)
if jobs.fix_search_of(run) is not None:  # the files say the verdict: offered with its fix
    st.caption(_("The avatars, the metrics and the report are offered when the fix search ends: they say the fix."))
    st.stop()
confirmed = shared_run.ready or st.checkbox(
    _("I have read the verdict: these avatars are not ready to share, and I take them anyway."), key="not_ready_ok")
if release is not None:
    st.write(_("**Avatars of all {rows} rows**, made with the same settings; their privacy is measured on all rows "
               "(the verdict above).").format(rows=number(len(release.avatars), ",")) if one_table else _(
        "**Avatars of every row**, made with the same settings; their privacy is measured on every person (the "
        "verdict above)."))
    download_avatars(release, True, primary=True, allowed=confirmed)
    st.download_button(_("Their metrics (JSON)"), files_of(release, True)["metrics"],
                       file_name=f"{stem}metrics_all_rows.json", mime="application/json",
                       icon=":material/data_object:", on_click="ignore", key="download_release_metrics")
    st.write(_("**The assessed avatars** ({rows} rows, made from half of the rows and measured against the other "
               "half):").format(rows=number(len(run.avatars), ",")) if one_table else _(
        "**The assessed avatars** (made from half of the people and measured against the other half):"))
    if not run.ready:
        st.caption(_("The assessed avatars are not ready to share either (see the Privacy page)."))
elif run.held_out:
    st.caption(_("These avatars were made from half of the rows. To share avatars of every row, make them on the "
                 "Generate page (one click, same settings).") if one_table else _(
        "These avatars were made from half of the people. To share avatars of every row, make them on the Generate "
        "page (one click, same settings)."))
files = files_of(run)
download_avatars(run, False, primary=release is None, allowed=confirmed or run.ready)
if files["formula_note"]:
    st.caption(plain(files["formula_note"]))
st.download_button(_("Metrics (JSON)"), files["metrics"], file_name=f"{stem}metrics.json", mime="application/json",
                   icon=":material/data_object:", on_click="ignore", key="download_metrics")
spoken = current_language()  # the PDF is drawn on the click, outside this script: in the page's language


def pdf() -> bytes:
    with language_of(spoken):
        return report_bytes(run, ".pdf")


st.download_button(_("Report (PDF, A4)"), pdf, file_name=f"{stem}report.pdf", mime="application/pdf",
                   icon=":material/picture_as_pdf:", on_click="ignore", key="download_pdf",
                   help=_("The report to file: the release, the data, the attacker, the method, the three criteria, "
                          "the verdict and the controller's decision, with the figures."))
st.download_button(_("Report (HTML, opens offline)"), files["report"], file_name=f"{stem}report.html",
                   mime="text/html", icon=":material/description:", on_click="ignore", key="download_report",
                   help=_("The same report as one web page, its figures interactive."))
if one_table and run.avatarizer.method_.paired:  # paired with the originals (without building the paired frame)
    paired_avatars_section(run, stem)

st.subheader(_("For the data-protection officer"))
st.write(_("What the report says of the release. The recipient is chosen on the Privacy page, where it sets what the "
           "attacker is assumed to know."))
try:
    filled = release_form(run.release)
except InputError as error:
    filled = None
    st.error(plain(error))
if filled is not None:
    state.set_release_context(filled)
    st.rerun()
