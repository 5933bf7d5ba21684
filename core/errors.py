"""The one exception type that carries a plain message for the user."""


class InputError(ValueError):
    """A file or parameter that cannot work, explained in one sentence.

    The message names the file, column or parameter, says what was expected and
    what to do. The command line prints it on one line and exits with code 2; the
    app shows it as is. Subclassing ``ValueError`` keeps scikit-learn's convention
    for invalid parameters.
    """
