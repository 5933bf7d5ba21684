"""What a dataset is, below every other layer: tables, their columns' kinds and roles, primary keys and the links
between tables (SPEC 12), read from and written to its JSON schema. A single table is a dataset of one table.

The names are imported on first use (PEP 562): ``core.dataset.roles``, which the command line's parser reads, then
costs no pandas (``import core.cli`` took 0.5 s of CPU through it: issue 46)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.dataset.dataset import Dataset
    from core.dataset.links import Link, LinkMethod
    from core.dataset.roles import Kind, Role
    from core.dataset.table import Column, Table

_MODULES = {"Dataset": "dataset", "Link": "links", "LinkMethod": "links", "Kind": "roles", "Role": "roles",
            "Column": "table", "Table": "table"}
__all__ = ["Column", "Dataset", "Kind", "Link", "LinkMethod", "Role", "Table"]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return getattr(importlib.import_module(f"core.dataset.{_MODULES[name]}"), name)
    raise AttributeError(f"module 'core.dataset' has no attribute {name!r}")
