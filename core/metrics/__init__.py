"""Signal and privacy metrics (SPEC sections 5 and 6), one module and one result object per metric, listed in
``registry``; the attacks' shared parts (``attack``, ``space``, ``context``), the ``criteria`` a regulator asks,
the ``evaluation`` of one table and the ``linked_evaluation`` of several, with ``links/`` and ``series/`` for
theirs and the names of a person's ``aggregates``, the ``risk_profile`` and the study ``analysis/`` (SPEC 9)."""
