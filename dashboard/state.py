"""What one browser session holds: the loaded table (or linked tables), the column plan, the current run.

User data live in ``st.session_state`` only (per session, in memory, never pickled or
written to disk); only the bundled demo file goes through Streamlit's cache.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd
import streamlit as st

from core.dataset import Dataset, Link, LinkMethod, Table
from core.dataset.codebooks import codebooks
from core.dataset.keys import proposed_links, proposed_primary_keys
from core.engine.io import gathering, read_table, read_workbook
from core.engine.parameters import SUGGESTED_K, Parameters
from core.engine.schema import ColumnProfile, apply_kinds, profile_columns, resolve_kinds
from core.engine.series_tables import proposed_time
from core.i18n import N_, _, current_language
from core.metrics.attack import Knowledge
from core.workflows.plan import ColumnPlan
from core.workflows.latent import LatentView
from core.workflows.release import Decision, Release
from core.workflows.run import TableRelations, data_fingerprint, table_relations
from core.workflows.runs import Run, ScoredTable
from dashboard import sessions
from dashboard.language import ASSETS
from dashboard.plan import plan_from_table, plan_table
from dashboard.text import plain

# The demo's name is the Table choice's value (the same in every language, so that switching language keeps the
# choice); it is shown translated, through ``_()`` (the Table radio's ``format_func``).
DEMO_TABLES = {N_("Hospital stays (demo, 2,000 invented patients)"): ASSETS / "demo_clinical.csv"}
# The demo of several tables: every CSV file of the folder, one table each (the links are proposed as for an upload).
DEMO_DATASETS = {N_("Patients, stays, prescriptions (demo, 3 linked tables)"): ASSETS / "demo_hospital",
                 N_("Patients and their lab results over time (demo, time series)"): ASSETS / "demo_followup"}


@dataclass(frozen=True)
class LoadedTable:
    """A table as read, with what the Data page shows about its columns."""

    frame: pd.DataFrame
    name: str
    fingerprint: str
    source_id: str
    profiles: list[ColumnProfile]
    said: tuple[str, ...] = ()  # what reading it said (names changed, times' offsets), as the command line says it


def load(data: bytes, name: str, source_id: str) -> LoadedTable:
    """Read ``data`` (raises :class:`~core.errors.InputError` with a plain message), with what reading it said."""
    with gathering() as said:  # this session's reading only (never another's, which a warnings filter could mix)
        frame = read_table(io.BytesIO(data), file_name=name)
    return replace(described_table(frame, name, data_fingerprint(data), source_id), said=tuple(said))


def described_table(frame: pd.DataFrame, name: str, fingerprint: str, source_id: str) -> LoadedTable:
    """``frame`` with its columns' kinds and profiles, as the Data page shows them."""
    kinds = resolve_kinds(frame)
    return LoadedTable(frame, name, fingerprint, source_id, profile_columns(apply_kinds(frame, kinds), kinds))


@st.cache_data(show_spinner=False)
def demo_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


@dataclass(frozen=True)
class LoadedDataset:
    """Linked tables as read (several files, or the sheets of one workbook), by table name."""

    tables: dict[str, LoadedTable]
    source_id: str
    fingerprint: str

    @property
    def frames(self) -> dict[str, pd.DataFrame]:
        return {name: loaded.frame for name, loaded in self.tables.items()}


def load_files(files: list[tuple[str, bytes]], source_id: str) -> LoadedTable | LoadedDataset:
    """The uploaded ``files`` (name, bytes): one table, or the linked tables of several files (named after each
    file) or of one workbook's several sheets (named after each sheet)."""
    if len(files) == 1:
        name, data = files[0]
        with gathering() as said:
            sheets = read_workbook(data, name) if name.lower().endswith(".xlsx") else {}
        if len(sheets) < 2:
            return load(data, name, source_id)
        return LoadedDataset({sheet: replace(described_table(frame, sheet, data_fingerprint(data),  # the workbook's
                                                             f"{source_id}:{sheet}"), said=tuple(said))
                              for sheet, frame in sheets.items()}, source_id, data_fingerprint(data))
    tables: dict[str, LoadedTable] = {}
    for name, data in files:
        stem = Path(name).stem
        table_name = stem if stem not in tables else f"{stem}_{len(tables) + 1}"
        tables[table_name] = replace(load(data, name, f"{source_id}:{table_name}"), name=table_name)
    return LoadedDataset(tables, source_id, data_fingerprint(b"".join(data for _name, data in files)))


def demo_dataset(folder: Path) -> list[tuple[str, bytes]]:
    """The demo's files, as an upload gives them (the tables in the folder's order of the schema)."""
    order = list(Dataset.read(folder / "schema.json").tables)
    return [(f"{name}.csv", demo_bytes(str(folder / f"{name}.csv"))) for name in order]


def dataset() -> LoadedDataset | None:
    return st.session_state.get("dataset")


def set_loaded(loaded: LoadedTable | LoadedDataset) -> None:
    """A new table or new linked tables, on the user's action only: what was held before is forgotten. Of several
    tables, those that describe another's columns (a workbook's codebook sheet) are proposed left out
    (:func:`leave_out`)."""
    if isinstance(loaded, LoadedDataset):
        st.session_state["uploaded"] = loaded
        st.session_state["proposed_left_out"] = codebooks(loaded.frames)
        leave_out(tuple(st.session_state["proposed_left_out"]))
        return
    st.session_state.pop("uploaded", None)
    _hold(loaded)


def uploaded() -> LoadedDataset | None:
    """Every table of the upload, those left out included (None: one table was uploaded)."""
    return st.session_state.get("uploaded")


def left_out() -> tuple[str, ...]:
    return st.session_state.get("left_out", ())


def proposed_left_out() -> dict[str, str]:
    """The uploaded tables that describe another's columns, each with the one it describes."""
    return st.session_state.get("proposed_left_out", {})


def leave_out(names: tuple[str, ...]) -> None:
    """The upload without the tables ``names`` (at least one kept): linked tables, or, one left, one table as if it
    had come alone (a workbook of a data sheet and its codebook)."""
    every = uploaded()
    tables = {name: loaded for name, loaded in every.tables.items() if name not in names}
    st.session_state["left_out"] = tuple(name for name in every.tables if name in names)
    if len(tables) == 1:
        _hold(replace(next(iter(tables.values())), source_id=every.source_id))
    else:
        _hold(LoadedDataset(tables, every.source_id, every.fingerprint))


def _hold(loaded: LoadedTable | LoadedDataset) -> None:
    if isinstance(loaded, LoadedTable):
        st.session_state.pop("dataset", None)
        set_table(loaded)
        return
    st.session_state.pop("table", None)
    set_run(None)
    st.session_state.pop("sweep_result", None)  # a sweep belongs to the data it was run on
    st.session_state["dataset"] = loaded
    frames = loaded.frames
    keys = proposed_primary_keys(frames)
    links = tuple(proposed_links(frames, {name: key for name, key in keys.items() if key}))
    st.session_state["schema"] = Schema(keys, links, dict.fromkeys(loaded.tables), proposed_times(frames, links))
    st.session_state["table_plans"] = {}
    st.session_state.pop("plan_rows", None)
    st.session_state.pop("plan_problems", None)
    st.session_state.pop("analysis_request", None)
    st.session_state.pop("attacker_knowledge", None)
    st.session_state.pop("release_context", None)  # other tables: another release


@dataclass(frozen=True)
class Schema:
    """The linked tables as the Data page describes them: each table's primary key, the links, each table's
    individual-level flag (None: decided by the links), the time column of each series table (its link to its
    person is then ``time_series``); each table's columns are its plan (:func:`table_plan`)."""

    primary_keys: dict[str, str | None]
    links: tuple[Link, ...]
    individual_level: dict[str, bool | None]
    times: dict[str, str | None] = field(default_factory=dict)  # a series table's time column (SPEC 13), else None

    def keys_of(self, name: str) -> list[str]:
        """The table's key columns: its primary key and its foreign keys (they take no other role)."""
        return list(dict.fromkeys([*([self.primary_keys[name]] if self.primary_keys.get(name) else []),
                                   *(link.foreign_key for link in self.links if link.child == name)]))


def proposed_times(frames: dict[str, pd.DataFrame], links: tuple[Link, ...]) -> dict[str, str | None]:
    """The time column proposed for each table that could be a series (:func:`~core.engine.series_tables.
    proposed_time`): a table of one parent and no child."""
    parents = {link.child: [other for other in links if other.child == link.child] for link in links}
    return {name: proposed_time(frames[name], found[0].foreign_key) for name, found in parents.items()
            if len(found) == 1 and not any(link.parent == name for link in links)}


def schema() -> Schema:
    return st.session_state["schema"]


def set_schema(described: Schema) -> None:
    """The keys or links changed: the run is forgotten (each table's column plan keeps what is not a key now)."""
    st.session_state["schema"] = described
    set_run(None)


def table_plan(name: str) -> Table:
    """The table ``name`` as its column editor describes it (its keys apart), or with every default."""
    return st.session_state["table_plans"].get(name, Table(name))


def set_table_plan(table: Table) -> None:
    if table != table_plan(table.name):
        st.session_state["table_plans"] = {**st.session_state["table_plans"], table.name: table}
        set_run(None)


def plan_problems() -> dict[str, str]:
    """What makes a table's column plan unusable, by table (the Data page says it; nothing is generated)."""
    return st.session_state.get("plan_problems", {})


def set_plan_problem(name: str, problem: str | None) -> None:
    problems = {table: said for table, said in plan_problems().items() if table != name}
    st.session_state["plan_problems"] = problems | ({name: problem} if problem else {})
    if problem:
        set_run(None)


def described_dataset(parameters: dict[str, dict[str, object]] | None = None,
                      methods: dict[Link, LinkMethod] | None = None) -> Dataset:
    """The dataset the Data page describes (checked by the rules that need no data: an
    :class:`~core.errors.InputError` names the one broken), each table with its ``parameters``, each link with its
    method in ``methods`` (else the default; a link to a series table is ``time_series``)."""
    described, parameters, methods = schema(), parameters or {}, methods or {}
    tables = {name: replace(table_plan(name), primary_key=described.primary_keys.get(name),
                            individual_level=described.individual_level.get(name), time=described.times.get(name),
                            parameters=parameters.get(name, {}))
              for name in dataset().tables}
    links = tuple(replace(link, method=LinkMethod.TIME_SERIES if described.times.get(link.child) else
                          methods.get(link, link.method)) for link in described.links)
    return Dataset(tables, links).check()


def table() -> LoadedTable | None:
    return st.session_state.get("table")


def frames() -> dict[str, pd.DataFrame]:
    """The data loaded, by table: the one table's or each linked table's (what a run is made from)."""
    loaded = table()
    return {loaded.name: loaded.frame} if loaded is not None else dataset().frames


def source_id() -> str | None:
    """The data loaded now (one table or linked tables), by the id of its upload: what a run is made from."""
    held = table() or dataset()
    return None if held is None else held.source_id


def set_table(loaded: LoadedTable) -> None:
    """A new table, on the user's action only: its column plan starts from the defaults and any earlier run and
    sweep are forgotten."""
    st.session_state["table"] = loaded
    st.session_state.pop("attacker_knowledge", None)
    st.session_state.pop("release_context", None)  # another table: another release
    st.session_state.pop("analysis_request", None)
    st.session_state["plan_table"] = plan_table(loaded.profiles)
    set_plan(plan_from_table(st.session_state["plan_table"], loaded.profiles, loaded.name))
    set_run(None)
    st.session_state.pop("sweep_result", None)


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


def release_context() -> Release:
    """The release the avatars are for (its context, its recipient, the controller's decision), as stated on the
    Privacy and Report pages: every run of the session is made and reported for it."""
    return st.session_state.get("release_context", Release())


def set_release_context(release: Release) -> None:
    """Hold ``release``; the current run and its avatars of every row carry it, their files built again (their
    attacks stay: a recipient that changes the attacker is set with *Run the attacks*, on the Privacy page)."""
    st.session_state["release_context"] = release
    for key in ("run", "release_run"):
        held = st.session_state.get(key)
        if held is not None:
            st.session_state[key] = replace(held, release=replace(release, recipient=held.release.recipient))


def generation_plan() -> ColumnPlan:
    """The column plan with the attacker's choice: what a generation is made and scored with."""
    return replace(plan(), knowledge=attacker())


FIRST_PARAMETERS = Parameters(k=SUGGESTED_K, seed=0)  # the Generate page's before any run: Avatar, seed 0


def current_parameters() -> Parameters:
    """The parameters of the current run, or the first ones: what the Generate page shows, and the common
    parameters a sweep starts from."""
    current = run()
    return current.parameters if current is not None else FIRST_PARAMETERS


def run() -> Run | None:
    """The current run, of the one table or of the linked tables loaded."""
    return st.session_state.get("run")


def set_run(current: Run | None) -> None:
    """The one place the current run changes: the Generate form then shows its settings (its widgets' keys
    carry :func:`run_version`), and the avatars made from all rows for the previous run are forgotten. The run
    carries the session's release as it is now, with the run's own recipient (its attacks were run for it) and no
    controller's decision: a decision is taken on figures, and these are new."""
    if current is None:
        st.session_state.pop("run", None)
    else:
        context = replace(release_context(), recipient=current.release.recipient, decision=Decision())
        st.session_state["release_context"] = context
        st.session_state["run"] = current if current.release == context else replace(current, release=context)
    st.session_state["run_version"] = run_version() + 1
    st.session_state.pop("release_run", None)
    st.session_state.pop("exposure", None)
    sessions.let_go()  # only the current run is held


def same_figures(one: Run, other: Run) -> bool:
    """Whether two runs judge the same figures (one may carry another release, or its fix search)."""
    return {name: id(verdict.evaluation) for name, verdict in one.person_verdicts.items()} == {
        name: id(verdict.evaluation) for name, verdict in other.person_verdicts.items()}


def set_fix_search(judged: Run, searched: Run) -> None:
    """The run ``judged`` with the fix its search found (``searched``), made the current run while it still shows
    the same figures (what the search judged), with the current run's release; else set aside: it judged figures
    no longer shown. The Generate form's settings stay (no new version: the avatars are the same)."""
    current = run()
    if current is not None and same_figures(current, judged):
        st.session_state["run"] = replace(searched, release=current.release)


def exposure(current: Run, scored: ScoredTable) -> tuple[pd.DataFrame | None, LatentView | None]:
    """Who is most exposed among ``scored``'s people: their rows (:meth:`~core.workflows.runs.Run.people`) and their
    map (:meth:`~core.workflows.runs.Run.exposure_latent`), computed once per table of the current run and held for the
    session (not again at each rerun of the Privacy page)."""
    held = st.session_state.setdefault("exposure", {})
    if scored.key not in held:
        rows = current.people(scored) if scored.individual else None
        held[scored.key] = (rows, None if rows is None else current.exposure_latent(scored))
    return held[scored.key]


def run_version() -> int:
    return st.session_state.get("run_version", 0)


def release_run() -> Run | None:
    """The avatars of every row made with the current run's settings (no holdout), when the user asked for them."""
    return st.session_state.get("release_run")


def set_release_run(release: Run) -> None:
    """The avatars of every row, with the session's release as it is now (their attacks' recipient kept)."""
    st.session_state["release_run"] = replace(release, release=replace(
        release_context(), recipient=release.release.recipient))


def say_after_rerun(message: str) -> None:
    """A confirmation to show once after the rerun that an action needs (the sidebar is drawn before the page:
    a page that changes the run reruns the app so that both agree)."""
    st.session_state["said"] = message


def show_what_was_said() -> None:
    message = st.session_state.pop("said", None)
    if message:
        st.success(plain(message), icon=":material/check_circle:")


def run_files(current: Run, builders: dict[str, Callable[[], str | bytes]]) -> dict[str, str | bytes]:
    """A run's downloadable files, built once per run and language and kept for this session (for the current run
    and the avatars of all rows alike; the files of runs no longer held, or in the language left, are let go)."""
    language = current_language()
    held = [(owner, spoken, files) for owner, spoken, files in st.session_state.get("run_files", [])
            if any(owner is held for held in (run(), release_run()))]
    files = next((files for owner, spoken, files in held if owner is current and spoken == language), None)
    if files is None:
        files = {name: build() for name, build in builders.items()}
        held = [entry for entry in held if entry[0] is not current] + [(current, language, files)]
    st.session_state["run_files"] = held
    return files


def forget_run_files(current: Run) -> None:
    """Let go of ``current``'s files: they are built again, with what changed (the analyses run since)."""
    held = st.session_state.get("run_files", [])
    st.session_state["run_files"] = [entry for entry in held if entry[0] is not current]


def require_table() -> LoadedTable:
    return _required(table(), _("No table yet: choose one on the Data page."), "pages/data.py", _("Go to Data"),
                     ":material/table:")


def require_run() -> Run:
    return _required(run(), _("No avatars yet: generate them on the Generate page."), "pages/generate.py",
                     _("Go to Generate"), ":material/auto_awesome:")


def _required(value, message: str, page: str, link: str, icon: str):
    """``value``, or a note with a link to the page that makes it, and the page stops there."""
    if value is None:
        st.info(message)
        st.page_link(page, label=link, icon=icon)
        st.stop()
    return value
