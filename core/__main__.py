"""``python -m core``: see :mod:`core.cli`."""

import sys

from core.cli import main

if __name__ == "__main__":  # a batch run's local workers are processes that import this module again
    sys.exit(main())
