"""The workbench without its dashboard, in layers each importing only those below it: ``dataset`` (what a dataset
is), ``engine`` (reading, typing, projection, the two methods, linked tables, batches), ``metrics`` (signal,
privacy, the analyses), ``workflows`` (a run, its verdict and fix, a sweep), ``presentation`` (texts, figures, the
report, the JSON) and ``cli`` (the command line). Never imports Streamlit.

The names below are imported on first use (PEP 562), so that importing a light module of the package (the command
line's parser) does not import the numerical libraries.
"""

from __future__ import annotations

import importlib

__all__ = ["Avatarizer", "Dataset", "DatasetAvatarizer", "InputError", "Parameters", "Projection", "read_table",
           "write_csv"]
_WHERE = {"Avatarizer": "core.engine.pipeline", "Dataset": "core.dataset",
          "DatasetAvatarizer": "core.engine.dataset_avatarizer", "InputError": "core.errors", "Parameters": "core.engine.parameters", "Projection": "core.engine.projection",
          "read_table": "core.engine.io", "write_csv": "core.engine.io"}


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module 'core' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
