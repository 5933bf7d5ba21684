"""Privacy: the verdict, then the three questions a regulator asks (singling out, linkability, inference), each with
its figures and targets, the attacker's knowledge, and who is most exposed."""

from dataclasses import replace

import streamlit as st

from core.engine.split import Holdout
from core.i18n import _
from core.metrics.attack import Knowledge
from core.presentation import figures
from core.workflows.verdict import rescored
from dashboard import jobs, language, state
from dashboard.widgets import attacker_form, criteria_sections, exposure_section, plot, verdict_box

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Privacy"))
run = state.require_run()
loaded = state.require_table()
evaluation = run.evaluation
st.write(_(
    "The avatars are compared with the real people they were made from, in the latent space where similar people "
    "sit close together, and attacked as someone who knows part of a person's record would attack them."
))
verdict_box(run)

st.header(_("What an attacker could know"))
scored = [name for name in run.avatarizer.kinds_ if name not in run.avatarizer.identifier_columns_]
chosen = state.attacker() if state.attacker() != Knowledge() else run.plan.knowledge
if chosen != run.plan.knowledge:
    st.caption(_("The figures below were computed for the variables the run was scored with: press *Run the "
                 "attacks* to score the avatars for the choice shown."))
knowledge = attacker_form(chosen, scored, _(
    "What someone could learn elsewhere: age, sex, postcode, dates of admission... Used to link records to avatars "
    "and to guess the sensitive variables."))
if knowledge is not None:
    plan = replace(run.plan, knowledge=knowledge)
    jobs.wait(jobs.start("rescored", _("The attacks"), lambda progress: rescored(run, plan, loaded.frame, progress),
                         knowledge=plan.knowledge))  # a bad choice: its one-line message, and nothing kept
jobs.show_error()
state.show_what_was_said()
if evaluation.holdout is Holdout.APPROXIMATE:
    st.caption(_("Every row was avatarized, so no real person was kept apart as the attacks' control: each attack is "
                 "taken against its baseline (random linkage, guessing the most common value), which can only "
                 "overstate the risk. Make the avatars with a holdout for a true control."))

criteria_sections(evaluation)

kinds = {name: kind for name, kind in run.avatarizer.kinds_.items() if name in scored}
exposure_section(evaluation, run.avatarizer.working_data_[scored], kinds, run.latent)

st.header(_("Distances"))
for name, figure in figures.privacy_figures(evaluation.privacy).items():
    plot(figure, key=name)
