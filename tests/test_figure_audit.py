"""The figure audit (issue 45, benchmarks/figure_audit.py) on three of its tables, one table, linked tables and a
time series: every figure the JSON and the verdict state equals its independent recomputation."""

from benchmarks.figure_audit import TABLES, audit_all

SMALL = ("AER::Affairs", "survival::bladder2", "nlme::Orthodont")


def test_every_figure_of_three_tables_equals_its_recomputation():
    audits = audit_all(tuple(table for table in TABLES if table.name in SMALL), show=lambda line: None)
    assert [audit.table for audit in audits] == list(SMALL)
    assert all(audit.checked >= 20 for audit in audits)
    assert [disagreement.line() for audit in audits for disagreement in audit.found] == []
