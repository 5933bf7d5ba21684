"""The metrics of a link between two tables (SPEC 12, Metrics: Relations), one module per formula, each a
``compute(LinkContext)`` listed in the registry's ``LINK_METRICS``; ``join`` makes the parent-child joins two of them
compare."""
