"""Plugins that ship with hermes and load through the same door as everyone else's.

Each subpackage is registered under the ``hermes_agent.plugins`` entry-point group
in pyproject.toml, carries a plugin.yaml, and is always on.
"""
