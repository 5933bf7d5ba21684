"""The Data page of linked tables: the tables read, their keys and links as proposed (to confirm, change or add),
which are individual-level, and each table's columns."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.dataset import Link, LinkMethod, Role
from core.dataset.keys import check_keys
from core.engine.schema import column_warning_lines
from core.errors import InputError
from core.i18n import _, number
from dashboard import state
from dashboard.plan import plan_from_table, plan_problem, plan_table
from dashboard.text import plain
from dashboard.widgets import column_editor, preview_columns, table, warnings_shown

NO_KEY = "—"  # the primary key choice "none", the same in every language


def linked_data_page() -> None:
    """What the Data page shows once linked tables are loaded (after the choice of the data)."""
    loaded, schema = state.dataset(), state.schema()
    frames = loaded.frames
    st.subheader(_("{count} linked tables: {tables}").format(count=number(len(frames)), tables=", ".join(
        plain(name) for name in frames)), anchor=False)
    warnings_shown(line for one in loaded.tables.values() for line in one.said)  # what reading each file said
    for name, frame in frames.items():
        with st.expander(_("{table}: {rows} rows, {columns} columns").format(
                table=plain(name), rows=number(len(frame), ","), columns=number(frame.shape[1]))):
            table(frame.head(100), columns=preview_columns(frame), key=f"preview_{name}")

    st.header(_("Keys and links"))
    st.write(_("A **primary key** names each row of a table (a patient's identifier); a **link** is a column of a "
               "child table that names a row of its parent (each stay names its patient). They were proposed from the "
               "columns' names and values: confirm them, change them or add one. An **individual-level** table has "
               "one row per person: its privacy is measured with everything about each person (their stays, their "
               "prescriptions)."))
    keys, individual, times = {}, {}, {}
    for name, frame in frames.items():
        first, second, third, fourth = st.columns([1.5, 2, 2.7, 2], vertical_alignment="bottom")
        first.markdown(_("**{table}** ({rows} rows)").format(table=plain(name), rows=number(len(frame), ",")))
        options = [NO_KEY, *map(str, frame.columns)]
        held = schema.primary_keys.get(name)
        chosen = second.selectbox(_("Primary key of {table}").format(table=name), options,
                                  index=options.index(held) if held in options else 0,
                                  key=f"key_{loaded.source_id}_{name}")
        keys[name] = None if chosen == NO_KEY else chosen
        has_parent = any(link.child == name for link in schema.links)
        said = schema.individual_level.get(name)
        flag = third.toggle(_("Individual-level (one row per person)"), value=not has_parent if said is None else said,
                            key=f"individual_{loaded.source_id}_{name}")
        individual[name] = None if flag == (not has_parent) else flag
        parents = [link for link in schema.links if link.child == name]
        if len(parents) == 1 and not any(link.parent == name for link in schema.links):  # could be a series
            columns = [NO_KEY, *(str(column) for column in frame.columns if str(column) != parents[0].foreign_key)]
            held = schema.times.get(name)
            chosen = fourth.selectbox(
                _("Time of the measures of {table}").format(table=name), columns,
                index=columns.index(held) if held in columns else 0, key=f"time_{loaded.source_id}_{name}",
                help=_("A table of measures over time (each patient's lab results at each visit): the column that "
                       "says when. Its rows are then avatarized as each person's trajectory; —: rows like any other."))
            times[name] = None if chosen == NO_KEY else chosen

    proposed = st.session_state.setdefault(f"proposed_links_{loaded.source_id}", schema.links)
    every_column = sorted({str(column) for frame in frames.values() for column in frame.columns})
    st.subheader(_("Links"), anchor=False)
    edited = st.data_editor(
        pd.DataFrame([{"parent": link.parent, "child": link.child, "foreign key": link.foreign_key}
                      for link in proposed], columns=["parent", "child", "foreign key"]),
        key=f"links_{loaded.source_id}", num_rows="dynamic", hide_index=True,
        column_config={
            "parent": st.column_config.SelectboxColumn(_("parent table"), options=list(frames), required=True),
            "child": st.column_config.SelectboxColumn(_("child table"), options=list(frames), required=True),
            "foreign key": st.column_config.SelectboxColumn(_("child's column naming its parent"), options=every_column,
                                                            required=True, width="medium"),
        },
    )
    links = tuple(Link(row["parent"], keys.get(row["parent"]) or "", row["child"], row["foreign key"])
                  for row in edited.to_dict("records")
                  if all(isinstance(row[column], str) and row[column] for column in ("parent", "child", "foreign key")))
    described = state.Schema(keys, links, individual, times)
    if described != schema:
        state.set_schema(described)
        st.rerun()  # the toggles' defaults follow the links
    if not links:
        st.caption(_("No link: the tables are avatarized as linked tables only once one names another's rows. Add a "
                     "row above (the parent table, the child table and the child's column that names the parent)."))
    try:
        dataset = state.described_dataset()
        unparented = check_keys(dataset, frames)
    except InputError as error:
        st.error(plain(error), icon=":material/link_off:")
        st.stop()
    for link in dataset.links:
        if link.method is LinkMethod.TIME_SERIES:
            st.markdown(_("Each row of **{child}** is a measure of a row of **{parent}** (by **{column}**) at the time "
                          "**{time}**: the measures of each row of {parent} are avatarized as one trajectory.").format(
                child=plain(link.child), parent=plain(link.parent), column=plain(link.foreign_key),
                time=plain(dataset.tables[link.child].time)))
            continue
        st.markdown(_("Each row of **{child}** names a row of **{parent}** by **{column}** ({parent}.{key}).").format(
            child=plain(link.child), parent=plain(link.parent), column=plain(link.foreign_key), key=plain(link.key)))
    for missing in unparented:
        st.info(plain(missing.message), icon=":material/info:")
    people = [name for name in dataset.tables if dataset.is_individual_level(name)]
    st.caption(_("Individual-level: {tables}.").format(tables=", ".join(plain(name) for name in people)))

    st.header(_("Each table's columns"))
    for name, tab in zip(frames, st.tabs([plain(name) for name in frames]), strict=True):
        with tab:
            table_columns_section(name)
    if state.plan_problems():
        return  # said in the table's tab
    st.page_link("pages/generate.py", label=_("Next: generate avatars"), icon=":material/arrow_forward:")


def table_columns_section(name: str) -> None:
    """One table's columns: its keys and its time (a series') said, the others in the Data page's column editor (a
    key or a time takes no other role); the table's plan kept in the session as edited."""
    loaded, schema = state.dataset().tables[name], state.schema()
    keys, time = schema.keys_of(name), schema.times.get(name)
    if keys:
        st.caption(_("Keys: {keys}. The avatars get new keys of the same form, the links written from the linkage; "
                     "nothing of the real ones.").format(keys=", ".join(plain(key) for key in keys)))
    if time:
        st.caption(_("Time: {time}. Each avatar's measures get times of their own, strictly increasing, within the "
                     "real span.").format(time=plain(time)))
    profiles = [profile for profile in loaded.profiles if profile.name not in keys and profile.name != time]
    rows = _plan_rows(name, profiles)
    edited = column_editor(rows, profiles, key=f"plan_editor_{loaded.source_id}_{'_'.join([*keys, time or ''])}")
    st.session_state["plan_rows"] = {**st.session_state.get("plan_rows", {}), name: edited}
    described = plan_from_table(edited, profiles, name)
    warnings_shown(column_warning_lines(profiles, dict(zip(edited["column"], edited["kind"], strict=True)),
                                        dropped=described.with_role(Role.DROPPED),
                                        excluded=described.with_role(Role.SET_APART)))
    problem = plan_problem(edited, profiles) if len(edited) else None
    if problem:
        problem = _("Table '{table}': {problem}").format(table=name, problem=problem)
        st.error(plain(problem))
    state.set_plan_problem(name, problem)
    if problem is None:
        state.set_table_plan(described)


def _plan_rows(name: str, profiles: list) -> pd.DataFrame:
    """The table's column rows as last edited (those that are keys now left out, new ones with their defaults)."""
    held = st.session_state.get("plan_rows", {}).get(name)
    fresh = plan_table(profiles)
    if held is None:
        return fresh
    kept = held[held["column"].isin(fresh["column"])]
    return pd.concat([kept, fresh[~fresh["column"].isin(kept["column"])]], ignore_index=True)
