"""Reading user tables and writing results without half-written files, one module per job: :mod:`.read` (a table
from a path or an upload, its format recognised), :mod:`.csv_reader`, :mod:`.excel_reader` and
:mod:`.parquet_reader` (each format's decisions), :mod:`.column_names`, :mod:`.messages` and :mod:`.said` (what
the readers share), :mod:`.csv_writer` (a frame's CSV text), :mod:`.write` and :mod:`.atomic` (files whole or not
at all) and :mod:`.memory` (the process's memory around large reads). Every problem raises an
:class:`~core.errors.InputError` that names the file.
"""

from core.engine.io.atomic import check_writable, together
from core.engine.io.csv_reader import CsvDialect, csv_dialect, read_csv_columns, say_several_offsets
from core.engine.io.csv_writer import csv_bytes, formula_like
from core.engine.io.excel_reader import read_workbook
from core.engine.io.memory import release_freed_memory, use_system_memory_pool
from core.engine.io.parquet_reader import normalised_parquet_frame
from core.engine.io.read import read_table
from core.engine.io.said import gathering
from core.engine.io.write import TABLE_SUFFIXES, json_text, write_csv, write_json, write_bytes, write_table, write_text

__all__ = ["TABLE_SUFFIXES", "CsvDialect", "check_writable", "csv_bytes", "csv_dialect", "formula_like", "gathering",
           "json_text", "normalised_parquet_frame", "read_csv_columns", "read_table", "read_workbook",
           "release_freed_memory", "say_several_offsets", "together", "use_system_memory_pool", "write_csv",
           "write_json", "write_bytes", "write_table", "write_text"]
