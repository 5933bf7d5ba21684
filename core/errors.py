"""The one exception type that carries a plain message for the user."""

from __future__ import annotations


class InputError(ValueError):
    """A file or parameter that cannot work, explained in one sentence.

    The message names the file, column or parameter, says what was expected and
    what to do. The command line prints it on one line and exits with code 2; the
    app shows it as is, or ``on_dashboard`` when what to do is said otherwise there
    (a field of a form rather than a command's option). Subclassing ``ValueError``
    keeps scikit-learn's convention for invalid parameters.
    """

    def __init__(self, message: str, *, on_dashboard: str | None = None):
        super().__init__(message)
        self.on_dashboard = on_dashboard

    def dashboard_text(self) -> str:
        """The message in the dashboard's words."""
        return self.on_dashboard or str(self)
