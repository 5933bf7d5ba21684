"""Generate, for linked tables: a k (or an epsilon) per table, a method per link, then every table avatarized
together on submit, measured and judged."""

import streamlit as st

from core.dataset import LinkMethod
from core.dataset.keys import check_keys
from core.engine.parameters import HOLDOUT_MIN_ROWS, SUGGESTED_EPSILON, Parameters, suggested_k
from core.engine.split import working_rows
from core.errors import InputError
from core.i18n import N_, _, number
from core.presentation.format import metric_text
from core.presentation.parameter_labels import LINK_METHOD_LABELS
from core.workflows.linked_run import generate_linked
from core.workflows.search_space import EPSILON_STEPS
from dashboard import jobs, language, state
from dashboard.linked import (
    kept_settings,
    linked_avatars_of_every_row,
    linked_verdict_box,
    series_settings,
    sizes_caption,
)
from dashboard.text import plain
from dashboard.widgets import signal_badge

AVATAR, FAST_DP = N_("Avatar: mix each person's nearest neighbours"), N_("AvatarFastDP: sample from a noisy model")

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Generate avatars"))
loaded, current, version = state.dataset(), state.linked_run(), state.run_version()
if state.plan_problems():
    st.error(plain(next(iter(state.plan_problems().values()))))
    st.page_link("pages/data.py", label=_("Go to Data"), icon=":material/table:")
    st.stop()
try:
    dataset = state.described_dataset()
    check_keys(dataset, loaded.frames)  # the rules on the data too, before the form
except InputError as error:  # the keys or links as described break a rule: the Data page says which
    st.error(plain(error))
    st.page_link("pages/data.py", label=_("Go to Data"), icon=":material/table:")
    st.stop()
st.caption(_("Linked tables: {tables}.").format(tables=sizes_caption()))
held = current.fitted.avatarizers_ if current else {}
method = st.radio(_("Method"), [AVATAR, FAST_DP], horizontal=True, format_func=_, key=f"linked_method_{version}",
                  index=int(any(avatarizer.method_.name != "avatar" for avatarizer in held.values())))
fast_dp_refused = method == FAST_DP and any(link.method is LinkMethod.TIME_SERIES for link in dataset.links)
if fast_dp_refused:
    st.error(_("AvatarFastDP does not support time series ({tables}): choose Avatar, or mark them as tables of rows "
               "like any other on the Data page (no time column).").format(tables=", ".join(
        plain(link.child) for link in dataset.links if link.method is LinkMethod.TIME_SERIES)),
        icon=":material/block:")
elif method == FAST_DP:
    st.warning(_(
        "AvatarFastDP **uses differential-privacy mechanisms but is not end-to-end differentially private**: the "
        "projection of the data is computed on the real values without noise."), icon=":material/info:")

with st.form("linked_settings"):
    holdout = st.session_state.get(f"linked_holdout_{version}", current is None or any(
        frame is not None for frame in current.fitted.holdout_data_.values()))
    st.subheader(_("Each table"), anchor=False)
    chosen = {}
    series = {link.child: link for link in dataset.links if link.method is LinkMethod.TIME_SERIES}
    for name, frame in loaded.frames.items():
        if name in series:
            chosen[name] = series_settings(dataset.tables[name], series[name], frame,
                                           current.dataset.tables[name].parameters if current and name in
                                           current.dataset.tables else {}, version)
        elif method == AVATAR:
            rows = working_rows(len(frame), holdout)
            largest = min(100, rows - 1)
            if largest <= 2:  # a slider needs two values: a table this small mixes 2 rows, the least k
                st.caption(_("k for {table} ({rows} rows): 2, the only k so few rows allow.").format(
                    table=name, rows=number(len(frame), ",")))
                chosen[name] = {"k": 2}
                continue
            previous = getattr(held.get(name), "k", None) or suggested_k(rows)
            chosen[name] = {"k": st.slider(
                _("k for {table} ({rows} rows): how many similar rows each avatar mixes").format(
                    table=name, rows=number(len(frame), ",")), 2, largest, min(previous, largest),
                key=f"linked_k_{name}_{version}",
                help=_("Small k keeps more detail; large k protects better. Proposed from the table's size: 10, or a "
                       "tenth of its rows on a small table.")), **kept_settings(current, name)}
        else:
            previous = getattr(held.get(name), "fast_dp_epsilon", None) or SUGGESTED_EPSILON
            chosen[name] = {"fast_dp_epsilon": float(st.select_slider(
                _("epsilon for {table} ({rows} rows): privacy budget").format(table=name, rows=number(len(frame), ",")),
                options=EPSILON_STEPS, format_func=lambda value: number(value, "g"),
                value=min(EPSILON_STEPS, key=lambda step: abs(step - previous)), key=f"linked_epsilon_{name}_{version}",
                help=_("Smaller epsilon adds more noise: better protection, less signal.")))}
    methods = {}
    if any(link.method is not LinkMethod.TIME_SERIES for link in dataset.links):
        st.subheader(_("Each link"), anchor=False)
        offered = [method_ for method_ in LINK_METHOD_LABELS
                   if method == AVATAR or method_ is not LinkMethod.ORIGINAL_ORDER]
        for link in dataset.links:
            if link.method is LinkMethod.TIME_SERIES:
                continue  # its measures are rebuilt from each person's avatar: no linkage to choose
            before = next((made.method for made in (current.dataset.links if current else ())
                           if (made.parent, made.child) == (link.parent, link.child)), LinkMethod.LINEAR_SUM_ASSIGNMENT)
            methods[link] = st.selectbox(
                _("How the avatars of {child} find their {parent}").format(child=link.child, parent=link.parent),
                offered, index=offered.index(before) if before in offered else 0,
                format_func=lambda value: _(LINK_METHOD_LABELS[value]),
                                            key=f"linked_link_{link.child}_{link.parent}_{version}",
                help=_("Each child avatar is given a parent avatar close to its own parent's place in the projection; "
                       "the number of children of each parent avatar follows the real ones."))
    with st.expander(_("More settings")):
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
    running = jobs.current()
    submitted = st.form_submit_button(_("Generate avatars"), type="primary", icon=":material/auto_awesome:",
                                      key="FormSubmitter:linked_settings-Generate avatars",
                                      disabled=running is not None or fast_dp_refused)

jobs.show_error()
state.show_what_was_said()
if running is not None:
    st.info(_("Working on: {job}. It goes on whatever page you open; its progress is in the sidebar.").format(
        job=running.label), icon=":material/hourglass_top:")
    jobs.wait(running)
elif submitted:
    asked = state.described_dataset(chosen, methods)
    parameters = Parameters(holdout=holdout, seed=int(seed), link_weight=float(link_weight))
    knowledge, frames = state.attacker(), loaded.frames
    jobs.wait(jobs.start("linked_run", _("Avatars of {tables}").format(tables=", ".join(frames)),
                         lambda progress: generate_linked(asked, frames, parameters, knowledge=knowledge,
                                                          fingerprint=loaded.fingerprint, progress=progress)))

if current is not None:
    st.success(plain(current.summary()), icon=":material/check_circle:")
    linked_verdict_box(current)
    st.subheader(_("At a glance"), anchor=False)
    tables = [(_("{table}: each variable's distribution").format(table=name), evaluation.signal["hellinger_mean"])
              for name, evaluation in current.evaluation.tables.items()]
    links = [(_("{link}: children per parent").format(link=link.replace(" -> ", " → ")),
              metrics["children_per_parent"]) for link, metrics in current.evaluation.links.items()
             if link not in current.evaluation.series]
    rows = [(None, tables, 3), (None, links, 2)] + [
        (_("{table}, each person's measures over time").format(table=current.evaluation.series_views[link].table),
         [(_(result.label), result) for result in metrics.values()], 4)
        for link, metrics in current.evaluation.series.items()]
    for heading, cards, per_row in rows:
        if heading:
            st.caption(plain(heading))
        for row in range(0, len(cards), per_row):
            for column, (label, result) in zip(st.columns(per_row), cards[row:row + per_row], strict=False):
                with column.container(border=True):
                    st.metric(plain(label), metric_text(result, "/ 100"))
                    signal_badge(result)
    columns = st.columns(3)
    columns[0].page_link("pages/linked_utility.py", label=_("See the utility and the relations"),
                         icon=":material/insights:")
    columns[1].page_link("pages/linked_privacy.py", label=_("See the privacy"), icon=":material/shield:")
    columns[2].page_link("pages/linked_report.py", label=_("Download"), icon=":material/download:")
    if current.held_out:
        linked_avatars_of_every_row(current, loaded.frames)
