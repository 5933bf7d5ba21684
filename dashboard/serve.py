"""``make run``'s entry point: Streamlit's own ``streamlit run app.py``, with its address lookups turned off.

Streamlit checks a websocket's origin against this machine's internal and external addresses, found by opening a
socket towards 8.8.8.8 and asking checkip.amazonaws.com, on every connection from another site's page while
offline (issue 46). The dashboard listens on this computer only (``.streamlit/config.toml``) and has nothing to
learn from outside: both are set to the loopback address before the server starts, so nothing is looked up,
whatever connects. ``python -m dashboard.serve [streamlit run's options]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from streamlit import net_util
from streamlit.web import cli

APP = Path(__file__).resolve().parents[1] / "app.py"


def main() -> None:
    net_util._internal_ip = net_util._external_ip = "127.0.0.1"  # known: never looked up (Streamlit caches them)
    sys.argv = ["streamlit", "run", str(APP), *sys.argv[1:]]
    sys.exit(cli.main())


if __name__ == "__main__":
    main()
