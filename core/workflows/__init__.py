"""What the application does with the engine and the metrics: a ``run`` of one table and a ``linked_run`` of
several, read alike through ``runs``; their ``verdict`` with the fix checked by a re-run, the ``sweep`` of settings,
the ``batch_run`` on Dask, the ``exposure`` map; the fix search's ``search_space``. No Streamlit, no plotly."""
