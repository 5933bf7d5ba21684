"""What one browser session holds: the loaded table, the column plan, the current run.

User data live in ``st.session_state`` only (per session, in memory, never pickled or
written to disk); only the bundled demo file goes through Streamlit's cache.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
import streamlit as st

from core.dataset import Table
from core.engine.io import read_table
from core.engine.schema import ColumnProfile, apply_kinds, profile_columns, resolve_kinds
from core.i18n import N_, _, current_language
from core.metrics.attack import Knowledge
from core.engine.parameters import SUGGESTED_K, Parameters
from core.workflows.run import ColumnPlan, GenerationRun, TableRelations, data_fingerprint, table_relations
from dashboard.language import ASSETS
from dashboard.plan import plan_from_table, plan_table
from dashboard.text import plain

# The demo's name is the Table choice's value (the same in every language, so that switching language keeps the
# choice); it is shown translated, through ``_()`` (the Table radio's ``format_func``).
DEMO_TABLES = {N_("Hospital stays (demo, 2,000 invented patients)"): ASSETS / "demo_clinical.csv"}


@dataclass(frozen=True)
class LoadedTable:
    """A table as read, with what the Data page shows about its columns."""

    frame: pd.DataFrame
    name: str
    fingerprint: str
    source_id: str
    profiles: list[ColumnProfile]


def load(data: bytes, name: str, source_id: str) -> LoadedTable:
    """Read ``data`` (raises :class:`~core.errors.InputError` with a plain message)."""
    frame = read_table(io.BytesIO(data), file_name=name)
    kinds = resolve_kinds(frame)
    profiles = profile_columns(apply_kinds(frame, kinds), kinds)
    return LoadedTable(frame, name, data_fingerprint(data), source_id, profiles)


@st.cache_data(show_spinner=False)
def demo_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


def table() -> LoadedTable | None:
    return st.session_state.get("table")


def set_table(loaded: LoadedTable) -> None:
    """A new table, on the user's action only: its column plan starts from the defaults and any earlier run and
    sweep are forgotten."""
    st.session_state["table"] = loaded
    st.session_state.pop("attacker_knowledge", None)
    st.session_state.pop("analysis_request", None)
    st.session_state["plan_table"] = plan_table(loaded.profiles)
    set_plan(plan_from_table(st.session_state["plan_table"], loaded.profiles, loaded.name))
    set_run(None)
    st.session_state.pop("sweep_result", None)


def demo_name(loaded: LoadedTable | None) -> str | None:
    """The demo table's name in the Table choice, or None for no table or an uploaded one."""
    source = getattr(loaded, "source_id", None)
    return next((name for name, path in DEMO_TABLES.items() if str(path) == source), None)


def plan() -> ColumnPlan:
    """The table as the Data page describes it (its columns' roles, kinds and weights), without the attacker."""
    return st.session_state.get("plan", ColumnPlan())


def set_plan(table: Table) -> None:
    st.session_state["plan"] = ColumnPlan(table)


def relations(loaded: LoadedTable, table: Table) -> TableRelations:
    """The relations of the table held as ``table`` describes it, computed once per description (kept in the
    session, not in a cache that pickles: they hold the table's values)."""
    key = (loaded.source_id, repr(table))
    held = st.session_state.get("table_relations")
    if held is None or held[0] != key:
        held = (key, table_relations(loaded.frame, table))
        st.session_state["table_relations"] = held
    return held[1]


def attacker() -> Knowledge:
    """What an attacker could know and would want to learn, as chosen on the Data and Privacy pages."""
    return st.session_state.get("attacker_knowledge", Knowledge())


def set_attacker(knowledge: Knowledge) -> None:
    st.session_state["attacker_knowledge"] = knowledge


def generation_plan() -> ColumnPlan:
    """The column plan with the attacker's choice: what a generation is made and scored with."""
    return replace(plan(), knowledge=attacker())


FIRST_PARAMETERS = Parameters(k=SUGGESTED_K, seed=0)  # the Generate page's before any run: Avatar, seed 0


def current_parameters() -> Parameters:
    """The parameters of the current run, or the first ones: what the Generate page shows, and the common
    parameters a sweep starts from."""
    current = run()
    return current.parameters if current is not None else FIRST_PARAMETERS


def run() -> GenerationRun | None:
    return st.session_state.get("run")


def set_run(current: GenerationRun | None) -> None:
    """The one place the current run changes: the Generate form then shows its settings (its widgets' keys
    carry :func:`run_version`), and the avatars made from all rows for the previous run are forgotten."""
    if current is None:
        st.session_state.pop("run", None)
    else:
        st.session_state["run"] = current
    st.session_state["run_version"] = run_version() + 1
    st.session_state.pop("release_run", None)


def run_version() -> int:
    return st.session_state.get("run_version", 0)


def release_run() -> GenerationRun | None:
    """The avatars of every row made with the current run's settings (no holdout), when the user asked for them."""
    return st.session_state.get("release_run")


def set_release_run(release: GenerationRun) -> None:
    st.session_state["release_run"] = release


def say_after_rerun(message: str) -> None:
    """A confirmation to show once after the rerun that an action needs (the sidebar is drawn before the page:
    a page that changes the run reruns the app so that both agree)."""
    st.session_state["said"] = message


def show_what_was_said() -> None:
    message = st.session_state.pop("said", None)
    if message:
        st.success(plain(message), icon=":material/check_circle:")


def run_files(current: GenerationRun, builders: dict[str, Callable[[], str | bytes]]) -> dict[str, str | bytes]:
    """A run's downloadable files, built once per run and language and kept for this session (for the current run
    and the avatars of all rows alike; the files of runs no longer held, or in the language left, are let go)."""
    language = current_language()
    held = [(owner, spoken, files) for owner, spoken, files in st.session_state.get("run_files", [])
            if owner is run() or owner is release_run()]
    files = next((files for owner, spoken, files in held if owner is current and spoken == language), None)
    if files is None:
        files = {name: build() for name, build in builders.items()}
        held = [entry for entry in held if entry[0] is not current] + [(current, language, files)]
    st.session_state["run_files"] = held
    return files


def forget_run_files(current: GenerationRun) -> None:
    """Let go of ``current``'s files: they are built again, with what changed (the analyses run since)."""
    held = st.session_state.get("run_files", [])
    st.session_state["run_files"] = [entry for entry in held if entry[0] is not current]


def require_table() -> LoadedTable:
    return _required(table(), _("No table yet: choose one on the Data page."), "pages/data.py", _("Go to Data"),
                     ":material/table:")


def require_run() -> GenerationRun:
    return _required(run(), _("No avatars yet: generate them on the Generate page."), "pages/generate.py",
                     _("Go to Generate"), ":material/auto_awesome:")


def _required(value, message: str, page: str, link: str, icon: str):
    """``value``, or a note with a link to the page that makes it, and the page stops there."""
    if value is None:
        st.info(message)
        st.page_link(page, label=link, icon=icon)
        st.stop()
    return value
