"""The engine: reading and typing tables, encoding, imputation, projection, and the two methods (SPEC sections 2 to 4).

It imports nothing from the metrics, the workflows, the presentation or Streamlit.
"""
