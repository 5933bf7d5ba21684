"""The dashboard's router: one entry per page in ``pages/``."""

import streamlit as st

st.set_page_config(page_title="Avatar workbench", page_icon=":material/shield_person:", layout="wide")

navigation = st.navigation([
    st.Page("pages/data.py", title="Data", icon=":material/table:", default=True),
])
navigation.run()
