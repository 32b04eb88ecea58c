"""Plugins bundled with hermes; installed as the package ``hermes_bundled_plugins``.

Each ``<name>/`` or ``<category>/<name>/`` directory is a directory plugin with a
plugin.yaml and an ``__init__.py``; the host finds them by path, never by import.
"""
