"""Packaging glue pyproject.toml cannot express: ship the top-level plugins/ directory
inside the wheel as the package ``hermes_bundled_plugins``, and plugin_template/ as
``hermes_plugin_template`` (the cookiecutter template of ``hermes plugins new``)."""

from setuptools import find_namespace_packages, find_packages, setup

BUNDLED = "hermes_bundled_plugins"
bundled_packages = [BUNDLED] + [
    f"{BUNDLED}.{name}" for name in find_namespace_packages(where="plugins", exclude=["*__pycache__*"])
]

builtin_packages = find_packages(include=["hermes_plugins_builtin*"])
PLUGIN_DATA = ["*.yaml", "*.yml", "*.md", "*.example", "*.json", "*.txt"]

TEMPLATE = "hermes_plugin_template"
# The template is data, not code: its .py files hold Jinja placeholders. `*` skips
# hidden files, so the project's dotfiles are listed by name. Its hooks/ directory (cookiecutter's
# pre/post generation scripts) is declared a package so that setuptools ships its .py files without
# warning; nothing imports it.
TEMPLATE_PROJECT = "{{cookiecutter.project_slug}}"
TEMPLATE_DATA = [
    "cookiecutter.json",
    "README.md",
    *(f"{TEMPLATE_PROJECT}/**/*.{ext}" for ext in ("py", "toml", "md", "yaml", "yml", "json", "txt", "cfg")),
    f"{TEMPLATE_PROJECT}/.gitignore",
    f"{TEMPLATE_PROJECT}/.github/workflows/*.yml",
]

setup(
    packages=find_namespace_packages(include=["hermes_core*"], exclude=["*__pycache__*"]) + builtin_packages + bundled_packages + [TEMPLATE, f"{TEMPLATE}.hooks"],
    package_dir={BUNDLED: "plugins", TEMPLATE: "plugin_template"},
    package_data={
        "hermes_core": ["py.typed", "schemas/*.json"],
        TEMPLATE: TEMPLATE_DATA,
        # Each plugin directory is a package of its own here, so data files are listed per package.
        **{name: PLUGIN_DATA for name in bundled_packages + builtin_packages},
    },
)
