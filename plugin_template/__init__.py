"""The cookiecutter template behind ``hermes plugins new`` (data only; nothing here is imported)."""
