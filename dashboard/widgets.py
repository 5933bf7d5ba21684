"""Small pieces shared by the pages: value texts, plots, badges."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from core.engine.identifiers import identifier_columns
from core.engine.split import HOLDOUT_MIN_ROWS
from core.errors import InputError
from core.metrics.result import MetricResult
from core.workflows import run as workflow
from core.workflows.run import ColumnPlan, GenerationRun
from dashboard import state

if TYPE_CHECKING:
    from dashboard.state import LoadedTable


def preview_columns(frame: pd.DataFrame) -> dict[str, object]:
    """Column settings for a table preview: dates without a time of day shown as dates (not ``... 00:00:00``)."""
    config = {}
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_datetime64_any_dtype(column):
            present = column.dropna()
            midnight = present.empty or bool((present == present.dt.normalize()).all())
            config[name] = st.column_config.DatetimeColumn(str(name), format="YYYY-MM-DD" if midnight else None)
    return config


PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d", "zoomIn2d",
                                                                "zoomOut2d", "toggleSpikelines"]}


def plot(figure, key: str, **options):
    """A plotly figure as the pages draw them: its own colours (the report's), a short toolbar that leaves long
    titles readable."""
    return st.plotly_chart(figure, theme=None, key=key, config=PLOT_CONFIG, **options)


LEVEL_BADGES = {"good": "green", "fair": "orange", "poor": "red"}


def signal_badge(result: MetricResult) -> None:
    """A signal metric's reading as a coloured badge (signal metrics have bands, not targets)."""
    if result.band is not None:
        st.badge(result.band, color=LEVEL_BADGES[result.level])


MECHANISM_LABELS = {
    "gaussian": "one multivariate normal distribution (best for one-peaked data)",
    "gmm": "a mixture of normal distributions (for data with several groups)",
    "histogram": "independent histograms per axis (simple, loses relationships)",
}
IMPUTATION_LABELS = {
    "fast_knn": "from similar rows, found on a sample (fast; default)",
    "knn": "from similar rows (k nearest neighbours)",
    "mode": "the most common value",
    "median": "the median",
    "mean": "the mean",
}


def holdout_plan(n_rows: int, holdout: bool) -> str:
    """What the holdout setting will do to this table, said next to the Generate button."""
    if holdout and n_rows >= HOLDOUT_MIN_ROWS:
        half = n_rows - (n_rows + 1) // 2
        return (f"Half of the {n_rows:,} rows ({half:,}) will be set aside as a holdout to measure the avatars, so "
                f"you get {n_rows - half:,} avatars. Once they are assessed, one click makes the avatars of all "
                f"{n_rows:,} rows with the same settings. (More settings: holdout.)")
    if holdout:
        return (f"Every row gets an avatar: {n_rows:,} rows are too few to set {HOLDOUT_MIN_ROWS // 2} aside, so the "
                "metrics draw an approximate holdout.")
    return f"Every row gets an avatar ({n_rows:,}); the metrics draw an approximate holdout. (More settings: holdout.)"


def targets_met(run: GenerationRun) -> tuple[int, int, str]:
    """How many privacy targets the run meets, of those that apply, and why some do not apply."""
    met, applicable = run.evaluation.privacy_targets_met()
    total = len(run.evaluation.privacy)
    if applicable == total:
        return met, applicable, "The privacy metrics that reach their target (see Privacy)."
    missing = [result.label for result in run.evaluation.privacy.values() if result.passed is None]
    return met, applicable, (
        f"{applicable} of the {total} privacy targets apply to these avatars: {', '.join(missing)} need each avatar "
        "to come from one particular person, which AvatarFastDP avatars do not."
    )


def run_with_progress(make: Callable[[Callable[[str, float], None]], GenerationRun]) -> GenerationRun:
    """``make(progress)`` with a progress bar; a plain error message (and the page stops) on bad input."""
    bar = st.progress(0.0, text="Starting")
    try:
        return make(lambda step, share: bar.progress(share, text=f"{step}…"))
    except InputError as error:
        bar.empty()
        st.error(str(error))
        st.stop()


def columns_caption(loaded: LoadedTable, plan: ColumnPlan) -> str:
    """The table and what becomes of its columns, in one sentence."""
    renewed = [name for name in identifier_columns(loaded.profiles, set(plan.kinds), set(plan.excluded))
               if name not in plan.dropped]
    synthesized = loaded.frame.shape[1] - len(plan.dropped) - len(plan.excluded) - len(renewed)
    return (f"Table: {loaded.name}, {len(loaded.frame):,} rows, {synthesized} columns synthesized"
            + (f", {len(plan.excluded)} set aside" if plan.excluded else "")
            + (f", {len(renewed)} given new identifiers ({', '.join(renewed)})" if renewed else "") + ".")


def avatars_of_every_row(loaded: LoadedTable, current: GenerationRun) -> None:
    """The Generate page's offer, once avatars assessed against a real holdout exist: the avatars of every row with
    the same settings (a second run, its privacy measured on all rows), or, once made, what they are."""
    n_rows = len(loaded.frame)
    st.subheader("Avatars to share")
    st.write(f"These {current.evaluation.rows['avatars']:,} avatars were made from half of the rows, so that the other "
             f"half could measure them. To share avatars of all {n_rows:,} rows, make them with the same settings: "
             "their privacy is then measured on all rows (utility against an approximate holdout).")
    release = state.release_run()
    if release is None:
        if st.button(f"Make the avatars to share from all {n_rows:,} rows with these settings",
                     icon=":material/select_all:", key="release"):
            state.set_release_run(run_with_progress(lambda progress: workflow.generate(
                loaded.frame, current.plan, replace(current.settings, holdout=False), table_name=loaded.name,
                fingerprint=loaded.fingerprint, progress=progress)))
            st.rerun()
    else:
        met, applicable, _ = targets_met(release)
        st.success(f"{release.summary()} Privacy targets met on all rows: {met} of {applicable}.",
                   icon=":material/select_all:")
        st.page_link("pages/report.py", label="Download them", icon=":material/download:")
