"""How results are shown: value formats, plotly figures, the HTML report, the command line's summary."""
