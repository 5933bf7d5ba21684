"""Data: choose a table (bundled demo or upload), see how each column will be treated, and decide."""

from dataclasses import replace

import streamlit as st

from core.dataset import Role
from core.engine.schema import apply_kinds, column_warning_lines, resolve_kinds
from core.errors import InputError
from core.i18n import N_, _, ngettext, number
from dashboard import language, state
from dashboard.text import plain
from dashboard.plan import KIND_LABELS, ROLE_LABELS, described_columns, plan_from_table, plan_problem, role_label
from dashboard.widgets import preview_columns, relations_section, risk_profile_section, table

UPLOAD = N_("Upload a file")  # an option value, as the tests and the session hold it; shown translated

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Data"))
st.write(_(
    "Choose the table to protect. It is read on this computer and never sent anywhere; it stays in memory for "
    "this browser session only."
))
current = state.table()
choices = [*state.DEMO_TABLES, UPLOAD]
# The choice follows the table held (the radio's own state is cleared when another page is shown): coming back
# never replaces the table; choosing another table or uploading a file does.
source = st.radio(_("Table"), choices, index=choices.index(state.demo_name(current) or UPLOAD) if current else 0,
                  horizontal=True, format_func=_, key="source")
try:
    if source == UPLOAD:
        upload = st.file_uploader(
            _("CSV, Excel (.xlsx) or Parquet file"), type=["csv", "tsv", "txt", "xlsx", "parquet"], key="upload"
        )
        if upload is not None and getattr(current, "source_id", None) != upload.file_id:
            state.set_table(state.load(upload.getvalue(), upload.name, upload.file_id))
            st.rerun()
        elif upload is None and state.demo_name(current) is not None:
            st.info(_("Upload a table to begin: CSV (any delimiter), Excel or Parquet. Until you do, "
                      "{name} and its avatars stay as they are.").format(name=current.name))
            st.stop()
        elif upload is None and current is None:
            st.info(_("Upload a table to begin: CSV (any delimiter), Excel or Parquet."))
            st.stop()
        elif upload is None:
            st.caption(_("Showing {name}, uploaded earlier in this session. Upload another file to replace "
                         "it (its avatars and sweep are then forgotten).").format(name=plain(current.name)))
    else:
        path = state.DEMO_TABLES[source]
        if getattr(current, "source_id", None) != str(path):
            state.set_table(state.load(state.demo_bytes(str(path)), path.name, str(path)))
            st.rerun()
except InputError as error:
    st.error(plain(error))
    st.stop()

loaded = state.table()

frame = loaded.frame
st.subheader(_("{name}: {rows} rows, {columns} columns").format(name=plain(loaded.name), rows=number(len(frame), ","),
                                                                 columns=number(frame.shape[1])), anchor=False)
with st.expander(_("Preview of the first rows"), expanded=False):
    table(frame.head(100), columns=preview_columns(frame))

st.subheader(_("Columns"))
st.write(_(
    "How each column will be treated. **Numeric** columns are averaged between similar people, **categorical** "
    "ones are drawn among their values (whole numbers with at most 10 values, such as scores or 0/1 flags, are "
    "codes: categorical), **dates** are handled as numbers. **Role**: *synthesize* it; give it *new "
    "identifiers* (the default for identifiers: the avatars get fresh ones of the same form, nothing of the "
    "real ones); *set it aside and re-attach* it afterwards (from the most similar real row); or *drop* it. "
    "**Weight** makes a column count more (above 1) or less (below 1) when people are compared."
))
edited = st.data_editor(
    st.session_state["plan_table"].assign(**described_columns(loaded.profiles)),
    key=f"plan_editor_{loaded.source_id}",
    hide_index=True,
    height=min(35 * (frame.shape[1] + 1) + 3, 800),
    disabled=["column", "missing (%)", "distinct values", "warnings"],
    column_config={
        # The labels and the kinds and roles shown are translated; the values the table holds are not.
        "column": st.column_config.TextColumn(_("column"), width="medium"),
        "kind": st.column_config.SelectboxColumn(_("kind"), options=list(KIND_LABELS), required=True, format_func=_),
        "role": st.column_config.SelectboxColumn(_("role"), options=[role.value for role in ROLE_LABELS],
                                                 required=True, format_func=role_label),
        "weight": st.column_config.NumberColumn(_("weight"), min_value=0.1, max_value=10.0, step=0.1, format="%.1f"),
        "missing (%)": st.column_config.TextColumn(_("missing (%)")),
        "distinct values": st.column_config.TextColumn(_("distinct values")),
        "warnings": st.column_config.TextColumn(_("warnings"), width="medium"),
    },
)
st.session_state["plan_table"] = edited
described = replace(plan_from_table(edited, loaded.profiles, loaded.name), relations=state.plan().table.relations)
for line in column_warning_lines(loaded.profiles, dict(zip(edited["column"], edited["kind"])),
                                 dropped=described.with_role(Role.DROPPED), excluded=described.with_role(Role.SET_APART)):
    st.warning(plain(line), icon=":material/warning:")
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
