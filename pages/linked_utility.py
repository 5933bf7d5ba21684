"""Utility, for linked tables: the relations between the tables (each link), each time series, then each table's
signal."""

import streamlit as st

from core.i18n import _
from core.presentation.format import holdout_sentence
from dashboard import language
from dashboard.linked import (
    measures_over_time,
    relations_between_tables,
    require_linked_run,
    table_choice,
    table_signal,
)
from dashboard.text import plain

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Utility"))
run = require_linked_run()
relations_between_tables(run)
measures_over_time(run)
st.header(_("Each table"))
name = table_choice(list(run.evaluation.tables), _("Table"), "utility_table")
evaluation = run.evaluation.tables[name]
st.write(plain(holdout_sentence(evaluation)))
table_signal(evaluation, key=f"utility_{name}")
