"""The Data page's first choice: a bundled demo (one table, or linked tables) or the user's files (one table; several
files or the sheets of one workbook: linked tables)."""

from __future__ import annotations

import streamlit as st

from core.errors import InputError
from core.i18n import N_, _
from dashboard import state
from dashboard.text import plain

UPLOAD = N_("Upload files")  # an option value, as the tests and the session hold it; shown translated


def held_source() -> str | None:
    """The choice that gave what the session holds (a demo's name, or the upload), None when it holds nothing."""
    held = state.dataset() or state.table()
    if held is None:
        return None
    demos = {**state.DEMO_TABLES, **state.DEMO_DATASETS}
    return next((name for name, path in demos.items() if str(path) == held.source_id), UPLOAD)


def source_section() -> None:
    """The source radio and, for an upload, the file box: a new choice replaces what is held and reruns the app
    (its pages then follow: one table, or linked tables); coming back to the page never does."""
    st.write(_(
        "Choose the data to protect: one table, or several linked tables (patients, their stays, their "
        "prescriptions). They are read on this computer and never sent anywhere; they stay in memory for this "
        "browser session only."
    ))
    choices = [*state.DEMO_TABLES, *state.DEMO_DATASETS, UPLOAD]
    held = held_source()
    source = st.radio(_("Data"), choices, index=choices.index(held) if held else 0, horizontal=True, format_func=_,
                      key="source")
    held_id = getattr(state.dataset() or state.table(), "source_id", None)
    try:
        if source in state.DEMO_TABLES:
            path = state.DEMO_TABLES[source]
            if held_id != str(path):
                state.set_loaded(state.load(state.demo_bytes(str(path)), path.name, str(path)))
                st.rerun()
        elif source in state.DEMO_DATASETS:
            folder = state.DEMO_DATASETS[source]
            if held_id != str(folder):
                state.set_loaded(state.load_files(state.demo_dataset(folder), str(folder)))
                st.rerun()
        else:
            _upload_section(held, held_id)
    except InputError as error:
        st.error(plain(error))
        st.stop()


def _upload_section(held: str | None, held_id: str | None) -> None:
    uploads = st.file_uploader(
        _("CSV, Excel (.xlsx) or Parquet files: one table, or several linked tables (one file each, or one workbook "
          "of several sheets)"), type=["csv", "tsv", "txt", "xlsx", "parquet"], accept_multiple_files=True,
        key="upload")
    if uploads:
        source_id = "+".join(upload.file_id for upload in uploads)
        if held_id != source_id:
            state.set_loaded(state.load_files([(upload.name, upload.getvalue()) for upload in uploads], source_id))
            st.rerun()
        return
    if held is not None and held != UPLOAD:
        held_name = ", ".join(state.dataset().tables) if state.dataset() else state.table().name
        st.info(_("Upload a table to begin: CSV (any delimiter), Excel or Parquet, or several files of linked tables. "
                  "Until you do, {name} and its avatars stay as they are.").format(name=plain(held_name)))
        st.stop()
    if held is None:
        st.info(_("Upload a table to begin: CSV (any delimiter), Excel or Parquet, or several files of linked "
                  "tables."))
        st.stop()
    st.caption(_("Showing what you uploaded earlier in this session. Upload other files to replace it (its avatars "
                 "and sweep are then forgotten)."))


def left_out_section() -> None:
    """Of an upload of several tables, those to leave out of the avatars (a workbook's codebook sheet, proposed:
    it describes another table's columns rather than holding rows); one left, it is one table."""
    every = state.uploaded()
    if every is None:
        return
    names = list(every.tables)
    proposed = state.proposed_left_out()
    chosen = st.multiselect(
        _("Tables to leave out of the avatars"), names, default=list(state.left_out()),
        key=f"left_out_{every.source_id}", placeholder=_("None: every table is avatarized"),
        help=_("A sheet of notes or a codebook describes the data; it holds no person. Left out, it is not "
               "avatarized; one table left is then handled as one table."))
    for name, described in proposed.items():
        st.caption(_("'{table}' describes the columns of '{described}' (its values name them): proposed to be left "
                     "out.").format(table=plain(name), described=plain(described)))
    if len(chosen) == len(names):
        st.error(_("Keep at least one table to avatarize."))
        return
    if tuple(chosen) != state.left_out():
        state.leave_out(tuple(name for name in names if name in chosen))
        st.rerun()
