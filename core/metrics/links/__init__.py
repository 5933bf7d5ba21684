"""The metrics of a link between two tables (SPEC 12, Metrics: Relations), one module per formula."""
