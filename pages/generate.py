"""Generate: choose a method and its settings, then run once on submit."""

import streamlit as st

from core.errors import InputError
from core.fast_dp import MECHANISMS
from core.imputation import IMPUTATION_METHODS
from core.run import Settings, generate
from dashboard import state

EPSILONS = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]
AVATAR, FAST_DP = "Avatar: mix each person's nearest neighbours", "AvatarFastDP: sample from a noisy model"
MECHANISM_HELP = {
    "gaussian": "one multivariate normal distribution (best for one-peaked data)",
    "gmm": "a mixture of normal distributions (for data with several groups)",
    "histogram": "independent histograms per axis (simple, loses relationships)",
}

st.title("Generate avatars")
loaded = state.require_table()
plan = state.plan()
n_rows = len(loaded.frame)
st.caption(f"Table: {loaded.name}, {n_rows:,} rows, {loaded.frame.shape[1] - len(plan.dropped)} columns used.")

method = st.radio("Method", [AVATAR, FAST_DP], horizontal=True, key="method")
if method == FAST_DP:
    st.warning(
        "AvatarFastDP **uses differential-privacy mechanisms but is not end-to-end differentially private**: the "
        "projection of the data is computed on the real values without noise.",
        icon=":material/info:",
    )

with st.form("settings"):
    if method == AVATAR:
        holdout_possible = n_rows >= 500
        largest_k = max(2, min(100, (n_rows // 2 if holdout_possible else n_rows) - 1))
        k = st.slider(
            "k: how many similar people each avatar mixes", min_value=2, max_value=largest_k, value=min(10, largest_k),
            help="Small k keeps more detail; large k protects better. 10 to 20 is a common choice.",
        )
        epsilon, mechanism, gmm_n_components, histogram_n_bins, bounds_percentile = 1.0, "gaussian", 5, 10, 5.0
    else:
        k = 10
        epsilon = st.select_slider(
            "epsilon: privacy budget", options=EPSILONS, value=1.0, format_func=lambda value: f"{value:g}",
            help="Smaller epsilon adds more noise: better protection, less signal. The scale is logarithmic.",
        )
        mechanism = st.selectbox(
            "Model", MECHANISMS, format_func=lambda name: f"{name}: {MECHANISM_HELP[name]}",
        )
        with st.expander("Model options"):
            gmm_n_components = st.number_input("Number of components (gmm)", 1, 50, 5)
            histogram_n_bins = st.number_input("Bins per axis (histogram)", 2, 200, 10)
            bounds_percentile = st.number_input(
                "Clipping percentile", 0.5, 49.5, 5.0, step=0.5,
                help="Each latent axis is clipped to this percentile and its mirror (5 means 5 % to 95 %).",
            )
    with st.expander("More settings"):
        holdout = st.toggle(
            "Set half of the rows aside as a holdout (from 500 rows)", value=True,
            help="The holdout is never used to make avatars; the utility metrics compare with it. Off: every row "
            "gets an avatar and the metrics draw an approximate holdout.",
        )
        ncp = st.number_input(
            "Latent dimensions (ncp)", 1, 50, 5,
            help="How many axes of the projection are used to compare people (5 is the usual choice).",
        )
        imputation = st.selectbox(
            "Temporary filling of missing values", IMPUTATION_METHODS,
            help="Missing values are filled only while avatars are made, then restored as missing.",
        )
        seed = st.number_input("Seed", 0, 2**32 - 1, 0, help="The same seed gives the same avatars.")
        reduction = st.checkbox(
            "Categorical reduction", help="Embed categorical columns with many values in a few numeric dimensions."
        )
        exclude_strategy = "coordinate_similarity"
        if plan.excluded:
            row_order = st.checkbox(
                "Re-attach set-aside columns from each avatar's own original (sensitive)",
                help="Copies each person's own value: this can re-identify people. By default the value of the most "
                "similar real row is used instead.",
            )
            exclude_strategy = "row_order" if row_order else "coordinate_similarity"
    submitted = st.form_submit_button("Generate avatars", type="primary", icon=":material/auto_awesome:")

if submitted:
    settings = Settings(
        method="avatar" if method == AVATAR else "fast_dp", k=int(k), epsilon=float(epsilon), mechanism=mechanism,
        gmm_n_components=int(gmm_n_components), histogram_n_bins=int(histogram_n_bins),
        bounds_percentile=float(bounds_percentile), ncp=int(ncp), imputation=imputation, holdout=holdout,
        seed=int(seed), use_categorical_reduction=reduction, exclude_strategy=exclude_strategy,
    )
    bar = st.progress(0.0, text="Starting")
    try:
        st.session_state["run"] = generate(
            loaded.frame, plan, settings, table_name=loaded.name, fingerprint=loaded.fingerprint,
            progress=lambda step, share: bar.progress(share, text=f"{step}…"),
        )
    except InputError as error:
        bar.empty()
        st.error(str(error))
        st.stop()
    st.rerun()

current = state.run()
if current is not None:
    st.success(current.summary(), icon=":material/check_circle:")
    if current.settings.exclude_strategy == "row_order" and current.plan.excluded:
        st.warning("Set-aside columns were copied from each avatar's own original: check them before sharing.")
    hellinger = current.evaluation.signal["hellinger_mean"].value
    hidden = current.evaluation.privacy["hidden_rate"]
    met, applicable = current.evaluation.privacy_targets_met()
    first, second, third = st.columns(3)
    first.metric("Signal kept (Hellinger Mean)", f"{hellinger:.1f} / 100" if hellinger is not None else "n/a")
    second.metric(
        "Hidden rate", f"{hidden.value:.1f} %" if hidden.value is not None else "n/a (no pairing)",
        help="Share of people whose own avatar is not the closest one to them.",
    )
    third.metric(
        "Privacy targets met", f"{met} of {applicable}",
        help="The privacy metrics that reach their target, of those that apply to this method (see Privacy).",
    )
    columns = st.columns(3)
    columns[0].page_link("pages/utility.py", label="See the utility", icon=":material/insights:")
    columns[1].page_link("pages/privacy.py", label="See the privacy", icon=":material/shield:")
    columns[2].page_link("pages/report.py", label="Download", icon=":material/download:")
