"""Privacy, for linked tables: the verdict, what an attacker could know of a person (their own columns and what
their descendants' rows add up to), then the three questions for each person table with everything about them, or
for each table alone."""

import streamlit as st

from core.i18n import _
from core.presentation import figures
from core.workflows.linked_run import person_evaluation, rescored_linked
from dashboard import jobs, language, state
from dashboard.linked import evaluation_choice, linked_verdict_box, require_linked_run
from dashboard.widgets import attacker_form, criteria_sections, exposure_section, plot

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Privacy"))
run = require_linked_run()
st.write(_("The avatars of each individual-level table are compared with the real people they were made from, each "
           "person with everything about them (their own columns and what their rows in the other tables add up "
           "to: the number of stays, the mean length of stay...), and attacked as someone who knows part of it."))
linked_verdict_box(run)

st.header(_("What an attacker could know"))
people = list(run.verdict.persons)
scored = sorted({column for name in people for column in person_evaluation(run.evaluation, name).kinds})
chosen = run.knowledge
knowledge = attacker_form(chosen, scored, _(
    "Columns of a person's table, or what their rows in another table add up to (such as \"stays: number\"). All of "
    "them must belong to one person table."))
if knowledge is not None:
    frames = state.dataset().frames
    jobs.wait(jobs.start("linked_rescored", _("The attacks"),
                         lambda progress: rescored_linked(run, knowledge, frames, progress)))
jobs.show_error()
state.show_what_was_said()

chosen_key, evaluation = evaluation_choice(run, _("Whose privacy"), "privacy_table")
criteria_sections(evaluation)
if evaluation.split is not None and run.dataset.is_individual_level(chosen_key.split(":", 1)[1]):  # people's rows
    exposure_section(evaluation, evaluation.split.originals, dict(evaluation.kinds))
st.header(_("Distances"))
for figure_name, figure in figures.privacy_figures(evaluation.privacy).items():
    plot(figure, key=f"{figure_name}_{chosen_key}")
