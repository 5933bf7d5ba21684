"""Small pieces shared by the pages: value texts, plots, badges."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from core.engine.identifiers import identifier_columns
from core.engine.schema import Kind, apply_kinds
from core.engine.split import HOLDOUT_MIN_ROWS
from core.errors import InputError
from core.metrics.result import MetricResult
from core.metrics.risk_profile import risk_profile
from core.presentation.format import attack_readings, metric_text
from core.presentation.verdict_text import caveat, fix_sentence, headline, reasons
from core.workflows.run import ColumnPlan, GenerationRun
from core.workflows.verdict import generate_judged, verdict_of_run
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


def privacy_card(result: MetricResult) -> None:
    """A privacy metric in a bordered card: value, target met or missed, and what it means (or why it does not
    apply, or why it is left out of the verdict)."""
    with st.container(border=True):
        st.metric(result.label, metric_text(result, result.unit))
        if result.note:
            st.badge("not counted: most rows repeat", color="gray")
        elif result.passed is None:
            st.badge("not applicable" if result.value is None else "not judged", color="gray")
        elif result.passed:
            st.badge(f"target {result.target_text}: met", icon=":material/check:", color="green")
        else:
            st.badge(f"target {result.target_text}: missed", icon=":material/close:", color="red")
        interval = result.breakdown.get("high") if result.value is not None else None
        if interval is not None:
            st.caption(f"95 % interval: {result.breakdown['low']:.1f} to {interval:.1f} %")
        for reading in attack_readings(result):
            st.caption(plain(reading))
        st.caption(result.not_applicable or result.note or result.interpretation)


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


MARKDOWN_SPECIALS = str.maketrans({character: "\\" + character for character in "\\`*_{}[]<>()#+-!|~$"})


def plain(text: str) -> str:
    """``text`` shown as written by ``st.markdown`` (a column name with ``*`` or ``$`` stays a name)."""
    return text.translate(MARKDOWN_SPECIALS)


def verdict_box(run: GenerationRun) -> None:
    """The verdict of SPEC 6.3: ready to share or not, why, the fix checked by a re-run, what is not assessed."""
    verdict = verdict_of_run(run)
    if verdict.ready:
        st.success(f"**{headline(verdict)}**: every privacy target that applies is met.", icon=":material/verified_user:")
    else:
        why = "\n".join(f"- {plain(reason)}" for reason in reasons(verdict))
        st.error(f"**{headline(verdict)}**\n\n{why}", icon=":material/gpp_bad:")
        st.info(plain(fix_sentence(verdict)), icon=":material/build:")
    if caveat(verdict):
        st.warning(plain(caveat(verdict)), icon=":material/help:")


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
            state.set_release_run(run_with_progress(lambda progress: generate_judged(
                loaded.frame, current.plan, replace(current.settings, holdout=False), table_name=loaded.name,
                fingerprint=loaded.fingerprint, progress=progress)))
            st.rerun()
    else:
        st.success(f"{release.summary()} Their privacy, measured on all rows:", icon=":material/select_all:")
        verdict_box(release)
        st.page_link("pages/report.py", label="Download them", icon=":material/download:")


def risk_profile_section(loaded: LoadedTable, plan: ColumnPlan) -> None:
    """The Data page's risk profile (SPEC 6.4): what the variables an attacker could know single out, live as they
    are ticked, before any generation."""
    st.subheader("Before generating: who stands out")
    options = [name for name in loaded.frame.columns if name not in plan.dropped]
    chosen = state.attacker()
    known = st.multiselect(
        "Variables an attacker could know of a person (quasi-identifiers)", options,
        default=[name for name in chosen.known if name in options], key=f"known_{loaded.source_id}",
        help="What someone could learn elsewhere: age, sex, postcode, admission date... The privacy attacks use them "
        "too (they can be changed on the Privacy page).",
    )
    if tuple(known) != chosen.known:
        state.set_attacker(replace(chosen, known=tuple(known), sensitive=tuple(
            name for name in chosen.sensitive if name not in known)))
    if not known:
        st.caption("Tick the variables someone could know to see how many people they single out in the real data.")
        return
    kinds = {name: profile.kind for profile in loaded.profiles if (name := profile.name) in known}
    kinds.update({name: Kind(kind) for name, kind in plan.kinds.items() if name in known})
    profile = risk_profile(apply_kinds(loaded.frame[known], kinds), kinds, known)
    first, second = st.columns(2)
    first.metric("People unique on them", f"{profile.unique_share:.1f} %",
                 help="No one else in the table has the same values (numbers and dates counted by tenth).")
    second.metric("People in groups of fewer than 5", f"{profile.small_group_share:.1f} %",
                  help="What k-anonymity with k = 5 would flag.")
    if profile.removals:
        steps = [f"without **{plain(name)}**: {share:.1f} % unique" for name, share in profile.removals]
        st.write("What helps most, one variable at a time: " + "; then ".join(steps) + ".")
