"""A session's data end with its tab, and the memory of a run let go goes back to the system (issue 46).

Streamlit keeps a session whose websocket closed for ``server.disconnectedSessionTTL`` seconds, so that a reload or a
dropped connection finds it again, then drops it from its storage without ending it: its uploaded files, its session
state (the real rows, the avatars) and its downloads stayed until another session happened to clean them up, and a
closed tab's download was still served. Each session is known here; one thread looks at them every :data:`SWEEP_S`
seconds (at most an eighth of that time) and ends each that has had no tab for half of it (a reload meanwhile keeps
everything), with Streamlit's own way of closing a session that must not resume, which removes its uploads and
downloads: every closed tab's session ends within that time, while Streamlit still holds it, and what it held is
dropped (Streamlit's loop keeps the last session it served in a variable until it serves another: with no other
session, an ended one kept its table and avatars). Once a session has ended or a run was replaced, what was freed is collected and handed back to the system (glibc keeps freed pages
otherwise: a server grew 28 MiB a run).
"""

from __future__ import annotations

import gc
import threading
import time
from dataclasses import dataclass

from streamlit import config, runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.state import SafeSessionState, get_session_state

from core.engine.io import release_freed_memory

SWEEP_S = 5.0



@dataclass
class Known:
    """A session as the sweeper knows it: its state, and when it was first seen without its tab (None: with it)."""

    state: SafeSessionState
    without_tab_since: float | None = None


_lock = threading.Lock()
_known: dict[str, Known] = {}  # by session id
_let_go = threading.Event()  # memory was let go since the last sweep
_sweeper: list[threading.Thread] = []


def register() -> None:
    """This session known to the sweeper (on every run of the app; the sweeper starts with the first), and the
    widgets it no longer draws forgotten."""
    forget_gone_widgets()
    context = get_script_run_ctx()
    if context is None or not runtime.exists():  # a test's AppTest: no server, no tab to close
        return
    with _lock:
        _known.setdefault(context.session_id, Known(context.session_state))
        if not _sweeper:
            _sweeper.append(threading.Thread(target=_sweep_forever, name="sessions", daemon=True))
            _sweeper[0].start()


def forget_gone_widgets() -> None:
    """Drop what Streamlit keeps of the widgets no longer drawn: their description (``WidgetMetadata``), kept for
    every widget ever drawn, holds the callables given to it (a ``format_func`` defined on a page holds that page's
    variables), so every run of the session stayed in memory (issue 46: 25 MiB a run of 20 000 rows; the Generate
    form's widgets change key with each run). A widget that has no value left is gone (Streamlit drops its value at
    the end of the run that did not draw it). Streamlit's own structures, pinned with its version: a test keeps it."""
    safe = get_session_state()
    with safe._lock:
        state = safe._state
        widgets, kept = state._new_widget_state, state._new_widget_state.states.keys() | state._old_state.keys()
        for widget_id in [widget_id for widget_id in widgets.widget_metadata if widget_id not in kept]:
            del widgets.widget_metadata[widget_id]


def let_go() -> None:
    """A run or a table was replaced: what it held goes back to the system at the next two sweeps (the second once
    the page that replaced it has finished with it)."""
    _let_go.set()


def sweep(server: runtime.Runtime, now: float, grace: float) -> list[str]:
    """End every session known that has had no tab for ``grace`` seconds at ``now``, and drop what it held; their
    ids."""
    ended = []
    with _lock:
        for session_id, known in list(_known.items()):
            if server.is_active_session(session_id):
                known.without_tab_since = None
            elif known.without_tab_since is None:
                known.without_tab_since = now
            elif now - known.without_tab_since >= grace:
                server.clear_user_info_for_session(session_id)  # ended on the event loop: uploads, downloads
                forget(known.state)
                del _known[session_id]
                ended.append(session_id)
    return ended


def forget(safe: SafeSessionState) -> None:
    """Every value and widget of a session dropped (its table, its runs, its uploads' bytes)."""
    with safe._lock:
        safe._state.clear()
        safe._state._new_widget_state.widget_metadata.clear()


def give_back(server: runtime.Runtime) -> None:
    """The downloads of the sessions ended removed (Streamlit's first pass after a session ends only marks them),
    unreachable objects collected (a run's frames sit in reference cycles), then glibc's free pages returned."""
    server.media_file_mgr.remove_orphaned_files()
    gc.collect()
    release_freed_memory()


def _sweep_forever() -> None:
    passes = 0  # of give_back still due: two, a sweep apart (a page may still hold the run it replaced at the first)
    while True:
        kept = config.get_option("server.disconnectedSessionTTL")  # Streamlit holds a session without its tab so long
        time.sleep(min(SWEEP_S, kept / 8))
        if not runtime.exists():
            continue
        server = runtime.get_instance()
        if _let_go.is_set():
            _let_go.clear()
            passes = 2
        if sweep(server, time.monotonic(), kept / 2):  # seen at most 1/8 late, ended 1/8 after
            passes = 2  # the sessions end on the event loop meanwhile: their files removed at the second pass
        if passes:
            give_back(server)
            passes -= 1
