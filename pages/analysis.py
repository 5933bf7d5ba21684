"""Analysis: would my study give the same answer on the avatars? (SPEC section 9)"""

import streamlit as st

from core.i18n import _
from dashboard import language, state
from dashboard.analysis import analysis_sections

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Does my analysis still hold?"))
analysis_sections(state.require_run())
