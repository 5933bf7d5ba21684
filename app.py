"""The dashboard's router: one entry per page in ``pages/``, and the current table and run in the sidebar."""

import streamlit as st

from core.engine.io import use_system_memory_pool
from dashboard import state

use_system_memory_pool()  # uploads read with the C allocator: what they free goes back to the system
st.set_page_config(page_title="Avatar workbench", page_icon=":material/shield_person:", layout="wide")

navigation = st.navigation([
    st.Page("pages/data.py", title="Data", icon=":material/table:", default=True),
    st.Page("pages/generate.py", title="Generate", icon=":material/auto_awesome:"),
    st.Page("pages/utility.py", title="Utility", icon=":material/insights:"),
    st.Page("pages/analysis.py", title="Analysis", icon=":material/query_stats:"),
    st.Page("pages/privacy.py", title="Privacy", icon=":material/shield:"),
    st.Page("pages/tradeoff.py", title="Trade-off", icon=":material/scatter_plot:"),
    st.Page("pages/report.py", title="Report", icon=":material/download:"),
])
loaded, run = state.table(), state.run()  # pages rerun the app when they load a table or make avatars
st.sidebar.caption(f"Table: {loaded.name} ({len(loaded.frame):,} rows)" if loaded else "No table yet")
st.sidebar.caption(f"Avatars: {run.settings.describe()}, seed {run.avatarizer.seed_}" if run else "No avatars yet")
if state.release_run() is not None:
    st.sidebar.caption(f"Avatars of all {len(state.release_run().avatars):,} rows made too")
navigation.run()
