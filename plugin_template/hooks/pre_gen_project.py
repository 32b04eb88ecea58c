"""Refuse a plugin name that would not work as an entry-point name, a module name and a config key."""

import re
import sys

NAME = "{{ cookiecutter.plugin_name }}"
KIND = "{{ cookiecutter.kind }}"
KINDS = ("hooks", "tools", "memory-provider", "context-engine")

if not re.fullmatch(r"[a-z][a-z0-9_]{0,47}", NAME):
    print(f"error: plugin_name {NAME!r} must start with a lower-case letter and use only a-z, 0-9 and '_' (e.g. 'rm_guard')", file=sys.stderr)
    sys.exit(1)
if KIND not in KINDS:
    print(f"error: kind {KIND!r} must be one of {', '.join(KINDS)}", file=sys.stderr)
    sys.exit(1)
