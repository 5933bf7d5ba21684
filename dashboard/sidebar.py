"""The sidebar's account of the session: the current table or linked tables, the current run, the work under way.

In a function, not in ``app.py``'s globals: Streamlit keeps the module of the last run of ``app.py`` as
``sys.modules["__main__"]``, whichever session ran it, so a table or a run named there outlived its session until
another session ran (issue 46: a 300 000-row table and its avatars held after their tab had closed)."""

import streamlit as st

from core.i18n import _, number
from dashboard import jobs, state
from dashboard.generation import sizes_caption as linked_sizes
from dashboard.text import plain


def show_current() -> None:
    """The table (or linked tables) and the run the pages show, then the progress of the work started."""
    loaded, run, release = state.table(), state.run(), state.release_run()  # a page that changes them reruns the app
    if state.dataset() is not None:
        st.sidebar.caption(_("Linked tables: {tables}").format(tables=linked_sizes()))
    else:
        st.sidebar.caption(_("Table: {name} ({rows} rows)").format(name=plain(loaded.name),
                                                                   rows=number(len(loaded.frame), ","))
                           if loaded else _("No table yet"))
    st.sidebar.caption(plain(run.short_summary()) if run else _("No avatars yet"))
    if release is not None:
        st.sidebar.caption(_("Avatars of every row made too") if state.dataset() is not None else _(
            "Avatars of all {rows} rows made too").format(rows=number(len(release.avatars), ",")))
    if jobs.current() is not None:  # work started on a page goes on whatever page is open
        with st.sidebar:
            jobs.sidebar_status()
