"""Generate: a method and its settings (each table's, for linked tables), one run on submit, measured and judged;
then, if wanted, the avatars of every row."""

import streamlit as st

from core.dataset.keys import check_keys
from core.errors import InputError
from core.i18n import _
from dashboard import jobs, language, state
from dashboard.generation import at_a_glance, dataset_form, table_form
from dashboard.text import plain
from dashboard.widgets import avatars_of_every_row, verdict_box

language.use_session_language()  # first: this run's messages in the session's language
jobs.apply_ended()  # a job ended since the last run: its result first
st.title(_("Generate avatars"))
current, version, running = state.run(), state.run_version(), jobs.current()
linked = state.dataset()
busy = running is not None and running.kind != jobs.FIX_SEARCH  # a new run may replace a fix search
if linked is None:
    asked = table_form(state.require_table(), current, version, busy)
else:
    problem = next(iter(state.plan_problems().values()), None)
    try:
        dataset = None if problem else state.described_dataset()
        if dataset is not None:
            check_keys(dataset, linked.frames)  # the rules on the data too, before the form
    except InputError as error:  # the keys or links as described break a rule: the Data page says which
        problem = str(error)
    if problem:
        st.error(plain(problem))
        st.page_link("pages/data.py", label=_("Go to Data"), icon=":material/table:")
        st.stop()
    asked = dataset_form(linked, dataset, current, version, busy)

jobs.show_error()
state.show_what_was_said()
if busy:  # started here or elsewhere, and still going: this page waits on it too
    st.info(_("Working on: {job}. It goes on whatever page you open; its progress is in the sidebar.").format(
        job=running.label), icon=":material/hourglass_top:")
    jobs.wait(running)
elif asked is not None:
    label, make = asked
    jobs.wait(jobs.start("run", label, make))

if current is not None:
    st.success(plain(current.summary()), icon=":material/check_circle:")
    verdict_box(current)
    at_a_glance(current)
    columns = st.columns(3)
    columns[0].page_link("pages/utility.py", label=_("See the utility"), icon=":material/insights:")
    columns[1].page_link("pages/privacy.py", label=_("See the privacy"), icon=":material/shield:")
    columns[2].page_link("pages/report.py", label=_("Download"), icon=":material/download:")
    if current.held_out:
        avatars_of_every_row(current)
