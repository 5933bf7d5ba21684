"""The choices a run's parameters take, written once and read by the engine, the command line, the pages and the
JSON. Plain Python, imported by the command line's parser before any numerical library: ``python -m core --help``
and a mistyped option answer at once."""

from __future__ import annotations

MECHANISMS = ("gaussian", "gmm", "histogram")  # AvatarFastDP's models (SPEC 4)
IMPUTATION_METHODS = ("fast_knn", "knn", "mode", "median", "mean")  # temporary filling of missing values (SPEC 2)
EXCLUSION_STRATEGIES = ("coordinate_similarity", "row_order")  # how set-aside columns come back (SPEC 2)
PART_FORMATS = ("parquet", "csv")  # a batch run's parts (SPEC 10)
