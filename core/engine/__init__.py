"""The engine (SPEC sections 2 to 4, 10, 12, 13): reading and writing tables (``io/``), typing (``schema``,
``table_typing``, ``identifiers``), ``encoding``, ``imputation``, the categorical ``reduction``, the ``projection``,
the holdout ``split``, the ``parameters``, the pipeline's ``stages`` composed by the ``Avatarizer`` (``pipeline``)
with the ``methods`` (``avatar``, ``fast_dp/``), the ``kept_relations``, linked tables (``dataset_avatarizer``,
``linked_tables`` with each kind of link in ``link_kinds``, ``linkage``, ``series_tables``, ``time_series``) and
tables beyond memory (``sources``, ``batches``, ``batched``).

It imports nothing from the metrics, the workflows, the presentation or Streamlit.
"""
