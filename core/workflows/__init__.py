"""What the application does with the engine and the metrics: a ``run`` of one table and a ``linked_run`` of
several, on the one base of ``runs``, each from a ``plan`` (a table as described, the attacker's knowledge); their
``verdict`` with the fix checked by a re-run, the ``sweep`` of settings, the ``batch_run`` on Dask, the ``exposure``
levels and the ``latent`` maps; the fix search's ``search_space``. No Streamlit, no plotly."""
