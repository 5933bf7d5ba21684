"""The Generate page's pieces: the settings form of the data loaded (one table: a method and its settings; linked
tables: a k or an epsilon per table, a method per link, a series' reading), and what the run made at a glance."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from core.dataset import Dataset, Link, LinkMethod, Table
from core.engine.methods import AvatarFastDP
from core.engine.parameters import (
    DEFAULT_NCP,
    HOLDOUT_MIN_ROWS,
    IMPUTATION_METHODS,
    MAX_NB_POINTS,
    MECHANISMS,
    REFERENCE_SPREAD,
    RESTORED_SPREAD,
    SUGGESTED_EPSILON,
    SUGGESTED_K,
    Parameters,
    suggested_k,
)
from core.engine.split import working_rows
from core.i18n import N_, _, number
from core.presentation.epsilon_ledger import ledger_rows, not_covered_sentence
from core.presentation.format import metric_text
from core.presentation.parameter_labels import (
    ALIGNMENT_LABELS,
    IMPUTATION_LABELS,
    LINK_METHOD_LABELS,
    MECHANISM_LABELS,
    PROJECTION_LABELS,
    UNALIGNMENT_LABELS,
)
from core.workflows.linked_run import LinkedRun, generate_linked
from core.workflows.run import GenerationRun, describe, generate
from core.workflows.runs import Run
from core.workflows.search_space import EPSILON_STEPS
from dashboard import state
from dashboard.text import plain
from dashboard.widgets import columns_caption, holdout_plan, signal_badge

if TYPE_CHECKING:
    import pandas as pd

    from dashboard.state import LoadedDataset, LoadedTable

AVATAR, FAST_DP = N_("Avatar: mix each person's nearest neighbours"), N_("AvatarFastDP: sample from a noisy model")
Asked = tuple[str, Callable[[Callable[[str, float], None]], Run]]  # the job's label, and what makes the run


def method_choice(fast_dp: bool, version: int, refused: str | None = None) -> str:
    """The method, outside the form (each shows its own options at once; its key carries the run's version, so that
    it shows the current run's method whichever page made it), with what AvatarFastDP is, or why it is refused."""
    method = st.radio(_("Method"), [AVATAR, FAST_DP], index=int(fast_dp), horizontal=True, format_func=_,
                      key=f"method_{version}")
    if method == FAST_DP and refused:
        st.error(refused, icon=":material/block:")
    elif method == FAST_DP:
        st.warning(_(
            "AvatarFastDP **uses differential-privacy mechanisms but is not end-to-end differentially private**: the "
            "projection of the data is computed on the real values without noise."), icon=":material/info:")
    return method


def epsilon_slider(label: str, previous: float | None, key: str, help_text: str) -> float:
    """An epsilon among :data:`EPSILON_STEPS`, starting at the step nearest ``previous`` (else the suggested one)."""
    start = previous or SUGGESTED_EPSILON
    return float(st.select_slider(label, options=EPSILON_STEPS, format_func=lambda value: number(value, "g"),
                                  value=min(EPSILON_STEPS, key=lambda step: abs(step - start)), key=key,
                                  help=help_text))


def submit_button(running: bool, refused: bool = False) -> bool:
    return st.form_submit_button(_("Generate avatars"), type="primary", icon=":material/auto_awesome:",
                                 key="FormSubmitter:settings-Generate avatars",  # the key Streamlit gave it
                                 disabled=running or refused)


def table_form(loaded: LoadedTable, current: GenerationRun | None, version: int, running: bool) -> Asked | None:
    """One table's settings: the method and its model outside the form, k or epsilon and the model's options, then
    the holdout, the projection, the filling of missing values and the seed; the run asked for on submit."""
    plan, chosen = state.plan(), state.current_parameters()
    fast_dp = chosen.fast_dp_epsilon is not None
    shown = st.session_state.get(f"method_{version}", FAST_DP if fast_dp else AVATAR)
    st.caption(plain(columns_caption(loaded, plan)) + (  # said only while the method shown is theirs
        " " + _("The settings shown are those of the current avatars.")
        if current and (shown == FAST_DP) == isinstance(current.avatarizer.method_, AvatarFastDP) else ""))
    method = method_choice(fast_dp, version)
    mechanism = chosen.mechanism
    if method == FAST_DP:
        mechanism = st.selectbox(
            _("Model"), MECHANISMS, index=MECHANISMS.index(chosen.mechanism), key=f"mechanism_{version}",
            format_func=lambda name: _("{mechanism}: {description}").format(mechanism=name,
                                                                            description=_(MECHANISM_LABELS[name])))
    with st.form("settings"):
        asked = _method_settings(method, mechanism, chosen, len(loaded.frame), version)
        with st.expander(_("More settings")):
            asked |= _more_settings(chosen, bool(plan.excluded), version)
        st.caption(holdout_plan(len(loaded.frame), chosen.holdout))
        if not submit_button(running):
            return None
    parameters = Parameters(**asked)
    made, release = state.generation_plan(), state.release_context()
    return _("Avatars with {settings}").format(settings=describe(parameters)), lambda progress: generate(
        loaded.frame, made, parameters, table_name=loaded.name, fingerprint=loaded.fingerprint, progress=progress,
        release=release)


def _method_settings(method: str, mechanism: str, chosen: Parameters, n_rows: int, version: int
                     ) -> dict[str, object]:
    """k, or epsilon with the model's options (the model's as last chosen when Avatar is)."""
    kept: dict[str, object] = {"mechanism": mechanism, "gmm_n_components": chosen.gmm_n_components,
                               "histogram_n_bins": chosen.histogram_n_bins,
                               "bounds_percentile": chosen.bounds_percentile}
    if method == AVATAR:
        largest_k = max(2, min(100, working_rows(n_rows, chosen.holdout) - 1))
        k = int(st.slider(
            _("k: how many similar people each avatar mixes"), min_value=2, max_value=largest_k,
            value=min(chosen.k or SUGGESTED_K, largest_k), key=f"k_{version}",
            help=_("Small k keeps more detail; large k protects better. 10 to 20 is a common choice.")))
        restored = st.toggle(
            _("Restore the spread of numbers"), value=chosen.spread == RESTORED_SPREAD, key=f"spread_{version}",
            help=_("An avatar's number is a weighted mean of its neighbours', which narrows the spread and the "
                   "extremes of each column. On, the neighbours' own spread is put back: closer to the originals' "
                   "spread, extremes and correlations, avatars further from their originals. Off: the reference method, "
                   "as the commercial engine makes it."))
        return kept | {"k": k, "spread": RESTORED_SPREAD if restored else REFERENCE_SPREAD}
    asked = kept | {"fast_dp_epsilon": epsilon_slider(
        _("epsilon: privacy budget"), chosen.fast_dp_epsilon, f"epsilon_{version}",
        _("Smaller epsilon adds more noise: better protection, less signal. The scale is logarithmic."))}
    with st.expander(_("Model options")):
        if mechanism == "gmm":
            asked["gmm_n_components"] = int(st.number_input(_("Number of groups in the mixture"), 1, 50,
                                                            chosen.gmm_n_components, key=f"gmm_{version}"))
        if mechanism == "histogram":
            asked["histogram_n_bins"] = int(st.number_input(_("Bars per histogram"), 2, 200, chosen.histogram_n_bins,
                                                            key=f"bins_{version}"))
        asked["bounds_percentile"] = float(st.number_input(
            _("Extreme values trimmed on each side (%)"), 0.5, 49.5, chosen.bounds_percentile, step=0.5,
            key=f"bounds_{version}",
            help=_("Before the model is fitted, each axis of the latent space is cut at this percentile and its "
                   "mirror (5 keeps the 5 % to 95 % range), so that a few extreme people do not set the noise "
                   "level.")))
    return asked


def _more_settings(chosen: Parameters, excluded: bool, version: int) -> dict[str, object]:
    """The holdout, the projection, the filling of missing values, the seed, the set-aside columns."""
    holdout = st.toggle(
        _("Set half of the rows aside as a holdout (from {rows} rows)").format(rows=number(HOLDOUT_MIN_ROWS)),
        value=chosen.holdout, key=f"holdout_{version}",
        help=_("The holdout is never used to make avatars; the utility metrics compare with it. Off: every row "
               "gets an avatar and the metrics draw an approximate holdout."))
    ncp = st.number_input(
        _("Dimensions used to compare people"), 1, 50, chosen.ncp or DEFAULT_NCP, key=f"ncp_{version}",
        help=_("How many axes of the projection (the summary of all columns) are used to find similar people; "
               "5 is the usual choice. Called ncp on the command line."))
    imputation = st.selectbox(
        _("Temporary filling of missing values"), IMPUTATION_METHODS, format_func=lambda name: _(IMPUTATION_LABELS[name]),
        index=IMPUTATION_METHODS.index(chosen.imputation), key=f"imputation_{version}",
        help=_("Missing values are filled only while avatars are made, then restored as missing."))
    seed = st.number_input(_("Seed"), 0, 2**32 - 1, chosen.seed or 0, key=f"seed_{version}",
                           help=_("The same seed gives the same avatars."))
    reduction = st.checkbox(
        _("Summarise every categorical column with more than 4 values"),
        value=bool(chosen.use_categorical_reduction), key=f"reduction_{version}",
        help=_("Embeds them in a few numeric dimensions (categorical reduction). "
               "Columns with more than 100 values are always summarised so."))
    row_order = excluded and st.checkbox(
        _("Re-attach set-aside columns from each avatar's own original (sensitive)"),
        value=chosen.exclude_replacement_strategy == "row_order", key=f"row_order_{version}",
        help=_("Copies each person's own value: this can re-identify people. By default the value of the most "
               "similar real row is used instead."))
    return {"holdout": holdout, "ncp": int(ncp), "imputation": imputation, "seed": int(seed),
            "use_categorical_reduction": True if reduction else None,
            "exclude_replacement_strategy": "row_order" if row_order else "coordinate_similarity"}


def dataset_form(loaded: LoadedDataset, dataset: Dataset, current: LinkedRun | None, version: int, running: bool
                 ) -> Asked | None:
    """Linked tables' settings: the method, then in the form each table's k or epsilon (a series' reading), each
    link's method, the holdout of whole families, the seed and the weight of a person's children; on submit, every
    table avatarized together, measured and judged."""
    st.caption(_("Linked tables: {tables}.").format(tables=sizes_caption()))
    held = current.fitted.avatarizers_ if current else {}
    series = {link.child: link for link in dataset.links if link.method is LinkMethod.TIME_SERIES}
    refused = _("AvatarFastDP does not support time series ({tables}): choose Avatar, or mark them as tables of rows "
                "like any other on the Data page (no time column).").format(
        tables=", ".join(plain(name) for name in series)) if series else None
    method = method_choice(any(avatarizer.method_.name != "avatar" for avatarizer in held.values()), version, refused)
    with st.form("settings"):
        holdout = st.session_state.get(f"linked_holdout_{version}", current is None or current.held_out)
        st.subheader(_("Each table"), anchor=False)
        chosen = {name: series_settings(dataset.tables[name], series[name], frame, _own(current, name), version)
                  if name in series else _table_setting(method, name, frame, held.get(name), holdout, current,
                                                        version)
                  for name, frame in loaded.frames.items()}
        methods = _link_methods(dataset, current, offer_original_order=method == AVATAR, version=version)
        with st.expander(_("More settings")):
            parameters = _dataset_more(holdout, current, version)
        if not submit_button(running, refused=method == FAST_DP and refused is not None):
            return None
    asked, knowledge, frames = state.described_dataset(chosen, methods), state.attacker(), loaded.frames
    release = state.release_context()
    return _("Avatars of {tables}").format(tables=", ".join(frames)), lambda progress: generate_linked(
        asked, frames, parameters, knowledge=knowledge, fingerprint=loaded.fingerprint, search=False,
        progress=progress, release=release)


def _own(current: LinkedRun | None, name: str) -> dict[str, object]:
    """Table ``name``'s own parameters in the current run (none before a run)."""
    return current.dataset.tables[name].parameters if current and name in current.dataset.tables else {}


def _table_setting(method: str, name: str, frame: pd.DataFrame, held: object, holdout: bool,
                   current: LinkedRun | None, version: int) -> dict[str, object]:
    """A table's k (with the settings a fix applied, kept) or epsilon, starting at the current run's."""
    rows = number(len(frame), ",")
    if method == FAST_DP:
        return {"fast_dp_epsilon": epsilon_slider(
            _("epsilon for {table} ({rows} rows): privacy budget").format(table=name, rows=rows),
            getattr(held, "fast_dp_epsilon", None), f"linked_epsilon_{name}_{version}",
            _("Smaller epsilon adds more noise: better protection, less signal."))}
    largest = min(100, working_rows(len(frame), holdout) - 1)
    if largest <= 2:  # a slider needs two values: a table this small mixes 2 rows, the least k
        st.caption(_("k for {table} ({rows} rows): 2, the only k so few rows allow.").format(table=name, rows=rows))
        return {"k": 2}
    previous = getattr(held, "k", None) or suggested_k(working_rows(len(frame), holdout))
    kept = {key: value for key, value in _own(current, name).items()  # a table's own spread stays Avatar's
            if key not in Parameters.names("method") or key == "spread"}
    if "ncp" in kept:
        st.caption(_("{table}: people compared on {ncp} dimensions (the fix applied), kept.").format(
            table=plain(name), ncp=kept["ncp"]))
    return {"k": st.slider(
        _("k for {table} ({rows} rows): how many similar rows each avatar mixes").format(table=name, rows=rows),
        2, largest, min(previous, largest), key=f"linked_k_{name}_{version}",
        help=_("Small k keeps more detail; large k protects better. Proposed from the table's size: 10, or a tenth "
               "of its rows on a small table.")), **kept}


def _link_methods(dataset: Dataset, current: LinkedRun | None, *, offer_original_order: bool, version: int
                  ) -> dict[Link, LinkMethod]:
    """How the avatars of each child table find their parent (a series' measures need none: rebuilt from each
    person's avatar), starting at the current run's."""
    links = [link for link in dataset.links if link.method is not LinkMethod.TIME_SERIES]
    if not links:
        return {}
    st.subheader(_("Each link"), anchor=False)
    offered = [method for method in LINK_METHOD_LABELS
               if offer_original_order or method is not LinkMethod.ORIGINAL_ORDER]
    methods = {}
    for link in links:
        before = next((made.method for made in (current.dataset.links if current else ())
                       if (made.parent, made.child) == (link.parent, link.child)), LinkMethod.LINEAR_SUM_ASSIGNMENT)
        methods[link] = st.selectbox(
            _("How the avatars of {child} find their {parent}").format(child=link.child, parent=link.parent),
            offered, index=offered.index(before) if before in offered else 0,
            format_func=lambda value: _(LINK_METHOD_LABELS[value]), key=f"linked_link_{link.child}_{link.parent}_{version}",
            help=_("Each child avatar is given a parent avatar close to its own parent's place in the projection; the "
                   "number of children of each parent avatar follows the real ones."))
    return methods


def _dataset_more(holdout: bool, current: LinkedRun | None, version: int) -> Parameters:
    """The run's own settings: the holdout of whole families, the seed, the weight of a person's children."""
    holdout = st.toggle(
        _("Set half of the people aside as a holdout, with everything about them (from {rows} rows)").format(
            rows=number(HOLDOUT_MIN_ROWS)), value=holdout, key=f"linked_holdout_{version}",
        help=_("The holdout is never used to make avatars; the utility metrics compare with it. Off: every row "
               "gets an avatar and the metrics draw halves of the families."))
    seed = st.number_input(_("Seed"), 0, 2**32 - 1, current.fitted.seed_ if current else 0,
                           key=f"linked_seed_{version}", help=_("The same seed gives the same avatars."))
    link_weight = st.number_input(
        _("Weight of a person's children in their projection"), 0.1, 10.0, 1.0, step=0.1,
        key=f"linked_link_weight_{version}",
        help=_("How much the number of stays (and their mean place) counts when people are compared; 1: as one "
               "variable. Called link_weight on the command line."))
    return Parameters(holdout=holdout, seed=int(seed), link_weight=float(link_weight))


def series_settings(table: Table, link: Link, frame: pd.DataFrame, before: dict[str, object], version: int
                    ) -> dict[str, object]:
    """The Generate form's settings of a time series table (SPEC 13): how each person's measures are read (the
    grid's points, the components kept, the projection, the alignment) and put back on times; ``before``, the
    last run's values."""
    st.markdown(_("**{table}** ({rows} measures): a time series; each avatar of {parent} gets its measures, rebuilt "
                  "from its trajectory.").format(table=plain(table.name), rows=number(len(frame), ","), parent=plain(link.parent)))
    defaults = Parameters().with_values({key: value for key, value in before.items()
                                         if key in Parameters.names("series")})
    first, second, third = st.columns(3)
    chosen = {
        "nb_points": int(first.number_input(
            _("Points per curve"), 2, MAX_NB_POINTS, defaults.nb_points, key=f"series_points_{table.name}_{version}",
            help=_("Each person's measures are read at this many evenly spaced points of their own follow-up (nb_points; "
                   "5 to 20 keep a curve's shape)."))),
        "nf": int(second.number_input(
            _("Shapes kept per variable"), 1, MAX_NB_POINTS, defaults.nf, key=f"series_nf_{table.name}_{version}",
            help=_("The number of main shapes (functional principal components) kept of each variable's curves (nf): "
                   "more keeps more detail of each trajectory."))),
        "projection_type": third.selectbox(
            _("Each curve as"), list(PROJECTION_LABELS), index=list(PROJECTION_LABELS).index(defaults.projection_type),
            format_func=lambda value: _(PROJECTION_LABELS[value]), key=f"series_projection_{table.name}_{version}"),
    }
    first, second = st.columns(2)
    chosen["alignment"] = first.selectbox(
        _("Points per curve from"), list(ALIGNMENT_LABELS), index=list(ALIGNMENT_LABELS).index(defaults.alignment),
        format_func=lambda value: _(ALIGNMENT_LABELS[value]), key=f"series_alignment_{table.name}_{version}")
    chosen["unalignment"] = second.selectbox(
        _("Each avatar's times"), list(UNALIGNMENT_LABELS), index=list(UNALIGNMENT_LABELS).index(defaults.unalignment),
        format_func=lambda value: _(UNALIGNMENT_LABELS[value]), key=f"series_unalignment_{table.name}_{version}")
    return chosen


def sizes_caption() -> str:
    """The linked tables and their rows, in one line."""
    tables = state.dataset().tables
    return ", ".join(_("{table} ({rows} rows)").format(table=plain(name), rows=number(len(loaded.frame), ","))
                     for name, loaded in tables.items())


def at_a_glance(run: Run) -> None:
    """What the run kept, in cards: one table's distributions, relationships, relations between columns and the
    privacy targets met; linked tables' distributions per table, children per parent per link, each series'
    measures over time. Then where each FastDP table's epsilon goes."""
    st.subheader(_("At a glance"), anchor=False)
    if isinstance(run, GenerationRun):
        _table_cards(run)
    else:
        _dataset_cards(run)
    for name, avatarizer in run.avatarizers.items():
        if avatarizer.method_.paired:
            continue
        ledger = avatarizer.synthesizer_.ledger()
        title = _("Where epsilon = {epsilon} goes").format(epsilon=number(ledger["epsilon"], "g"))
        with st.expander(title if isinstance(run, GenerationRun) else f"{plain(name)}: {title}",
                         icon=":material/account_balance:"):
            st.dataframe(ledger_rows(ledger), hide_index=True)
            st.caption(not_covered_sentence(ledger))


def _table_cards(run: GenerationRun) -> None:
    signal = run.evaluation.signal
    met, applicable = run.evaluation.privacy_targets_met()
    broken = signal["broken_relations"]
    if broken.value is None:
        first, second, third = st.columns(3)
        kept = []
    else:  # four cards on two rows: on one, their labels would be cut
        (first, second), (*kept, third) = st.columns(2), st.columns(2)
    with first:
        st.metric(_("Each variable's distribution (Hellinger Mean)"), metric_text(signal["hellinger_mean"], "/ 100"))
        signal_badge(signal["hellinger_mean"])
    with second:
        st.metric(_("Relationships (Correlation Difference Ratio)"),
                  metric_text(signal["correlation_difference_ratio"], "/ 100"),
                  help=_(signal["correlation_difference_ratio"].interpretation))
        signal_badge(signal["correlation_difference_ratio"])
    for column in kept:  # only when a relation holds between the columns
        with column:
            shares = broken.breakdown["per_relation"]
            kept_count = sum(avatars <= originals for _relation, originals, avatars in shares)
            st.metric(_("Relations between columns kept"), _("{kept} of {total}").format(
                kept=kept_count, total=len(shares)), help=_(broken.interpretation))
            signal_badge(broken)
            st.caption(_("Broken relations: {share} of the avatars break the least kept one.").format(
                share=metric_text(broken, "%")))
    third.metric(_("Privacy targets met"), _("{met} of {applicable}").format(met=met, applicable=applicable),
                 help=_("Of the targets assessed for these avatars (see the Privacy page for each)."))


def _dataset_cards(run: LinkedRun) -> None:
    """Each person table with everything about its people first (what its verdict and fix judge), then each table
    alone, each link's children per parent, each series' measures over time."""
    persons = [(_("{table}, each person with everything about them").format(table=name), evaluation)
               for name, evaluation in run.evaluation.persons.items()]
    tables = [(_("{table}: each variable's distribution").format(table=name), evaluation.signal["hellinger_mean"])
              for name, evaluation in [*persons, *run.evaluation.tables.items()]]
    links = [(_("{link}: children per parent").format(link=link.replace(" -> ", " → ")),
              metrics["children_per_parent"]) for link, metrics in run.evaluation.links.items()
             if link not in run.evaluation.series]
    rows = [(None, tables, 3), (None, links, 2)] + [
        (_("{table}, each person's measures over time").format(table=run.evaluation.series_views[link].table),
         [(_(result.label), result) for result in metrics.values()], 4)
        for link, metrics in run.evaluation.series.items()]
    for heading, cards, per_row in rows:
        if heading:
            st.caption(plain(heading))
        for row in range(0, len(cards), per_row):
            for column, (label, result) in zip(st.columns(per_row), cards[row:row + per_row], strict=False):
                with column.container(border=True):
                    st.metric(plain(label), metric_text(result, "/ 100"))
                    signal_badge(result)
