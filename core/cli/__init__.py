"""The command line of SPEC section 7: ``python -m core avatarize | evaluate | sweep ...``.

Every error is one line on stderr, naming the file, column or parameter, with exit
code 2 and no output file written.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.cli.avatarize import avatarize
from core.cli.evaluate import evaluate_command
from core.cli.parser import EXIT_INPUT_ERROR, build_parser, say
from core.cli.sweep import sweep
from core.engine.io import use_system_memory_pool
from core.errors import InputError

EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by Ctrl-C
COMMANDS = {"avatarize": avatarize, "evaluate": evaluate_command, "sweep": sweep}


def main(argv: Sequence[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    use_system_memory_pool()
    try:
        return COMMANDS[arguments.command](arguments)
    except InputError as error:
        say("error", error)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt:
        say("error", "interrupted; a run in batches keeps the parts it wrote: run the same command again to resume.")
        return EXIT_INTERRUPTED
