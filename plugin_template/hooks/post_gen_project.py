"""Keep only the modules the chosen kind uses."""

from pathlib import Path

KIND = {{ cookiecutter.kind | quoted }}
PACKAGE = Path("src") / {{ cookiecutter.module_name | quoted }}

# Each kind-specific module is generated for every kind and removed where unused,
# so the template has one copy of each file.
ONLY_FOR = {"provider.py": "memory-provider", "engine.py": "context-engine"}

for file_name, kind in ONLY_FOR.items():
    if KIND != kind:
        (PACKAGE / file_name).unlink()
