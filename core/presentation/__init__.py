"""How results are shown: value formats (``format``, ``parameter_labels``), the texts of a verdict, an analysis and
a risk profile, plotly figures (``figures``, ``analysis_figures``, ``series_figures``), the HTML ``report``, the
``metrics_json``, the command line's ``summary``, the ``sweep_table``, the ``epsilon_ledger`` and a run's
downloadable ``run_files`` (one table's or linked tables' alike)."""
