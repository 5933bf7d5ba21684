"""The engine: loading, typing, projection, avatar synthesis. Never imports Streamlit."""

from core.errors import InputError
from core.io import read_table, write_csv
from core.pipeline import Avatarizer
from core.projection import Projection

__all__ = ["Avatarizer", "InputError", "Projection", "read_table", "write_csv"]
