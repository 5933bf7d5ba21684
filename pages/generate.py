"""Generate: choose a method and its settings, then run once on submit; then, if wanted, the avatars of every row."""


import streamlit as st

from core.engine.methods import AvatarFastDP
from core.engine.parameters import (
    DEFAULT_NCP,
    HOLDOUT_MIN_ROWS,
    IMPUTATION_METHODS,
    MECHANISMS,
    SUGGESTED_EPSILON,
    SUGGESTED_K,
    Parameters,
)
from core.engine.split import Holdout, working_rows
from core.i18n import N_, _, number
from core.presentation.epsilon_ledger import ledger_rows, not_covered_sentence
from core.presentation.format import metric_text
from core.presentation.parameter_labels import IMPUTATION_LABELS, MECHANISM_LABELS
from core.workflows.run import describe
from core.workflows.search_space import EPSILON_STEPS
from core.workflows.verdict import generate_judged
from dashboard import jobs, language, state
from dashboard.text import plain
from dashboard.widgets import (
    avatars_of_every_row,
    columns_caption,
    holdout_plan,
    signal_badge,
    verdict_box,
)

AVATAR, FAST_DP = N_("Avatar: mix each person's nearest neighbours"), N_("AvatarFastDP: sample from a noisy model")

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Generate avatars"))
loaded = state.require_table()
plan, current, chosen, version = state.plan(), state.run(), state.current_parameters(), state.run_version()
n_rows = len(loaded.frame)
chosen_fast_dp = chosen.fast_dp_epsilon is not None
shown_method = st.session_state.get(f"method_{version}", FAST_DP if chosen_fast_dp else AVATAR)
st.caption(plain(columns_caption(loaded, plan)) + (  # said only while the method shown is theirs
    " " + _("The settings shown are those of the current avatars.")
    if current and (shown_method == FAST_DP) == isinstance(current.avatarizer.method_, AvatarFastDP) else ""))

# The method and the model sit outside the form: each shows its own options at once. Keys carry the run's
# version, so that the widgets show the current run's settings whichever page made it.
method = st.radio(_("Method"), [AVATAR, FAST_DP], index=int(chosen_fast_dp), horizontal=True,
                  format_func=_, key=f"method_{version}")
mechanism = chosen.mechanism
if method == FAST_DP:
    st.warning(_(
        "AvatarFastDP **uses differential-privacy mechanisms but is not end-to-end differentially private**: the "
        "projection of the data is computed on the real values without noise."), icon=":material/info:",
    )
    mechanism = st.selectbox(
        _("Model"), MECHANISMS, index=MECHANISMS.index(chosen.mechanism), key=f"mechanism_{version}",
        format_func=lambda name: _("{mechanism}: {description}").format(mechanism=name,
                                                                        description=_(MECHANISM_LABELS[name])),
    )

with st.form("settings"):
    k, epsilon = chosen.k or SUGGESTED_K, chosen.fast_dp_epsilon or SUGGESTED_EPSILON
    gmm_n_components, histogram_n_bins, bounds_percentile = (
        chosen.gmm_n_components, chosen.histogram_n_bins, chosen.bounds_percentile)
    if method == AVATAR:
        largest_k = max(2, min(100, working_rows(n_rows, chosen.holdout) - 1))
        k = st.slider(
            _("k: how many similar people each avatar mixes"), min_value=2, max_value=largest_k,
            value=min(k, largest_k), key=f"k_{version}",
            help=_("Small k keeps more detail; large k protects better. 10 to 20 is a common choice."),
        )
    else:
        epsilon = st.select_slider(
            _("epsilon: privacy budget"), options=EPSILON_STEPS, format_func=lambda value: number(value, "g"),
            value=min(EPSILON_STEPS, key=lambda step: abs(step - epsilon)), key=f"epsilon_{version}",
            help=_("Smaller epsilon adds more noise: better protection, less signal. The scale is logarithmic."),
        )
        with st.expander(_("Model options")):
            if mechanism == "gmm":
                gmm_n_components = st.number_input(_("Number of groups in the mixture"), 1, 50, gmm_n_components,
                                                   key=f"gmm_{version}")
            if mechanism == "histogram":
                histogram_n_bins = st.number_input(_("Bars per histogram"), 2, 200, histogram_n_bins,
                                                   key=f"bins_{version}")
            bounds_percentile = st.number_input(
                _("Extreme values trimmed on each side (%)"), 0.5, 49.5, bounds_percentile, step=0.5,
                key=f"bounds_{version}",
                help=_("Before the model is fitted, each axis of the latent space is cut at this percentile and its "
                       "mirror (5 keeps the 5 % to 95 % range), so that a few extreme people do not set the noise "
                       "level."),
            )
    with st.expander(_("More settings")):
        holdout = st.toggle(
            _("Set half of the rows aside as a holdout (from {rows} rows)").format(rows=number(HOLDOUT_MIN_ROWS)),
            value=chosen.holdout,
            key=f"holdout_{version}",
            help=_("The holdout is never used to make avatars; the utility metrics compare with it. Off: every row "
                   "gets an avatar and the metrics draw an approximate holdout."),
        )
        ncp = st.number_input(
            _("Dimensions used to compare people"), 1, 50, chosen.ncp or DEFAULT_NCP, key=f"ncp_{version}",
            help=_("How many axes of the projection (the summary of all columns) are used to find similar people; "
                   "5 is the usual choice. Called ncp on the command line."),
        )
        imputation = st.selectbox(
            _("Temporary filling of missing values"), IMPUTATION_METHODS,
            format_func=lambda name: _(IMPUTATION_LABELS[name]),
            index=IMPUTATION_METHODS.index(chosen.imputation), key=f"imputation_{version}",
            help=_("Missing values are filled only while avatars are made, then restored as missing."),
        )
        seed = st.number_input(_("Seed"), 0, 2**32 - 1, chosen.seed or 0, key=f"seed_{version}",
                               help=_("The same seed gives the same avatars."))
        reduction = st.checkbox(
            _("Summarise every categorical column with more than 4 values"),
            value=bool(chosen.use_categorical_reduction), key=f"reduction_{version}",
            help=_("Embeds them in a few numeric dimensions (categorical reduction). "
                   "Columns with more than 100 values are always summarised so."),
        )
        row_order = plan.excluded and st.checkbox(
            _("Re-attach set-aside columns from each avatar's own original (sensitive)"),
            value=chosen.exclude_replacement_strategy == "row_order", key=f"row_order_{version}",
            help=_("Copies each person's own value: this can re-identify people. By default the value of the most "
                   "similar real row is used instead."),
        )
    st.caption(holdout_plan(n_rows, chosen.holdout))
    running = jobs.current()
    submitted = st.form_submit_button(_("Generate avatars"), type="primary", icon=":material/auto_awesome:",
                                      key="FormSubmitter:settings-Generate avatars",  # the key Streamlit gave it
                                      disabled=running is not None)

jobs.show_error()
state.show_what_was_said()
if running is not None:  # started here or elsewhere, and still going: this page waits on it too
    st.info(_("Working on: {job}. It goes on whatever page you open; its progress is in the sidebar.").format(
        job=running.label), icon=":material/hourglass_top:")
    jobs.wait(running)
elif submitted:
    asked = Parameters(
        k=int(k) if method == AVATAR else None, fast_dp_epsilon=float(epsilon) if method == FAST_DP else None,
        mechanism=mechanism, gmm_n_components=int(gmm_n_components), histogram_n_bins=int(histogram_n_bins),
        bounds_percentile=float(bounds_percentile), ncp=int(ncp), imputation=imputation, holdout=holdout,
        seed=int(seed), use_categorical_reduction=True if reduction else None,
        exclude_replacement_strategy="row_order" if row_order else "coordinate_similarity",
    )
    plan_used = state.generation_plan()
    jobs.wait(jobs.start("run", _("Avatars with {settings}").format(settings=describe(asked)),
                         lambda progress: generate_judged(loaded.frame, plan_used, asked, table_name=loaded.name,
                                                          fingerprint=loaded.fingerprint, progress=progress)))

if current is not None:
    st.success(plain(current.summary()), icon=":material/check_circle:")
    if current.parameters.exclude_replacement_strategy == "row_order" and current.plan.excluded:
        st.warning(_("Set-aside columns were copied from each avatar's own original: check them before sharing."))
    signal = current.evaluation.signal
    met, applicable = current.evaluation.privacy_targets_met()
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
    verdict_box(current)
    if not current.avatarizer.method_.paired:
        ledger = current.avatarizer.synthesizer_.ledger()
        with st.expander(_("Where epsilon = {epsilon} goes").format(epsilon=number(ledger["epsilon"], "g")),
                         icon=":material/account_balance:"):
            st.dataframe(ledger_rows(ledger), hide_index=True)
            st.caption(not_covered_sentence(ledger))
    columns = st.columns(3)
    columns[0].page_link("pages/utility.py", label=_("See the utility"), icon=":material/insights:")
    columns[1].page_link("pages/privacy.py", label=_("See the privacy"), icon=":material/shield:")
    columns[2].page_link("pages/report.py", label=_("Download"), icon=":material/download:")

    if current.evaluation.holdout is Holdout.REAL:
        avatars_of_every_row(loaded, current)
