"""Property-based differential tests against NumPy (hypothesis); see conftest.py for the settings."""
