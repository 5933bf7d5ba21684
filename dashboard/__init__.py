"""Streamlit-side helpers shared by the pages: session state and small widgets. The engine stays in core/."""
