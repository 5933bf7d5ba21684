"""The engine: loading, typing, projection, avatar synthesis. Never imports Streamlit."""

from core.engine.io import read_table, write_csv
from core.engine.pipeline import Avatarizer
from core.engine.projection import Projection
from core.errors import InputError

__all__ = ["Avatarizer", "InputError", "Projection", "read_table", "write_csv"]
