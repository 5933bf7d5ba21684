"""Data: choose a table (bundled demo or upload), see how each column will be treated, and decide."""

import streamlit as st

from core.engine.schema import apply_kinds, column_warning_lines, resolve_kinds
from core.errors import InputError
from dashboard import state
from dashboard.plan import KIND_LABELS, ROLES, plan_from_table, plan_problem
from dashboard.widgets import preview_columns, risk_profile_section

UPLOAD = "Upload a file"

st.title("Data")
st.write(
    "Choose the table to protect. It is read on this computer and never sent anywhere; it stays in memory for "
    "this browser session only."
)
current = state.table()
choices = [*state.DEMO_TABLES, UPLOAD]
# The choice follows the table held (the radio's own state is cleared when another page is shown): coming back
# never replaces the table; choosing another table or uploading a file does.
source = st.radio("Table", choices, index=choices.index(state.demo_name(current) or UPLOAD) if current else 0,
                  horizontal=True, key="source")
try:
    if source == UPLOAD:
        upload = st.file_uploader(
            "CSV, Excel (.xlsx) or Parquet file", type=["csv", "tsv", "txt", "xlsx", "parquet"], key="upload"
        )
        if upload is not None and getattr(current, "source_id", None) != upload.file_id:
            state.set_table(state.load(upload.getvalue(), upload.name, upload.file_id))
            st.rerun()
        elif upload is None and state.demo_name(current) is not None:
            st.info(f"Upload a table to begin: CSV (any delimiter), Excel or Parquet. Until you do, "
                    f"{current.name} and its avatars stay as they are.")
            st.stop()
        elif upload is None and current is None:
            st.info("Upload a table to begin: CSV (any delimiter), Excel or Parquet.")
            st.stop()
        elif upload is None:
            st.caption(f"Showing {current.name}, uploaded earlier in this session. Upload another file to replace "
                       "it (its avatars and sweep are then forgotten).")
    else:
        path = state.DEMO_TABLES[source]
        if getattr(current, "source_id", None) != str(path):
            state.set_table(state.load(state.demo_bytes(str(path)), path.name, str(path)))
            st.rerun()
except InputError as error:
    st.error(str(error))
    st.stop()

loaded = state.table()

frame = loaded.frame
st.subheader(f"{loaded.name}: {len(frame):,} rows, {frame.shape[1]} columns")
with st.expander("Preview of the first rows", expanded=False):
    st.dataframe(frame.head(100), hide_index=True, column_config=preview_columns(frame))
    if frame.shape[1] > 8:
        st.caption(f"{frame.shape[1]} columns: scroll the table sideways to see those on the right.")

st.subheader("Columns")
st.write(
    "How each column will be treated. **Numeric** columns are averaged between similar people, **categorical** "
    "ones are drawn among their values (whole numbers with at most 10 values, such as scores or 0/1 flags, are "
    "codes: categorical), **dates** are handled as numbers. **Role**: *synthesize* it; give it *new "
    "identifiers* (the default for identifiers: the avatars get fresh ones of the same form, nothing of the "
    "real ones); *set it aside and re-attach* it afterwards (from the most similar real row); or *drop* it. "
    "**Weight** makes a column count more (above 1) or less (below 1) when people are compared."
)
edited = st.data_editor(
    st.session_state["plan_table"],
    key=f"plan_editor_{loaded.source_id}",
    hide_index=True,
    height=min(35 * (frame.shape[1] + 1) + 3, 800),
    disabled=["column", "missing (%)", "distinct values", "warnings"],
    column_config={
        "column": st.column_config.TextColumn("column", width="medium"),
        "kind": st.column_config.SelectboxColumn("kind", options=list(KIND_LABELS), required=True),
        "role": st.column_config.SelectboxColumn("role", options=list(ROLES.values()), required=True),
        "weight": st.column_config.NumberColumn("weight", min_value=0.1, max_value=10.0, step=0.1, format="%.1f"),
        "missing (%)": st.column_config.NumberColumn("missing (%)", format="%.1f"),
        "warnings": st.column_config.TextColumn("warnings", width="medium"),
    },
)
roles = dict(zip(edited["column"], edited["role"]))
for line in column_warning_lines(
    loaded.profiles, dict(zip(edited["column"], edited["kind"])),
    dropped=[name for name, role in roles.items() if role == ROLES["drop"]],
    excluded=[name for name, role in roles.items() if role == ROLES["exclude"]],
):
    st.warning(line, icon=":material/warning:")
st.session_state["plan_table"] = edited
plan = plan_from_table(edited, loaded.profiles)
try:
    if plan.kinds:
        overridden = frame[list(plan.kinds)]
        apply_kinds(overridden, resolve_kinds(overridden, plan.kinds))
except InputError as error:
    st.error(str(error))
    st.stop()
problem = plan_problem(edited, loaded.profiles)
if problem:
    st.error(problem)
    st.stop()
if plan != state.plan():
    st.session_state["plan"] = plan
    state.set_run(None)

renewed = [name for name, role in roles.items() if role == ROLES["identifiers"]]
kept = frame.shape[1] - len(plan.dropped) - len(plan.excluded) - len(renewed)
st.success(
    f"{kept} column{'s' if kept != 1 else ''} will be synthesized"
    + (f", {len(renewed)} given new identifiers ({', '.join(renewed)})" if renewed else "")
    + (f", {len(plan.excluded)} set aside and re-attached" if plan.excluded else "")
    + (f", {len(plan.dropped)} dropped ({', '.join(plan.dropped)})" if plan.dropped else "")
    + "."
)
risk_profile_section(loaded, plan)
st.page_link("pages/generate.py", label="Next: generate avatars", icon=":material/arrow_forward:")
