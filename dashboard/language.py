"""The session's language and the project's assets folder: all the router needs before it draws the navigation,
so that it imports nothing heavy first (Streamlit lists the files of ``pages/`` until the navigation is drawn)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from core.i18n import language_of_locale, set_language

ASSETS = Path(__file__).resolve().parents[1] / "assets"


def use_session_language() -> str:
    """The session's language (SPEC section 11), set for this run's messages: the browser's on the first run, then
    the sidebar switch's. The router calls it first, and each page too, so that a page run on its own speaks it."""
    language = st.session_state.setdefault("language", language_of_locale(st.context.locale))
    set_language(language)
    return language


def switch_language() -> None:
    """The sidebar switch's choice becomes the session's language (a key of its own: it stays when a run shows no
    switch, and the table, the run and every setting stay with it)."""
    st.session_state["language"] = st.session_state["language_switch"]
