"""Data: choose the data (bundled demo or upload); for one table, see how each column will be treated, and decide
(linked tables: :mod:`dashboard.linked_data`)."""

from dataclasses import replace

import streamlit as st

from core.dataset import Role
from core.engine.schema import apply_kinds, column_warning_lines, resolve_kinds
from core.errors import InputError
from core.i18n import _, ngettext, number
from dashboard import jobs, language, state
from dashboard.linked_data import linked_data_page
from dashboard.plan import plan_from_table, plan_problem
from dashboard.sources import left_out_section, source_section
from dashboard.text import plain
from dashboard.widgets import (
    column_editor,
    preview_columns,
    relations_section,
    risk_profile_section,
    table,
    warnings_shown,
)

language.use_session_language()  # first: this run's messages in the session's language
jobs.apply_ended()  # a job ended since the last run: its result first
st.title(_("Data"))
jobs.show_error()  # a run that ended after other data were loaded here: said, set aside
source_section()
left_out_section()
if state.dataset() is not None:  # linked tables: the page of their keys and links (the router shows their pages)
    linked_data_page()
    st.stop()
loaded = state.table()

frame = loaded.frame
st.subheader(_("{name}: {rows} rows, {columns} columns").format(name=plain(loaded.name), rows=number(len(frame), ","),
                                                                 columns=number(frame.shape[1])), anchor=False)
warnings_shown(loaded.said)
with st.expander(_("Preview of the first rows"), expanded=False):
    table(frame.head(100), columns=preview_columns(frame))

st.subheader(_("Columns"))
edited = column_editor(st.session_state["plan_table"], loaded.profiles, key=f"plan_editor_{loaded.source_id}")
st.session_state["plan_table"] = edited
described = replace(plan_from_table(edited, loaded.profiles, loaded.name), relations=state.plan().table.relations)
warnings_shown(column_warning_lines(loaded.profiles, dict(zip(edited["column"], edited["kind"], strict=True)),
                                    dropped=described.with_role(Role.DROPPED),
                                    excluded=described.with_role(Role.SET_APART)))
try:
    if described.column_kinds:
        overridden = frame[list(described.column_kinds)]
        apply_kinds(overridden, resolve_kinds(overridden, described.column_kinds))
except InputError as error:
    st.error(plain(error))
    st.stop()
problem = plan_problem(edited, loaded.profiles)
if problem:
    st.error(plain(problem))
    st.stop()
if described != state.plan().table:
    state.set_plan(described)
    state.set_run(None)

plan = state.plan()
renewed = described.with_role(Role.IDENTIFIER)
kept = frame.shape[1] - len(plan.dropped) - len(plan.excluded) - len(renewed)
# One clause per fate of the columns, each whole in every language (French agrees each with its count).
clauses = [ngettext("{count} column will be synthesized", "{count} columns will be synthesized", kept)
           .format(count=number(kept))]
if renewed:
    clauses.append(ngettext("{count} given new identifiers ({names})", "{count} given new identifiers ({names})",
                            len(renewed)).format(count=number(len(renewed)), names=", ".join(renewed)))
if plan.excluded:
    clauses.append(ngettext("{count} set aside and re-attached", "{count} set aside and re-attached",
                            len(plan.excluded)).format(count=number(len(plan.excluded))))
if plan.dropped:
    clauses.append(ngettext("{count} dropped ({names})", "{count} dropped ({names})", len(plan.dropped))
                   .format(count=number(len(plan.dropped)), names=", ".join(plan.dropped)))
st.success(plain(", ".join(clauses) + "."))
relations_section(loaded, plan)
risk_profile_section(loaded, plan)
st.page_link("pages/generate.py", label=_("Next: generate avatars"), icon=":material/arrow_forward:")
