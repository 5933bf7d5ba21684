"""Long work that goes on whatever page the user opens: a generation, the avatars of every row, a new attacker's
scoring, a setting taken from the sweep.

The work runs in a thread of its own (with the session's language), never in the page's script: leaving the page
stops the page's script, not the work. The page that starts it waits on it with a progress bar (each step named,
the seconds so far); the sidebar shows it on every other page, refreshed every second, and when it ends the result
is applied to the session (the new run, or its one-line error, said on the next page shown), unless other data were
loaded meanwhile: a run belongs to the data it was made from, and is then set aside, said. A session whose tab is
closed stops its job at the next step, and so does a job another one replaces.

A run that misses a target is shown at once, its fix searched by a second job (issue 51: the avatars and their
figures in seconds, the fix after them, each setting tried said): :func:`start_fix_search`.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core.errors import InputError
from core.i18n import _, number
from core.workflows.runs import Run
from dashboard import state
from dashboard.text import plain

Progress = Callable[[str, float], None]
JOB_KEY = "job"
FIX_SEARCH = "fix search"  # the kind of the job that looks for a run's fix
POLL_S = 0.25


class Cancelled(Exception):
    """The session that started the job is gone."""


@dataclass
class Job:
    """One piece of work and what it has done so far. ``kind`` names what its result becomes (see
    :data:`APPLY`); ``label`` says what it is, for the sidebar."""

    kind: str
    label: str
    started: float = field(default_factory=time.monotonic)
    step: str = ""
    share: float = 0.0
    result: Any = None
    error: str | None = None
    done: bool = False
    cancelled: bool = False  # another job replaced it: it stops at its next step
    context: dict[str, Any] = field(default_factory=dict)  # what the page needs to apply the result

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def progress(self, step: str, share: float) -> None:
        self.step, self.share = step, share

    def text(self) -> str:
        """``Generating the avatars… (12 s)``: the step, in the language shown, and the time so far."""
        return _("{step}… ({seconds} s)").format(step=_(self.step) if self.step else _("Starting"),
                                                 seconds=number(self.seconds, ".0f"))


def start(kind: str, label: str, make: Callable[[Progress], Any], **context: Any) -> Job:
    """``make(progress)`` started in a thread, as the session's job (the session's language carried over); the job
    it replaces, if still going, is stopped."""
    job = Job(kind, label, context={"source": state.source_id(), **context})
    session = _session_id()
    replaced = current()
    if replaced is not None:
        replaced.cancelled = True

    def progress(step: str, share: float) -> None:
        if job.cancelled or session is not None and not _alive(session):
            raise Cancelled
        job.progress(step, share)

    def work() -> None:
        try:
            job.result = make(progress)
        except InputError as error:
            job.error = error.dashboard_text()
        except Cancelled:
            job.error = _("Stopped: the page was closed.")
        finally:
            job.done = True

    st.session_state[JOB_KEY] = job
    threading.Thread(target=contextvars.copy_context().run, args=(work,), daemon=True).start()
    return job


def current() -> Job | None:
    return st.session_state.get(JOB_KEY)


def start_fix_search(run: Run) -> Job:
    """The fix search of ``run`` (shown already) on the originals loaded, as the session's job."""
    frames = state.frames()
    return start(FIX_SEARCH, _("The fix search"), lambda progress: run.with_fix_search(frames, progress), judged=run)


def fix_search_of(run: Run) -> Job | None:
    """The job searching ``run``'s fix, if one is going."""
    job = current()
    return job if job is not None and job.kind == FIX_SEARCH and state.same_figures(job.context["judged"], run) else None


def wait(job: Job) -> None:
    """Wait on ``job`` with a progress bar (a rerun of this page, the user going elsewhere, leaves the job going),
    then apply its result: the page reruns the app, so that the sidebar and every page show it."""
    bar = st.progress(job.share, text=job.text())
    while not job.done:
        time.sleep(POLL_S)
        bar.progress(min(max(job.share, 0.0), 1.0), text=job.text())
    bar.empty()
    finish(job)


def finish(job: Job) -> None:
    """A job that has ended applied to the session (its result, or its error said once), then the app rerun."""
    if st.session_state.get(JOB_KEY) is job:
        del st.session_state[JOB_KEY]
    if job.error is not None:
        st.session_state["job_error"] = job.error
    elif job.context["source"] != state.source_id():  # another table loaded meanwhile: not attached to it
        st.session_state["job_error"] = _("{job} ended after other data were loaded: its result belongs to the "
                                          "data it was made from, so it was set aside, not attached to these.").format(
            job=job.label)
    else:
        APPLY[job.kind](job)
    st.rerun()


def apply_ended() -> None:
    """The session's job, when it has ended since the last run (a fix search ends while the user reads a page),
    applied before the page is drawn: each page calls it first."""
    job = current()
    if job is not None and job.done:
        finish(job)


def show_error() -> None:
    """The one-line error of a job that ended on a bad input (once, on the page shown next)."""
    error = st.session_state.pop("job_error", None)
    if error:
        st.error(plain(error))


@st.fragment(run_every=1.0)
def sidebar_status() -> None:
    """The session's job in the sidebar, on every page: its name, step and time; applied when it ends."""
    job = current()
    if job is None:
        return
    if job.done:
        finish(job)
    st.caption(plain(job.label))
    st.progress(min(max(job.share, 0.0), 1.0), text=job.text())


def _session_id() -> str | None:
    context = get_script_run_ctx()
    return None if context is None else context.session_id


def _alive(session: str) -> bool:
    """Whether the browser session is still there (a closed tab: its session ends)."""
    return not runtime.exists() or runtime.get_instance().is_active_session(session)


def _taken(job: Job) -> None:
    """A run made to be the current one (of one table or of linked tables), and what to say of it, if anything;
    its fix searched next when it misses a target."""
    state.set_run(job.result)
    if job.context.get("said"):
        state.say_after_rerun(job.context["said"])
    _search_if_needed()


def _rescored(job: Job) -> None:
    """The run attacked again, for its release (its recipient, decisions 6.7): the attacker as chosen (not as the
    recipient widened it) is kept; its fix searched next when it misses a target."""
    state.set_attacker(job.context.get("chosen", job.result.knowledge))
    state.set_run(job.result)  # with the recipient its attacks were run for
    _search_if_needed()


def _search_if_needed() -> None:
    run = state.run()
    if run is not None and run.awaits_fix_search:
        start_fix_search(run)


APPLY: dict[str, Callable[[Job], None]] = {  # what each kind of result becomes in the session
    "run": _taken, "release": lambda job: state.set_release_run(job.result), "rescored": _rescored,
    FIX_SEARCH: lambda job: state.set_fix_search(job.context["judged"], job.result),
}
