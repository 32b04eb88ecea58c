"""Packaging glue pyproject.toml cannot express: ship the top-level plugins/ directory
inside the wheel as the package ``hermes_bundled_plugins``."""

from setuptools import find_namespace_packages, find_packages, setup

BUNDLED = "hermes_bundled_plugins"
bundled_packages = [BUNDLED] + [
    f"{BUNDLED}.{name}" for name in find_namespace_packages(where="plugins", exclude=["*__pycache__*"])
]

builtin_packages = find_packages(include=["hermes_plugins_builtin*"])
PLUGIN_DATA = ["*.yaml", "*.yml", "*.md", "*.example", "*.json", "*.txt"]

setup(
    packages=find_namespace_packages(include=["hermes_core*"], exclude=["*__pycache__*"]) + builtin_packages + bundled_packages,
    package_dir={BUNDLED: "plugins"},
    package_data={
        "hermes_core": ["py.typed", "schemas/*.json"],
        # Each plugin directory is a package of its own here, so data files are listed per package.
        **{name: PLUGIN_DATA for name in bundled_packages + builtin_packages},
    },
)
