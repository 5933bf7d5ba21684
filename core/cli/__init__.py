"""The command line of SPEC section 7: ``python -m core avatarize | evaluate | sweep ...``.

Every error is one line on stderr, naming the file, column or parameter, with exit
code 2 and no output file written.
"""

from __future__ import annotations

import importlib
import signal
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from core.cli.parser import EXIT_INPUT_ERROR, build_parser, say
from core.engine.locks import output_locks
from core.errors import InputError

EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by Ctrl-C
# Each command's module, imported when it runs: a plain avatarize never imports the analyses, Dask or plotly.
COMMANDS = {"avatarize": ("core.cli.avatarize", "avatarize"), "evaluate": ("core.cli.evaluate", "evaluate_command"),
            "sweep": ("core.cli.sweep", "sweep")}


def main(argv: Sequence[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    warnings.showwarning = _warning_line
    signal.signal(signal.SIGTERM, _terminated)  # a kill is an interruption: said, and the work folder named
    try:
        from core.engine.io import use_system_memory_pool

        use_system_memory_pool()
        module, function = COMMANDS[arguments.command]
        with output_locks(outputs(arguments)):
            return getattr(importlib.import_module(module), function)(arguments)
    except InputError as error:
        say("error", error)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt as interruption:
        say("error", str(interruption) or "interrupted before any output was written.")
        return EXIT_INTERRUPTED


def _terminated(number: int, frame: object) -> None:
    raise KeyboardInterrupt


OUTPUT_OPTIONS = ("out", "json", "report", "paired_out", "holdout_out")


def outputs(arguments: object) -> list[tuple[str, Path]]:
    """The outputs a command writes, each with its option: locked while it runs (:mod:`core.engine.locks`)."""
    return [(f"--{name.replace('_', '-')}", Path(value)) for name in OUTPUT_OPTIONS
            if (value := getattr(arguments, name, None))]


def _warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    """A warning no step turned into its own words (a library's, from a model fit) as one line, not Python's two
    with a file and a line of source. pandas' PerformanceWarning is advice to the code's authors (join columns at
    once), not to the user: left unsaid (issue 47: "DataFrame is highly fragmented" printed on wide linked tables)."""
    if category.__name__ == "PerformanceWarning":
        return
    say("warning", " ".join(str(message).split()))
