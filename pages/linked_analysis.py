"""Analysis, for linked tables: would my study give the same answer on the avatars of a table? (SPEC section 9)"""

import streamlit as st

from core.i18n import _
from dashboard import language
from dashboard.analysis import TableAnalysis, analysis_sections
from dashboard.linked import evaluation_choice, require_linked_run, trend_section

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Does my analysis still hold?"))
run = require_linked_run()
trend_section(run)
if run.evaluation.series_views:
    st.header(_("Analyses of one table"))
chosen, evaluation = evaluation_choice(run, _("Rows analysed"), "analysis_table")
analysis_sections(TableAnalysis(chosen, evaluation))
