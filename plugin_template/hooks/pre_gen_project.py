"""Refuse a plugin name that would not work as an entry-point name, a module name and a config key."""

import re
import sys

NAME = {{ cookiecutter.plugin_name | quoted }}
KIND = {{ cookiecutter.kind | quoted }}
# Package metadata holds these on one line (a summary, a name).
ONE_LINE = {"description": {{ cookiecutter.description | quoted }}, "author_name": {{ cookiecutter.author_name | quoted }}}
KINDS = ("hooks", "tools", "memory-provider", "context-engine")

if not re.fullmatch(r"[a-z][a-z0-9_]{0,47}", NAME):
    print(f"error: plugin_name {NAME!r} must start with a lower-case letter and use only a-z, 0-9 and '_' (e.g. 'rm_guard')", file=sys.stderr)
    sys.exit(1)
for variable, value in ONE_LINE.items():
    if "\n" in value or "\r" in value:
        print(f"error: {variable} must be one line, got {value!r}", file=sys.stderr)
        sys.exit(1)
if KIND not in KINDS:
    print(f"error: kind {KIND!r} must be one of {', '.join(KINDS)}", file=sys.stderr)
    sys.exit(1)
