"""Privacy: the verdict, then the three questions a regulator asks (singling out, linkability, inference), each with
its figures and targets, the attacker's knowledge, and who is most exposed; for linked tables, each person with
everything about them (their own columns and what their rows in the other tables add up to), or each table alone."""

from dataclasses import replace

import streamlit as st

from core.engine.split import Holdout
from core.i18n import _
from core.metrics.attack import Knowledge
from core.presentation import figures
from core.presentation.release_text import scenario_sentences
from core.workflows.run import GenerationRun
from dashboard import jobs, language, state
from dashboard.text import plain
from dashboard.widgets import attacker_form, criteria_sections, exposure_section, plot, scored_choice, verdict_box

language.use_session_language()  # first: this run's messages in the session's language
jobs.apply_ended()  # a job ended since the last run: its result first
st.title(_("Privacy"))
run = state.require_run()
one_table = isinstance(run, GenerationRun)
st.write(_(
    "The avatars are compared with the real people they were made from, in the latent space where similar people "
    "sit close together, and attacked as someone who knows part of a person's record would attack them."
) if one_table else _(
    "The avatars of each individual-level table are compared with the real people they were made from, each person "
    "with everything about them (their own columns and what their rows in the other tables add up to: the number "
    "of stays, the mean length of stay...), and attacked as someone who knows part of it."))
verdict_box(run)

st.header(_("What an attacker could know"))
made_with = run.knowledge
chosen = state.attacker() if state.attacker() != Knowledge() else made_with
if run.attacker_for(chosen) != made_with:
    st.caption(_("The figures below were computed for the variables the run was scored with: press *Run the "
                 "attacks* to score the avatars for the choice shown."))
for sentence in scenario_sentences(run.release, run.knowledge, run.held_out):
    st.markdown(f"- {plain(sentence)}")
asked = attacker_form(chosen, run.release.recipient, run.attacked_columns, _(
    "What someone could learn elsewhere: age, sex, postcode, dates of admission... Used to link records to avatars "
    "and to guess the sensitive variables.") if one_table else _(
    "Columns of a person's table, or what their rows in another table add up to (such as \"stays: number\"). All of "
    "them must belong to one person table."))
if asked is not None:
    knowledge, recipient = asked
    frames, release = state.frames(), replace(state.release_context(), recipient=recipient)
    jobs.wait(jobs.start("rescored", _("The attacks"), lambda progress: replace(run, release=release).rescored(
        knowledge, frames, progress, search=False), chosen=knowledge))
jobs.show_error()  # a bad choice: its one-line message, and nothing kept
state.show_what_was_said()

scored = scored_choice(run, _("Whose privacy"), "privacy_table", run.judged_tables())
if scored.evaluation.holdout is Holdout.APPROXIMATE:
    st.caption(_("Every row was avatarized, so no real person was kept apart as the attacks' control: each attack is "
                 "taken against its baseline (random linkage, guessing the most common value), which can only "
                 "overstate the risk. Make the avatars with a holdout for a true control."))
criteria_sections(scored.evaluation)
exposed, latent = state.exposure(run, scored)
if exposed is not None:
    exposure_section(scored.evaluation, exposed, dict(scored.evaluation.kinds), latent)
st.header(_("Distances"))
for name, figure in figures.privacy_figures(scored.evaluation.privacy).items():
    plot(figure, key=f"{name}{scored.key}")
