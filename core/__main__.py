"""``python -m core``: see :mod:`core.cli`."""

import sys

from core.cli import main

sys.exit(main())
