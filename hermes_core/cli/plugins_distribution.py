"""``hermes plugins install/update/remove/doctor/new``: argument parsing here, the work in hermes_core.distribution."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hermes_core.cli.arguments import path_argument
from hermes_core.cli.output import print_json
from hermes_core.errors import HermesError

# argparse only at import time: `hermes plugins list` builds these parsers too and must stay fast.


def _add_pip_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("pip options (passed through)")
    group.add_argument("--index-url", metavar="URL", default="", help="package index to use instead of pip's default")
    group.add_argument("--find-links", metavar="DIR", action="append", default=[], help="also look for packages in DIR (repeatable)")
    group.add_argument("--no-index", action="store_true", help="use no index, only --find-links locations")
    group.add_argument("--no-build-isolation", action="store_true", help="build local projects with the packages already installed")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only results and errors, not pip's and git's output")


def add_distribution_commands(commands: Any) -> None:
    """Add the distribution subcommands to the ``hermes plugins`` subparsers ``commands``."""
    install = commands.add_parser("install", help="install a plugin from an index, a path, a wheel or a git repository")
    install.add_argument("spec", nargs="?", help="name[==version], ./path, file.whl, sdist, git URL, owner/repo; '#subdir' selects a subdirectory")
    install.add_argument("-r", "--requirements", metavar="FILE", type=path_argument, help="install every SPEC listed in FILE, or restore a plugins.lock")
    install.add_argument("--enable", action=argparse.BooleanOptionalAction, default=None, help="turn the plugin on after installing (default: ask on a terminal)")
    install.add_argument("--force", action="store_true", help="replace an installed plugin of the same name")
    install.add_argument("--env", metavar="KEY=VALUE", action="append", default=[], help="store a variable in $HERMES_HOME/.env (repeatable)")
    install.add_argument("--ref", default="", help="git branch, tag or commit to install")
    install.add_argument("--no-input", action="store_true", help="never prompt; missing variables are reported, not asked for")
    install.add_argument("--json", action="store_true", help="print what was installed as JSON (progress goes to stderr; asks nothing)")
    _add_pip_options(install)
    install.set_defaults(func=cmd_install)

    update = commands.add_parser("update", help="update an installed plugin (pip -U, git pull --ff-only), keeping the old one on failure")
    update.add_argument("name", nargs="?", help="plugin key, name or distribution")
    update.add_argument("--all", action="store_true", help="update every plugin recorded in plugins.lock")
    update.add_argument("--no-input", action="store_true", help="never prompt for missing variables")
    update.add_argument("--json", action="store_true", help="print what was updated as JSON (progress goes to stderr; asks nothing)")
    _add_pip_options(update)
    update.set_defaults(func=cmd_update)

    remove = commands.add_parser("remove", aliases=["rm", "uninstall"], help="uninstall a plugin and drop its config and lock entries")
    remove.add_argument("name", help="plugin key, name or distribution")
    remove.add_argument("-q", "--quiet", action="store_true", help="print only results and errors")
    remove.add_argument("--json", action="store_true", help="print what was removed as JSON (progress goes to stderr)")
    remove.add_argument("-y", "--yes", action="store_true", help="delete a plugin directory that 'hermes plugins install' did not make without asking")
    remove.set_defaults(func=cmd_remove)

    doctor = commands.add_parser("doctor", help="check every plugin (manifest, versions, dependencies, environment, files) and print fixes")
    doctor.add_argument("--json", action="store_true")
    doctor.add_argument("--load", action="store_true", help="also import the enabled plugins and run their register(ctx), in a separate process")
    doctor.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="with --load: how long importing and registering one plugin may take before it is blamed (default: 60)")
    doctor.set_defaults(func=cmd_doctor)

    new = commands.add_parser("new", help="start a plugin project from the bundled template")
    new.add_argument("name", help="the plugin name, e.g. rm_guard (the project becomes hermes-rm-guard)")
    new.add_argument("--kind", choices=["hooks", "tools", "memory-provider", "context-engine"], default="hooks", help="what the plugin provides (default: hooks)")
    new.add_argument("-o", "--output-dir", type=path_argument, default=Path("."), help="where to create the project (default: here)")
    new.add_argument("--json", action="store_true", help="print the project created as JSON (asks nothing, like --no-input)")
    new.add_argument("--description", help="one line saying what the plugin does")
    new.add_argument("--author", help="author name")
    new.add_argument("--no-input", action="store_true", help="use defaults for everything not given, ask nothing (the default when stdin is not a terminal)")
    new.set_defaults(func=cmd_new)


def _home() -> Path:
    from hermes_core.config import get_hermes_home

    return get_hermes_home()


def _installer(args: argparse.Namespace, *, env: list[str] | None = None, enable: bool | None = None, force: bool = False) -> Any:
    from hermes_core.distribution.console import Console
    from hermes_core.distribution.installer import InstallOptions, Installer
    from hermes_core.distribution.pip_runner import PipOptions
    from hermes_core.distribution.postinstall import parse_env_assignments

    pip = PipOptions(args.index_url, tuple(args.find_links), args.no_index, args.no_build_isolation)
    # with --json, stdout carries only the JSON: progress goes to stderr and nothing is asked
    options = InstallOptions(force=force, enable=enable, env=parse_env_assignments(env or []), pip=pip, interactive=not (args.no_input or args.json))
    return Installer(_home(), Console(quiet=args.quiet, out=sys.stderr if args.json else None), options)


def _outcomes_json(outcomes: list[Any]) -> None:
    print_json([
        dict(outcome.entry.as_dict(), key=outcome.entry.key, changed=outcome.changed,
             plugins=[{"key": p.key, "name": p.name, "kind": p.kind, "version": p.version, "warnings": list(p.warnings)} for p in outcome.plugins])
        for outcome in outcomes
    ])


def cmd_install(args: argparse.Namespace) -> int:
    if bool(args.spec) == bool(args.requirements):
        raise HermesError("give exactly one SPEC or -r FILE -> e.g. 'hermes plugins install hermes-weather' or 'hermes plugins install -r ~/.hermes/plugins.lock'")
    installer = _installer(args, env=args.env, enable=args.enable, force=args.force)
    if args.requirements:
        if args.ref:
            raise HermesError("--ref applies to a single git SPEC, not to -r -> pin commits inside the file instead")
        from hermes_core.cli.progress import Progress

        with Progress(f"installing from {args.requirements.name}", unit="plugins", minimum=2) as progress:
            outcomes = installer.install_from_file(args.requirements, progress=progress)
    else:
        outcomes = [installer.install(args.spec, ref=args.ref)]
    if args.json:
        _outcomes_json(outcomes)
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    from hermes_core.distribution import maintenance

    if bool(args.name) == bool(args.all):
        raise HermesError("give a plugin NAME or --all -> e.g. 'hermes plugins update weather'")
    installer = _installer(args)
    outcomes = maintenance.update_all(installer) if args.all else [maintenance.update(installer, args.name)]
    if args.json:
        _outcomes_json(outcomes)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from hermes_core.distribution import maintenance
    from hermes_core.distribution.console import Console
    from hermes_core.distribution.installer import Installer

    def confirm_delete(directory: Path) -> bool:
        answer = input(f"{directory} was not installed by 'hermes plugins install' and may be the only copy; delete it? [y/N] ")
        return answer.strip().lower() in {"y", "yes"}

    # A directory put there by hand is deleted with --yes, or on a yes from someone at a terminal; without either,
    # remove refuses and says how (it never deletes what may be the author's only copy unasked).
    ask = (lambda _directory: True) if args.yes else confirm_delete if sys.stdin.isatty() and not args.json else None
    entry = maintenance.remove(Installer(_home(), Console(quiet=args.quiet, out=sys.stderr if args.json else None)), args.name, confirm_delete=ask)
    if entry is None:  # "no" at the terminal (with --json nobody is asked: remove refuses instead)
        print("nothing removed")
        return 0
    if args.json:
        print_json({"removed": dict(entry.as_dict(), key=entry.key)})
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from hermes_core.distribution.doctor import examine

    if args.timeout is not None and not args.load:
        raise HermesError("--timeout applies to imports, which only --load checks -> add --load")
    if args.timeout is not None and not 0 < args.timeout <= 3600:
        raise HermesError(f"--timeout must be between 0 and 3600 seconds, not {args.timeout:g} -> e.g. --timeout 60")
    results, clashes = examine(_home(), load=args.load, load_timeout=args.timeout)
    failing = [r for r in results if not r.ok]
    if args.json:
        print_json([r.as_dict() for r in results])
        return 1 if failing else 0
    for health in results:
        state = "ok  " if health.ok else "FAIL"
        print(f"{state} {health.key} ({health.source}{'' if health.enabled else ', off'})")
        for finding in health.findings:
            print(f"     - {finding.check}: {finding.cause}")
            print(f"       fix: {finding.fix}")
    for clash in clashes:
        print(f"warning: {clash}", file=sys.stderr)
    problems = sum(len(r.findings) for r in failing)
    if args.load:
        imported = sum(1 for r in results if r.load != "not checked")
        scope = f"; {imported} enabled plugin(s) imported in a separate process"
    else:
        scope = "; imports were not checked (no plugin code ran) -> 'hermes plugins doctor --load' also imports the enabled plugins"
    if failing:
        print(f"\n{problems} problem(s) in {len(failing)} of {len(results)} plugin(s){scope}")
        return 1
    print(f"\nall {len(results)} plugin(s) are healthy{scope}")
    return 0


#: What ``plugins new`` may ask for when it is not given: (template variable, prompt, option that gives it).
_NEW_QUESTIONS = (("description", "one line saying what the plugin does", "description"), ("author_name", "author name", "author"))


def _ask_missing(args: argparse.Namespace) -> dict[str, str]:
    """The values given as options, plus answers to what was not given when someone can answer.

    The name and kind are arguments and are never asked again; nothing is asked when stdin
    is not a terminal or with --no-input (the template's defaults apply).
    """
    given = {variable: getattr(args, option) for variable, _, option in _NEW_QUESTIONS if getattr(args, option)}
    if args.no_input or args.json or not sys.stdin.isatty():  # a question would land in the JSON
        return given
    from hermes_core.distribution.template import template_defaults

    defaults = template_defaults()
    for variable, question, _ in _NEW_QUESTIONS:
        if variable in given:
            continue
        try:
            answer = input(f"{question} [{defaults.get(variable, '')}]: ").strip()
        except EOFError:
            break
        if answer:
            given[variable] = answer
    return given


def cmd_new(args: argparse.Namespace) -> int:
    from hermes_core.distribution.template import create_project

    extra = _ask_missing(args)
    # every value is decided above, so the template itself never prompts (and never re-asks the name)
    project = create_project(args.name, args.kind, args.output_dir, no_input=True, extra=extra)
    package = next((project / "src").iterdir())
    if args.json:
        print_json({"project": str(project), "kind": args.kind, "package": str(package), "manifest": str(package / "plugin.yaml")})
        return 0
    print(f"created {project} ({args.kind} plugin)")
    print("next:")
    print(f"  cd {project}")
    print("  python -m pip install -e '.[test]'      # into the environment hermes runs in")
    print(f"  hermes plugins validate src/{package.name}")
    print("  python -m pytest")
    return 0
