"""The cookiecutter template behind ``hermes plugins new``: data, plus the Jinja filters
cookiecutter loads from ``hermes_template_filters`` while rendering (nothing else is imported)."""
