"""What a dataset is, below every other layer: tables, their columns' kinds and roles, primary keys and the links
between tables (SPEC 12), read from and written to its JSON schema. A single table is a dataset of one table."""

from core.dataset.dataset import Dataset
from core.dataset.links import Link, LinkMethod
from core.dataset.roles import Kind, Role
from core.dataset.table import Column, Table

__all__ = ["Column", "Dataset", "Kind", "Link", "LinkMethod", "Role", "Table"]
