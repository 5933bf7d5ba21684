"""A session without its tab ends (dashboard/sessions.py, issue 46)."""

from pathlib import Path

from streamlit.runtime.state import SafeSessionState, SessionState

from dashboard import sessions


class Server:
    """The two calls the sweep makes of Streamlit's runtime."""

    def __init__(self, active: set[str]):
        self.active, self.ended = active, []

    def is_active_session(self, session_id: str) -> bool:
        return session_id in self.active

    def clear_user_info_for_session(self, session_id: str) -> None:
        self.ended.append(session_id)


def known(table: str) -> sessions.Known:
    """A session whose state holds ``table``."""
    state = SafeSessionState(SessionState(), lambda: None)
    state["table"] = table
    return sessions.Known(state)


def test_a_session_ends_once_it_has_had_no_tab_for_the_grace_and_a_reload_meanwhile_keeps_it(monkeypatch):
    a, b = known("a's rows"), known("b's rows")
    monkeypatch.setattr(sessions, "_known", {"a": a, "b": b})
    server = Server({"a", "b"})
    assert sessions.sweep(server, 0.0, 30.0) == []
    server.active = {"a"}  # b's tab closed
    assert sessions.sweep(server, 10.0, 30.0) == [] and sessions.sweep(server, 39.0, 30.0) == []
    server.active = {"a", "b"}  # reloaded within the grace: everything found again
    assert sessions.sweep(server, 45.0, 30.0) == [] and b.state["table"] == "b's rows"
    server.active = {"a"}  # closed again: the grace starts again
    assert sessions.sweep(server, 50.0, 30.0) == [] and sessions.sweep(server, 79.0, 30.0) == []
    assert sessions.sweep(server, 80.0, 30.0) == ["b"] and server.ended == ["b"]
    assert "table" not in b.state and a.state["table"] == "a's rows"  # b's data dropped, whoever still holds b
    assert list(sessions._known) == ["a"]  # b forgotten, a kept
    assert sessions.sweep(server, 500.0, 30.0) == [] and server.ended == ["b"]  # ended once


def run_app_py_as_the_server_does(monkeypatch) -> list[dict]:
    """AppTest runs a page without ``app.py`` after its first run (it takes the pages/ folder for the old multipage
    layout); the server runs ``app.py`` every time. Each run's globals of ``app.py``, in order."""
    from streamlit.runtime.scriptrunner import script_runner

    runs = []

    def as_the_server_does(main_script_path: str) -> None:
        code = compile(Path(main_script_path).read_text(), main_script_path, "exec")
        runs.append({"__name__": "__main__", "__file__": main_script_path})
        exec(code, runs[-1])  # noqa: S102

    monkeypatch.setattr(script_runner, "_mpa_v1", as_the_server_does)
    return runs


def test_the_widgets_a_run_no_longer_draws_are_forgotten_with_what_they_hold(monkeypatch):
    """Issue 46: Streamlit kept the description of every widget ever drawn, and with it the page's variables its
    callables hold (the Generate form's widgets change key with each run: each run's avatars stayed, 25 MiB a run)."""
    from tests.dashboard.test_app import generate, start

    run_app_py_as_the_server_does(monkeypatch)
    app, described = start(), []
    for _ in range(4):
        generate(app)  # the Generate form drawn anew under keys of the run's version
        described.append(len(app.session_state._state._state._new_widget_state.widget_metadata))
    assert described[1] == described[2] == described[3], described  # widgets of earlier runs forgotten


def test_app_py_keeps_no_table_nor_run_in_its_globals(monkeypatch):
    """Issue 46: Streamlit keeps the last run of ``app.py`` as ``sys.modules["__main__"]``, whichever session ran it:
    its global ``loaded`` and ``run`` held a 300 000-row table and its avatars after their tab had closed."""
    import numpy as np
    import pandas as pd

    from tests.dashboard.test_app import generate, start

    runs = run_app_py_as_the_server_does(monkeypatch)
    generate(start())
    assert runs
    for names in runs:
        for name, value in names.items():
            held = getattr(value, "__dict__", {}) if not isinstance(value, type) else {}
            assert not isinstance(value, (pd.DataFrame, np.ndarray)) and not any(
                isinstance(inner, (pd.DataFrame, np.ndarray)) for inner in held.values()), name
