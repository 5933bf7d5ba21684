"""Analysis: would my study give the same answer on the avatars? (SPEC section 9): each time series' trend for
linked tables, then the analyses of a table (a person table with everything about its people, or a table alone)."""

import streamlit as st

from core.i18n import _
from core.workflows.linked_run import LinkedRun
from dashboard import jobs, language, state
from dashboard.analysis import analysis_sections
from dashboard.linked import trend_section
from dashboard.widgets import scored_choice

language.use_session_language()  # first: this run's messages in the session's language
jobs.apply_ended()  # a job ended since the last run: its result first
st.title(_("Does my analysis still hold?"))
run = state.require_run()
if isinstance(run, LinkedRun):
    trend_section(run)
    if run.evaluation.series_views:
        st.header(_("Analyses of one table"))
analysis_sections(scored_choice(run, _("Rows analysed"), "analysis_table"))
