"""What the application does with the engine and the metrics: a run, a sweep, advice. No Streamlit, no plotly."""
