"""The engine: loading, typing, projection, avatar synthesis. Never imports Streamlit."""

from core.errors import InputError
from core.engine.io import read_table, write_csv
from core.engine.pipeline import Avatarizer
from core.engine.projection import Projection

__all__ = ["Avatarizer", "InputError", "Projection", "read_table", "write_csv"]
