"""Packaging glue pyproject.toml cannot express: ship the top-level plugins/ directory
inside the wheel as the package ``hermes_bundled_plugins``."""

from setuptools import find_namespace_packages, find_packages, setup

BUNDLED = "hermes_bundled_plugins"
bundled_packages = [BUNDLED] + [
    f"{BUNDLED}.{name}" for name in find_namespace_packages(where="plugins", exclude=["*__pycache__*"])
]

setup(
    packages=find_packages(include=["hermes_core*", "hermes_plugins_builtin*"]) + bundled_packages,
    package_dir={BUNDLED: "plugins"},
    package_data={BUNDLED: ["**/*.yaml", "**/*.yml", "**/*.md", "**/*.example", "**/*.json", "**/*.txt"]},
)
