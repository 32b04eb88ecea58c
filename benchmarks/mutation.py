"""Mutation score of the safety-relevant modules, measured with mutmut.

Run: python benchmarks/mutation.py [GROUP ...] [--list] [--max-children N] [--only GLOB] [--workdir PATH] [--json]

Each GROUP (default: all, in the order below) names source files and the tests that cover them.
For each group this script makes a scratch copy of the project under --workdir (default:
``.mutation/`` in the checkout, which git ignores), writes a ``[tool.mutmut]`` section for
that group alone, and runs ``mutmut run``: mutmut first runs the group's tests once to learn
which test reaches which function, then runs each mutant against only the tests that reach
the mutated function. The score per file is killed / (killed + survived + timeouts count as
killed); "no tests" mutants (functions no test of the group reaches) count as survivors. Every
survivor is printed with its diff, so it can be killed by a new test or documented as
equivalent in docs/testing.md.

Not part of the test run: a group takes minutes to an hour on a loaded 2-core machine.
Tests that start hermes in a separate process (``python -m hermes_core``) import the
unmutated checkout, so they cannot kill a mutant; the covering tests listed below are the
in-process ones.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Group:
    """Source files mutated together and the tests that cover them."""

    sources: tuple[str, ...]
    tests: tuple[str, ...]
    #: Keys of bundled plugins the tests load through the host (see PLUGIN_NAMES_MODULE).
    loaded_plugins: tuple[str, ...] = ()
    #: Start one PostgreSQL server for the whole run and point the tests' ``pg_server`` at it (see SHARED_PG_MODULE).
    shared_postgres: bool = False
    #: Extra pytest arguments, e.g. ``-k postgres`` to leave out the SQLite half of the contract tests.
    pytest_args: tuple[str, ...] = ()
    #: Seconds added to a mutant's estimated test time before mutmut's wall-clock bound (4x that sum) stops it
    #: as a hang (None: TIMEOUT_CONSTANT_S). The estimate counts the tests' calls, not their fixtures: raise it
    #: where fixtures dominate. --timeout-constant overrides it.
    timeout_constant: float | None = None


#: The tests that run the session-store contract on PostgreSQL in this process (see ``postgres-store``).
POSTGRES_CONTRACT_TESTS = (
    "tests/state/test_state_sessions.py",
    "tests/state/test_state_edges.py",
    "tests/state/test_state_lineage.py",
    "tests/state/test_state_backfill.py",
    "tests/state/test_state_schema.py",
    "tests/state/test_state_search.py",
    "tests/state/test_state_maintenance.py",
    "tests/state/test_state_postgres_ranking.py",
    "tests/state/test_state_postgres_store.py",
    "tests/state/test_state_postgres.py::test_an_append_retried_with_the_same_key_is_stored_once",
)

GROUPS: dict[str, Group] = {
    "hooks": Group(
        ("hermes_core/hooks/signatures.py", "hermes_core/hooks/relay.py", "hermes_core/hooks/outcomes.py", "hermes_core/hooks/calls.py", "hermes_core/hooks/workers.py", "hermes_core/hooks/alarm.py", "hermes_core/hooks/quarantine.py", "hermes_core/hooks/dispatcher.py"),
        ("tests/test_hook_alarm.py", "tests/test_hook_dispatch.py", "tests/test_hook_timeouts.py", "tests/test_hook_workers.py", "tests/test_safety_semantics.py", "tests/test_hook_contracts.py", "tests/test_loading.py"),
    ),
    "policy": Group(
        ("hermes_core/policy.py",),
        ("tests/test_policy_rules.py", "tests/test_safety_semantics.py", "tests/test_loading.py", "tests/test_cli_plugins.py"),
    ),
    "discovery": Group(
        ("hermes_core/discovery.py", "hermes_core/plugin_candidate.py", "hermes_core/plugin_locations.py"),
        ("tests/test_discovery.py", "tests/test_discovery_sources.py", "tests/test_entry_points.py", "tests/test_entry_point_cache.py", "tests/test_loading.py", "tests/test_path_safety.py"),
    ),
    "manifest": Group(
        ("hermes_core/manifest.py", "hermes_core/validate.py"),
        ("tests/test_manifest.py", "tests/test_manifest_rules.py", "tests/test_validate.py", "tests/test_path_safety.py", "tests/test_discovery.py"),
    ),
    "manager": Group(
        ("hermes_core/manager.py",),
        ("tests/test_provider_rules.py", "tests/test_safety_semantics.py", "tests/test_loading.py", "tests/test_context.py", "tests/test_compat.py", "tests/test_compat_plugins.py"),
    ),
    "memory-write": Group(
        (
            "hermes_plugins_builtin/memory/store.py",
            "hermes_plugins_builtin/memory/operations.py",
            "hermes_plugins_builtin/memory/atomic.py",
            "hermes_plugins_builtin/memory/entries.py",
        ),
        # the in-process files; the crash and multi-process tests run children and take seconds per mutant
        (
            "tests/builtin/memory/test_entries.py",
            "tests/builtin/memory/test_tool.py",
            "tests/builtin/memory/test_safety.py",
            "tests/builtin/memory/test_bad_files.py",
            "tests/builtin/memory/test_plugin.py",
            "tests/builtin/memory/test_snapshot.py",
        ),
    ),
    # the scanner's logic (what counts as invisible, how text is folded and decoded, what a refusal
    # says); its detectors are word lists, which mutants of single words do not measure
    "memory-scanner": Group(
        ("hermes_plugins_builtin/memory/scanner/invisible.py", "hermes_plugins_builtin/memory/scanner/normalise.py",
         "hermes_plugins_builtin/memory/scanner/decode.py", "hermes_plugins_builtin/memory/findings.py"),
        ("tests/builtin/memory/test_invisible_policy.py", "tests/builtin/memory/test_safety.py",
         "tests/builtin/memory/test_scanner_families.py", "tests/builtin/memory/test_scanner_semantics.py",
         # each module's behaviour pinned exactly (the decoders are reached here, not only by the slow corpus test)
         "tests/builtin/memory/test_scanner_invisible.py", "tests/builtin/memory/test_scanner_normalise.py",
         "tests/builtin/memory/test_scanner_decode.py", "tests/builtin/memory/test_scanner_findings.py"),
    ),
    # how the scanner reads a note: the views and pieces it runs the detectors on (__init__), the gate index that
    # picks the detectors to run (prefilter), the detector shape (rules) and the shared vetoes (guards)
    "memory-scanner-core": Group(
        ("hermes_plugins_builtin/memory/scanner/__init__.py", "hermes_plugins_builtin/memory/scanner/prefilter.py",
         "hermes_plugins_builtin/memory/scanner/rules.py", "hermes_plugins_builtin/memory/scanner/guards.py"),
        ("tests/builtin/memory/test_scanner_views.py", "tests/builtin/memory/test_scanner_rules.py",
         "tests/builtin/memory/test_invisible_policy.py", "tests/builtin/memory/test_safety.py",
         "tests/builtin/memory/test_scanner_families.py", "tests/builtin/memory/test_scanner_semantics.py",
         "tests/builtin/memory/test_scanner_decode.py", "tests/builtin/memory/test_scanner_findings.py",
         # a note only the learned detector refuses: the rules' verdict comes first, the model's after
         "tests/builtin/memory/test_scanner_learned.py::test_a_paraphrase_the_rules_miss_is_refused_naming_family_sentence_and_rule"),
    ),
    # the learned second detector: its features, its concept lexicon, scoring and the weights format; the tests
    # build their own weight tables and lexicons, so retraining the model does not change what they expect
    "memory-scanner-learned": Group(
        ("hermes_plugins_builtin/memory/scanner/learned.py", "hermes_plugins_builtin/memory/scanner/learned_features.py",
         "hermes_plugins_builtin/memory/scanner/learned_concepts.py"),
        ("tests/builtin/memory/test_scanner_learned_units.py", "tests/builtin/memory/test_scanner_concepts_learned.py",
         *(f"tests/builtin/memory/test_scanner_learned.py::{name}" for name in (
             "test_a_paraphrase_the_rules_miss_is_refused_naming_family_sentence_and_rule",
             "test_the_refusal_names_the_family_with_the_widest_margin_and_its_heaviest_sentence",
             "test_a_denied_dismissal_is_not_an_override_but_a_denied_hiding_still_hides",
             "test_one_sentence_of_attack_in_a_long_note_is_found",
             "test_weights_of_another_feature_version_or_damaged_are_refused_with_the_fix"))),
    ),
    # the pair detectors' two-class search (meeting) and the literal gates read from every detector's pattern (gate);
    # the scanner builds its detectors at import, before a mutant is switched on, so the tests that count are the
    # ones that build their own detectors and derive gates of their own (and the check that gate_cache.py is current)
    "memory-scanner-gates": Group(
        ("hermes_plugins_builtin/memory/scanner/meeting.py", "hermes_plugins_builtin/memory/scanner/gate.py"),
        ("tests/builtin/memory/test_scanner_meeting.py", "tests/builtin/memory/test_scanner_gate.py",
         "tests/builtin/memory/test_scanner_crosslingual.py", "tests/builtin/memory/test_scanner_semantics.py",
         "tests/builtin/memory/test_scanner_rules.py"),
    ),
    # what a memory-provider swap hands over: stored conversations as turns (replay_turns), the resumable backfill,
    # and the fence recalled memory travels in; the in-process `memory switch` tests (the SIGKILL and Ctrl-C ones run
    # children, which cannot judge a mutant) and the unit tests. Measure a file at a time with --only: a backfill
    # mutant runs the switch tests, seconds each
    "memory-swap": Group(
        ("hermes_core/memory/fence.py", "hermes_core/memory/replay_turns.py", "hermes_core/memory/backfill.py"),
        ("tests/memory/test_swap_units.py", "tests/memory/test_fence.py", "tests/memory/test_memory_records.py",
         *(f"tests/memory/test_memory_switch.py::{name}" for name in (
             "test_backfill_sends_entries_and_every_conversation_turn_once_oldest_first",
             "test_the_same_command_again_sends_nothing",
             "test_again_sends_everything_once_more_after_the_storage_was_replaced",
             "test_dry_run_writes_nothing",
             "test_sessions_and_since_choose_the_conversations",
             "test_an_unknown_or_unavailable_provider_changes_nothing",
             "test_backfill_without_a_terminal_needs_yes",
             "test_switch_without_backfill_and_back_to_builtin",
             "test_a_failing_provider_stops_after_bounded_retries_and_the_rerun_resumes",
             "test_a_provider_failing_to_start_is_reported_and_nothing_is_recorded",
             "test_a_second_backfill_into_the_same_provider_is_refused_while_one_runs"))),
    ),
    "state": Group(
        (
            "hermes_plugins_builtin/state/query.py",
            "hermes_plugins_builtin/state/lineage.py",
            "hermes_plugins_builtin/state/schema.py",
        ),
        ("tests/state",),
    ),
    "runtime": Group(
        ("hermes_core/runtime/session.py",),
        (
            "tests/runtime/test_agent_session.py",
            "tests/runtime/test_session_context_engine.py",
            "tests/runtime/test_session_identity.py",
            "tests/runtime/test_newer_hooks.py",
            "tests/runtime/test_runtime_docs.py",
        ),
    ),
    "distribution": Group(
        (
            "hermes_core/distribution/installer.py",
            "hermes_core/distribution/lockfile.py",
            "hermes_core/distribution/archives.py",
        ),
        # in-process only: restores and prompts of directory plugins stand in for the pip-and-venv tests
        (
            "tests/distribution/test_install_safety.py",
            "tests/distribution/test_rollback_parts.py",
            "tests/distribution/test_specs.py",
            "tests/distribution/test_directory_plugins.py",
            "tests/distribution/test_lockfile.py",
            "tests/distribution/test_archives.py",
            "tests/distribution/test_restore.py",
            "tests/distribution/test_install_answers.py",
        ),
    ),
    # the providers' tests talk real HTTP to in-process servers of the Honcho and mem0 protocols
    # config.py alone, with the tests of honcho.json only: every test of the "honcho" group reads the
    # config, so there each of its ~500 mutants ran the whole group; here a mutant costs a second or two
    "honcho-config": Group(
        ("plugins/memory/honcho/config.py",),
        ("tests/honcho_provider/test_honcho_config.py", "tests/honcho_provider/test_honcho_fuzz.py"),
    ),
    "honcho": Group(
        (
            "plugins/memory/honcho/config.py",
            "plugins/memory/honcho/settings.py",
            "plugins/memory/honcho/writer.py",
            "plugins/memory/honcho/held.py",
            "plugins/memory/honcho/connection.py",
            "plugins/memory/honcho/client.py",
        ),
        (
            "tests/honcho_provider/test_honcho_config.py",
            "tests/honcho_provider/test_honcho_writer.py",
            "tests/honcho_provider/test_honcho_held.py",
            "tests/honcho_provider/test_honcho_faults.py",
            "tests/honcho_provider/test_honcho_provider.py",
            "tests/honcho_provider/test_honcho_cli.py",
            "tests/honcho_provider/test_honcho_fuzz.py",
        ),
    ),
    "mem0": Group(
        ("plugins/memory/mem0/writes.py", "plugins/memory/mem0/resilience.py", "plugins/memory/mem0/access.py", "plugins/memory/mem0/status.py"),
        (
            "tests/memory/mem0/test_mem0_faults.py",
            "tests/memory/mem0/test_mem0_settings.py",
            "tests/memory/mem0/test_mem0_local.py",
            "tests/memory/mem0/test_mem0_platform.py",
            "tests/memory/mem0/test_mem0_cli.py",
            "tests/memory/mem0/test_mem0_resilience.py",
            "tests/memory/mem0/test_mem0_access.py",
        ),
        loaded_plugins=("memory/mem0",),
    ),
    # the door to mem0 and what keeps its writes, with the tests that drive them directly (a second or two
    # per mutant; in the "mem0" group every test reaches them, so each of their mutants ran the whole group)
    "mem0-access": Group(
        ("plugins/memory/mem0/resilience.py", "plugins/memory/mem0/access.py"),
        ("tests/memory/mem0/test_mem0_access.py", "tests/memory/mem0/test_mem0_resilience.py"),
        loaded_plugins=("memory/mem0",),
    ),
    # the PostgreSQL session store and its search: the contract tests (each runs on SQLite and on PostgreSQL;
    # -k keeps the PostgreSQL half), the ranking tests and the store's own, against one server for the whole
    # run (SHARED_PG_MODULE); the multi-process, restart and CLI tests are left out. Measure a file at a
    # time with --only (and --resume after the first): 1,500 mutants do not fit one sitting
    "postgres-store": Group(
        tuple(f"hermes_plugins_builtin/state/postgres/{name}.py"
              for name in ("store", "search", "text", "impact", "maintenance", "adapter")),
        POSTGRES_CONTRACT_TESTS,
        shared_postgres=True,
        pytest_args=("-k", "postgres"),
    ),
    # the ranking from postings (impact.py) and the maintenance of the store (maintenance.py) with the tests that
    # reach them: the ranking and store tests and the PostgreSQL half of the search and maintenance contract
    # tests, against one shared server. In "postgres-store" every search test reaches the ranking, so each of its
    # mutants ran the whole contract suite (sessions, lineage, backfill, schema ...) that never searches
    "postgres-impact": Group(
        ("hermes_plugins_builtin/state/postgres/impact.py", "hermes_plugins_builtin/state/postgres/maintenance.py"),
        ("tests/state/test_state_postgres_ranking.py", "tests/state/test_state_postgres_store.py",
         "tests/state/test_state_search.py", "tests/state/test_state_maintenance.py"),
        shared_postgres=True,
        pytest_args=("-k", "postgres"),
        # each ranking test fills a database first (hundreds of messages): mutmut's estimate leaves that out,
        # and with 2 s a mutant no test kills was stopped as a hang (counted killed) on a loaded machine
        timeout_constant=30.0,
    ),
    # what the PostgreSQL store indexes for a message and asks for a query (tokens, weights, grams, tsquery
    # literals, storable text), with the tests that pin each value (no server) and the store tests of odd
    # text, long words and NUL: a second or two per mutant, where postgres-store runs every append's tests
    "postgres-text": Group(
        ("hermes_plugins_builtin/state/postgres/text.py",),
        ("tests/state/test_state_postgres_text.py",
         *(f"tests/state/test_state_postgres_store.py::{name}" for name in (
             "test_an_id_and_a_title_holding_nul_work_everywhere_and_are_found_again",
             "test_queries_of_odd_text_find_exactly_the_rows_that_hold_it",
             "test_a_word_longer_than_postgresql_keeps_is_stored_and_found_by_its_start",
             "test_words_are_ranked_by_bm25_from_the_postings_over_every_match"))),
        shared_postgres=True,
    ),
    # a search's chain copies kept once as the earliest (both stores search through it): the fetch loop's own
    # tests and the lineage contract tests on SQLite and on PostgreSQL, against one shared server
    "state-copies": Group(
        ("hermes_plugins_builtin/state/copies.py",),
        ("tests/state/test_state_copies.py", "tests/state/test_state_lineage.py"),
        shared_postgres=True,
    ),
    # mem0.json and config.yaml read into settings (what a bad file does, that secrets in it are never
    # used or shown), with the tests that call load_settings directly: no model server, well under a second
    "mem0-settings": Group(
        ("plugins/memory/mem0/settings.py",),
        ("tests/memory/mem0/test_mem0_settings_values.py", "tests/memory/mem0/test_mem0_settings.py"),
        loaded_plugins=("memory/mem0",),
    ),
    # what a model's tool call can make the Mem0 provider do, and the recalled block, with the platform tests
    # (the real mem0.MemoryClient against the loopback platform server: no model, no local store)
    "mem0-tools": Group(
        ("plugins/memory/mem0/tools.py",),
        ("tests/memory/mem0/test_mem0_tools.py", "tests/memory/mem0/test_mem0_platform.py"),
        loaded_plugins=("memory/mem0",),
    ),
    # the provider's lifecycle (sessions, writes handed to the worker, shutdown, export/import, status) and
    # recall before a turn, with the tests that open it through the host: the platform ones first (no model),
    # the local-mode and fault ones for what only the embedded store reaches (a queued write, a hung model)
    "mem0-provider": Group(
        ("plugins/memory/mem0/provider.py", "plugins/memory/mem0/recall.py"),
        (
            "tests/memory/mem0/test_mem0_platform.py",
            "tests/memory/mem0/test_mem0_tools.py",
            "tests/memory/mem0/test_mem0_provider.py",
            "tests/memory/mem0/test_mem0_faults.py",
            "tests/memory/mem0/test_mem0_local.py",
        ),
        loaded_plugins=("memory/mem0",),
    ),
    # the two doors to mem0 (MemoryClient against the loopback platform server; mem0.Memory with the embedded
    # store against the loopback model server) and the portable records of export/import
    "mem0-backend": Group(
        ("plugins/memory/mem0/backend.py", "plugins/memory/mem0/portable.py"),
        (
            "tests/memory/mem0/test_mem0_access.py",
            "tests/memory/mem0/test_mem0_platform.py",
            "tests/memory/mem0/test_mem0_backend.py",
            "tests/memory/mem0/test_mem0_faults.py",
            "tests/memory/mem0/test_mem0_local.py",
        ),
        loaded_plugins=("memory/mem0",),
    ),
    # what a model's tool call can make the Honcho provider do, and what recall and prefetch put in the prompt
    "honcho-tools": Group(
        ("plugins/memory/honcho/tools.py", "plugins/memory/honcho/recall.py", "plugins/memory/honcho/prefetch.py"),
        ("tests/honcho_provider/test_honcho_tools.py", "tests/honcho_provider/test_honcho_recall.py", "tests/honcho_provider/test_honcho_provider.py"),
    ),
    # the provider's lifecycle and per-turn writes, what status reports, and export/import, with the tests that
    # drive a HonchoMemoryProvider directly (the real honcho-ai SDK against the loopback Honcho server)
    "honcho-provider": Group(
        ("plugins/memory/honcho/provider.py", "plugins/memory/honcho/status.py", "plugins/memory/honcho/portability.py"),
        ("tests/honcho_provider/test_honcho_provider.py", "tests/honcho_provider/test_honcho_faults.py",
         "tests/honcho_provider/test_honcho_contract.py", "tests/honcho_provider/test_honcho_chat.py",
         "tests/honcho_provider/test_honcho_provider_lifecycle.py"),
    ),
    # session naming and observation flags: pure rules, with their own tests (no server; under a second per mutant,
    # where in "honcho-provider" every provider test reaches them) and the provider tests of the same rules
    "honcho-sessions": Group(
        ("plugins/memory/honcho/sessions.py",),
        ("tests/honcho_provider/test_honcho_sessions.py",
         *(f"tests/honcho_provider/test_honcho_provider.py::{name}" for name in (
             "test_session_names_follow_the_priority_chain", "test_per_repo_uses_the_git_root_name_from_a_subdirectory",
             "test_observation_reaches_the_session_peer_config"))),
    ),
    # ``hermes honcho ...`` run in-process (``run_hermes``): the host loads the plugin, so it is imported under
    # the name mutmut gives its files (``loaded_plugins``)
    "honcho-cli": Group(
        ("plugins/memory/honcho/cli.py",),
        ("tests/honcho_provider/test_honcho_cli.py", "tests/honcho_provider/test_honcho_cli_commands.py"),
        loaded_plugins=("memory/honcho",),
    ),
    # the parser of ``hermes honcho`` (register_cli: subcommands, options, choices, help) with the test that builds it
    # on a bare argparse parser: under a second per mutant, where in "honcho-cli" every test reaches register_cli,
    # so each of its mutants ran whole commands. Measure register_cli here (--only '...cli.x_register_cli*')
    "honcho-cli-parser": Group(
        ("plugins/memory/honcho/cli.py",),
        ("tests/honcho_provider/test_honcho_cli_parser.py",),
    ),
    # needs the real server the tests start (pgserver); the multi-process and restart tests are left out
    "postgres": Group(
        (
            "hermes_plugins_builtin/state/postgres/connection.py",
            "hermes_plugins_builtin/state/postgres/schema.py",
            "hermes_plugins_builtin/state/postgres/settings.py",
        ),
        ("tests/state/test_state_postgres.py::test_hosts_opening_an_empty_database_together_migrate_it_once",
         "tests/state/test_state_postgres.py::test_a_database_of_a_newer_schema_is_refused_untouched",
         "tests/state/test_state_postgres.py::test_wrong_credentials_name_the_server_never_the_password",
         "tests/state/test_state_postgres.py::test_an_unreachable_server_is_named_with_the_fix",
         "tests/state/test_state_postgres.py::test_a_missing_database_is_named",
         "tests/state/test_state_postgres.py::test_urls_are_redacted",
         "tests/state/test_state_postgres_connection.py"),
    ),
}

#: What a scratch copy needs besides the mutated packages (bundled plugins, the template, the tests).
COPIED = ("hermes_core", "hermes_plugins_builtin", "plugins", "plugin_template", "tests", "docs", "benchmarks", "setup.py", "README.md")
#: plugins/ is imported as this package (setup.py maps it). In the scratch copy it is a real directory of
#: that name, so the mutated copy is imported instead of the checkout the editable install points to.
BUNDLED_PACKAGE = "hermes_bundled_plugins"


#: A pytest plugin for groups with ``loaded_plugins``. The host imports a directory plugin as
#: ``hermes_plugins.<slug>``, but mutmut names a mutant by its file's path
#: (``hermes_bundled_plugins.memory.mem0.writes``) and switches it on only in the module of that name:
#: under the host's name every mutant would be "no tests". In the scratch copy only, this plugin makes
#: the host import those plugins under their path's name, the way it imports them otherwise (a fresh
#: module per load, the same files).
PLUGIN_NAMES_MODULE = "mutation_plugin_names"
PLUGIN_NAMES_SOURCE = '''"""Written by benchmarks/mutation.py: bundled plugins imported under the names mutmut gives their files."""
import importlib.util
import sys

from hermes_core import loader

KEYS = {keys!r}
_import_directory_plugin = loader.import_directory_plugin


def import_directory_plugin(candidate):
    if candidate.key not in KEYS or candidate.directory is None:
        return _import_directory_plugin(candidate)
    name = "{package}." + candidate.key.replace("/", ".")
    loader._forget_modules(name)
    spec = importlib.util.spec_from_file_location(name, candidate.directory / "__init__.py", submodule_search_locations=[str(candidate.directory)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        loader._forget_modules(name)
        raise
    return module


loader.import_directory_plugin = import_directory_plugin
'''


#: A pytest plugin for groups with ``shared_postgres``. Each mutant is a fresh pytest session, so the
#: session-scoped ``pg_server`` fixture would start (initdb) a server per mutant: seconds each on a loaded
#: machine. This script starts one server before mutmut runs and stops it afterwards; the plugin makes
#: ``running_server`` hand out that one (never stopping it) and drops the databases a session created.
SHARED_PG_MODULE = "mutation_shared_postgres"
SHARED_PG_ENV = "HERMES_MUTATION_PG"
SHARED_PG_SOURCE = '''"""Written by benchmarks/mutation.py: the tests' PostgreSQL server is the one the script started."""
import contextlib
import json
import os
from pathlib import Path

from hermes_core.testing import postgres

_shared = json.loads(os.environ["{env}"])
_created = []
_create_database = postgres.PostgresServer.create_database


def _create_and_remember(self, name=None):
    made = _create_database(self, name)
    _created.append((self, made))
    return made


@contextlib.contextmanager
def running_server(password="hermes-test-secret"):
    yield postgres.PostgresServer(root=Path(_shared["root"]), port=_shared["port"], password=_shared["password"],
                                  bin_dir=postgres.find_bin_dir(), user=postgres._server_user())


postgres.PostgresServer.create_database = _create_and_remember
postgres.running_server = running_server


def pytest_sessionfinish(session, exitstatus):
    import psycopg

    while _created:
        server, name = _created.pop()
        with contextlib.suppress(psycopg.Error), psycopg.connect(server.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{{name}}" WITH (FORCE)')
'''


def _package_path(source: str) -> str:
    """Where mutmut sees ``source``: a file under plugins/ is under the bundled package's name."""
    return BUNDLED_PACKAGE + source[len("plugins"):] if source.startswith("plugins/") else source


def _pytest_plugins(group: Group) -> list[str]:
    """The modules this script writes into a group's scratch copy and loads into its pytest runs."""
    return ([PLUGIN_NAMES_MODULE] if group.loaded_plugins else []) + ([SHARED_PG_MODULE] if group.shared_postgres else [])


#: Seconds added to each mutant's wall-clock limit (4x the covering tests' clean time + this). A mutant that
#: outlives it counts as a timeout, which counts as killed; see --timeout-constant for a loaded machine.
TIMEOUT_CONSTANT_S = 2.0


def _mutmut_section(group: Group, max_children: int, timeout_constant: float = TIMEOUT_CONSTANT_S) -> str:
    def toml_list(items: tuple[str, ...] | list[str]) -> str:
        return "[" + ", ".join(json.dumps(i) for i in items) + "]"

    return (
        "\n[tool.mutmut]\n"
        f"source_paths = {toml_list(['hermes_core', 'hermes_plugins_builtin', BUNDLED_PACKAGE])}\n"
        f"only_mutate = {toml_list([_package_path(s) for s in group.sources])}\n"
        f"also_copy = {toml_list(list(COPIED[2:]) + [m + '.py' for m in _pytest_plugins(group)])}\n"
        f"pytest_add_cli_args_test_selection = {toml_list([t for t in group.tests if (ROOT / t.split('::')[0]).exists()])}\n"
        # -p no:cacheprovider: mutants must not reorder tests through --lf state; -x: one failure kills;
        # -n0: mutmut traces which tests reach a function in its own process, so no xdist workers
        f"pytest_add_cli_args = {toml_list(['-x', '-q', '-n0', '-p', 'no:cacheprovider', '-p', 'no:randomly'] + [a for m in _pytest_plugins(group) for a in ('-p', m)] + list(group.pytest_args))}\n"
        # a mutant that makes a test hang is killed after 4x the test's clean time + 2 s
        # (mutmut's default, 15x + 1 s, lets each hang of a thread-pool mutant cost a minute)
        "timeout_multiplier = 4.0\n"
        f"timeout_constant = {float(timeout_constant)}\n"
        "use_git_change_detection = false\n"
        "use_setproctitle = false\n"
    )


def _refresh_tests(name: str, group: Group, workdir: Path, max_children: int, timeout_constant: float | None = None) -> Path:
    """Bring new and changed tests and sources into an existing scratch copy, keeping mutmut's results.

    For a re-run of some mutants (``--resume --only ...``) after tests were added or a bug fixed:
    mutmut collects the new tests' coverage and runs only the mutants named. A mutated file that
    changed gets new mutants; mutmut keeps the verdicts of its functions whose code is unchanged
    and judges the changed ones again (their mutants are "not checked" until run).
    """
    scratch = workdir / name
    if not (scratch / "mutants").is_dir():
        raise SystemExit(f"--resume: no earlier run of {name} in {scratch} -> run the group without --resume first")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for target in (scratch, scratch / "mutants"):
        shutil.copytree(ROOT / "tests", target / "tests", ignore=ignore, symlinks=True, dirs_exist_ok=True)
    # copy2 keeps the checkout's times: mutmut regenerates a mutated file only when its source is newer
    for package in COPIED[:2]:
        shutil.copytree(ROOT / package, scratch / package, ignore=ignore, symlinks=True, dirs_exist_ok=True,
                        copy_function=shutil.copy2)
    # the bundled plugins too, under both names (a changed plugin file was otherwise judged as the first run copied it)
    for target in ("plugins", BUNDLED_PACKAGE):
        shutil.copytree(ROOT / "plugins", scratch / target, ignore=ignore, symlinks=True, dirs_exist_ok=True,
                        copy_function=shutil.copy2)
    # The [tool.mutmut] section stays as the first run wrote it: a changed list of test files
    # would make mutmut discard every verdict and start over. Only the timeout may change: mutmut
    # then judges again just the mutants it had counted as timeouts.
    if timeout_constant is not None:
        pyproject = scratch / "pyproject.toml"
        lines = [f"timeout_constant = {float(timeout_constant)}" if line.startswith("timeout_constant = ") else line
                 for line in pyproject.read_text(encoding="utf-8").splitlines()]
        pyproject.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return scratch


def _prepare(name: str, group: Group, workdir: Path, max_children: int, timeout_constant: float | None = None) -> Path:
    scratch = workdir / name
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".hypothesis")
    for item in COPIED:
        source = ROOT / item
        if source.is_dir():
            shutil.copytree(source, scratch / item, ignore=ignore, symlinks=True)
        elif source.exists():
            shutil.copy2(source, scratch / item)
    shutil.copytree(ROOT / "plugins", scratch / BUNDLED_PACKAGE, ignore=ignore, symlinks=True)
    if group.loaded_plugins:
        (scratch / f"{PLUGIN_NAMES_MODULE}.py").write_text(PLUGIN_NAMES_SOURCE.format(keys=set(group.loaded_plugins), package=BUNDLED_PACKAGE), encoding="utf-8")
    if group.shared_postgres:
        (scratch / f"{SHARED_PG_MODULE}.py").write_text(SHARED_PG_SOURCE.format(env=SHARED_PG_ENV), encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (scratch / "pyproject.toml").write_text(pyproject + _mutmut_section(group, max_children, TIMEOUT_CONSTANT_S if timeout_constant is None else timeout_constant), encoding="utf-8")
    return scratch


def _results(scratch: Path, group: Group) -> dict[str, dict[str, object]]:
    """Per source file: counts by status and the surviving mutants' names."""
    from mutmut.stats import status_by_exit_code

    report: dict[str, dict[str, object]] = {}
    for source in group.sources:
        meta = scratch / "mutants" / (_package_path(source) + ".meta")
        counts: dict[str, int] = {}
        survivors: list[str] = []
        if meta.exists():
            data = json.loads(meta.read_text(encoding="utf-8"))
            for mutant, exit_code in sorted(data.get("exit_code_by_key", {}).items()):
                status = status_by_exit_code[exit_code]
                counts[status] = counts.get(status, 0) + 1
                if status in ("survived", "no tests", "suspicious"):
                    survivors.append(f"{mutant} ({status})")
        killed = counts.get("killed", 0) + counts.get("timeout", 0) + counts.get("segfault", 0)
        judged = killed + sum(counts.get(s, 0) for s in ("survived", "no tests", "suspicious"))
        report[source] = {
            "counts": counts,
            "killed": killed,
            "judged": judged,
            "score": round(100.0 * killed / judged, 1) if judged else None,
            "survivors": survivors,
        }
    return report


def _diff(scratch: Path, mutant: str) -> str:
    name = mutant.split(" ")[0]
    shown = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=scratch, capture_output=True, text=True)
    return shown.stdout.strip() or shown.stderr.strip()


def _run_mutmut(scratch: Path, env: dict[str, str], max_children: int, budget: float | None, only: tuple[str, ...]) -> int | str:
    with (scratch / "mutmut.log").open("w") as log:
        # a process group of its own, so that a run over budget is stopped with every worker it forked
        process = subprocess.Popen(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children), *only],
            cwd=scratch, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
        try:
            return process.wait(timeout=None if budget is None else budget * 60)
        except (subprocess.TimeoutExpired, KeyboardInterrupt) as stopped:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()
            if isinstance(stopped, KeyboardInterrupt):
                raise
            return f"stopped after the {budget:g}-minute budget (partial: see 'not checked')"


def run_group(
    name: str, group: Group, workdir: Path, max_children: int, show_diffs: bool, budget: float | None, only: tuple[str, ...] = (),
    resume: bool = False, timeout_constant: float | None = None,
) -> dict[str, object]:
    prepare = _refresh_tests if resume else _prepare
    if timeout_constant is None:
        timeout_constant = group.timeout_constant
    scratch = prepare(name, group, workdir, max_children, timeout_constant)
    started = time.monotonic()
    print(f"[{name}] mutating {', '.join(group.sources)}; covering tests: {', '.join(group.tests)}", file=sys.stderr, flush=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    with contextlib.ExitStack() as stack:
        if group.shared_postgres:
            from hermes_core.testing.postgres import running_server

            server = stack.enter_context(running_server())
            env[SHARED_PG_ENV] = json.dumps({"root": str(server.root), "port": server.port, "password": server.password})
        returncode = _run_mutmut(scratch, env, max_children, budget, only)
    report = _results(scratch, group)

    result: dict[str, object] = {
        "group": name,
        "minutes": round((time.monotonic() - started) / 60, 1),
        "mutmut_exit": returncode,
        "files": report,
        "load": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    if show_diffs:
        result["diffs"] = {m: _diff(scratch, m) for file in report.values() for m in file["survivors"]}  # type: ignore[union-attr]
    return result


def _print(result: dict[str, object]) -> None:
    print(f"== {result['group']}  ({result['minutes']} min, load {result['load'][0]:.1f}, mutmut exit {result['mutmut_exit']})")  # type: ignore[index]
    for source, file in result["files"].items():  # type: ignore[union-attr]
        score = "not measured" if file["score"] is None else f"{file['score']:.1f} %"
        print(f"  {source}: {score}  ({file['killed']}/{file['judged']} killed; {file['counts']})")
        for survivor in file["survivors"]:
            print(f"    survived: {survivor}")
    for mutant, diff in result.get("diffs", {}).items():  # type: ignore[union-attr]
        print(f"\n--- {mutant}\n{diff}")
    print(flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help=f"groups to measure (default: all): {', '.join(GROUPS)}")
    parser.add_argument("--list", action="store_true", help="list the groups, their files and tests, and stop")
    parser.add_argument("--max-children", type=int, default=1, help="mutants tested at once (default 1: a shared machine)")
    parser.add_argument("--workdir", type=Path, default=ROOT / ".mutation")
    parser.add_argument("--no-diffs", action="store_true", help="do not print each survivor's diff")
    parser.add_argument("--budget-minutes", type=float, default=None, help="stop each group after this long and report what was measured")
    parser.add_argument("--json", action="store_true", help="one JSON object per group on stdout")
    parser.add_argument(
        "--only", action="append", default=[], metavar="GLOB",
        help="run only the mutants whose names match (repeatable), e.g. 'hermes_core.hooks.alarm.*'; the rest are 'not checked'",
    )
    parser.add_argument(
        "--resume", action="store_true",
        help="keep the group's earlier results and bring in new tests (sources unchanged); with --only, re-judge those mutants",
    )
    parser.add_argument(
        "--timeout-constant", type=float, default=None, metavar="S",
        help=f"seconds added to each mutant's time limit (default {TIMEOUT_CONSTANT_S:g}). On a loaded machine a mutant "
             "that survives can outlive the limit and be counted as a timeout (killed): with --resume, a new value "
             "makes mutmut judge again only the timeouts",
    )
    args = parser.parse_args(argv)
    if args.list:
        for name, group in GROUPS.items():
            print(f"{name}: {' '.join(group.sources)}\n    tests: {' '.join(group.tests)}")
        return 0
    unknown = [g for g in args.groups if g not in GROUPS]
    if unknown:
        parser.error(f"unknown group(s) {', '.join(unknown)}; choose from {', '.join(GROUPS)}")
    try:
        import mutmut  # noqa: F401
    except ImportError:
        parser.error("mutmut is not installed -> pip install -e '.[dev,mutation]'")
    for name in args.groups or list(GROUPS):
        result = run_group(name, GROUPS[name], args.workdir, args.max_children, not args.no_diffs, args.budget_minutes, tuple(args.only), args.resume, args.timeout_constant)
        print(json.dumps(result)) if args.json else _print(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
