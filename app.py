"""The dashboard's router: the language first (SPEC section 11), one entry per page in ``pages/``, and the current
table and run in the sidebar."""

import streamlit as st

from core.i18n import LANGUAGES, _
from dashboard.language import ASSETS, switch_language, use_session_language

language = use_session_language()  # before any message
# The icon is the project's own file: a material icon as page icon makes the browser fetch it from fonts.gstatic.com.
st.set_page_config(page_title=_("Avatar workbench"), page_icon=str(ASSETS / "icon.png"), layout="wide")
st.sidebar.segmented_control(_("Language"), list(LANGUAGES), default=language, required=True,
                             format_func=LANGUAGES.__getitem__, key="language_switch", on_change=switch_language)
# The navigation comes before the engine's imports: until it is drawn, Streamlit lists the files of pages/ by their
# lowercase names (for about a second and a half at the first load, while the imports below ran first). One set of
# pages for one table or linked tables.
navigation = st.navigation([
    st.Page("pages/data.py", title=_("Data"), icon=":material/table:", default=True),
    st.Page("pages/generate.py", title=_("Generate"), icon=":material/auto_awesome:"),
    st.Page("pages/utility.py", title=_("Utility"), icon=":material/insights:"),
    st.Page("pages/analysis.py", title=_("Analysis"), icon=":material/query_stats:"),
    st.Page("pages/privacy.py", title=_("Privacy"), icon=":material/shield:"),
    st.Page("pages/tradeoff.py", title=_("Trade-off"), icon=":material/scatter_plot:"),
    st.Page("pages/report.py", title=_("Report"), icon=":material/download:"),
])

from core.engine.io import use_system_memory_pool  # noqa: E402  (after the navigation: see above)
from dashboard import sessions, sidebar  # noqa: E402

use_system_memory_pool()  # uploads read with the C allocator: what they free goes back to the system
sessions.register()  # its data end with its tab
sidebar.show_current()  # no data in this script's globals: Streamlit keeps them after the session (see there)
navigation.run()
