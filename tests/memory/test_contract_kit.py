"""The provider contract kit: a sound provider passes it, and each kind of breach is caught."""

from __future__ import annotations

import textwrap

from hermes_core.testing import MemoryProviderContract

SOUND_PROVIDER = '''
import json
from hermes_core import MemoryProvider

class Notes(MemoryProvider):
    name = "notes"
    def __init__(self):
        self.turns = []
    def is_available(self):
        return True
    def initialize(self, session_id, **kwargs):
        self.session_id = session_id
    def get_tool_schemas(self):
        return [{"name": "notes_search", "description": "search notes",
                 "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]
    def handle_tool_call(self, tool_name, args, **kwargs):
        return json.dumps({"hits": [t for t in self.turns if args.get("q", "") in t]})
    def prefetch(self, query, *, session_id=""):
        return "\\n".join(t for t in self.turns if query and query.split()[0] in t)
    def sync_turn(self, user_content, assistant_content, *, session_id=""):
        self.turns.append(user_content)
'''


class TestSoundProviderPassesTheKit(MemoryProviderContract):
    def make_provider(self, hermes_home):
        namespace = {}
        exec(SOUND_PROVIDER, namespace)
        return namespace["Notes"]()


def _run_kit(pytester, provider_body: str):
    pytester.makepyfile(
        test_kit=textwrap.dedent(
            """
            import json, socket
            from hermes_core import MemoryProvider
            from hermes_core.testing import MemoryProviderContract

            class Bad(MemoryProvider):
                name = "bad"
                def is_available(self): return True
                def initialize(self, session_id, **kw): pass
                def get_tool_schemas(self): return []
            """
        )
        + textwrap.indent(textwrap.dedent(provider_body), "    ")
        + textwrap.dedent(
            """

            class TestBad(MemoryProviderContract):
                def make_provider(self, hermes_home):
                    return Bad()
            """
        )
    )
    return pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")


def test_the_kit_catches_network_access_in_is_available(pytester):
    result = _run_kit(pytester, "def is_available(self):\n    socket.create_connection(('example.invalid', 443))\n    return True\n")
    result.assert_outcomes(passed=10, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*test_is_available_touches_no_network*"])


def test_the_kit_catches_bad_tool_schemas_and_reserved_names(pytester):
    result = _run_kit(pytester, "def get_tool_schemas(self):\n    return [{'name': 'memory', 'parameters': {'type': 'object'}}, {'name': 'x', 'parameters': {'type': 'array'}}]\n")
    result.stdout.fnmatch_lines(["*FAILED*test_tool_schemas_are_openai_function_schemas*"])


def test_the_kit_catches_wrong_return_types(pytester):
    result = _run_kit(pytester, "def prefetch(self, query, *, session_id=''):\n    return None\n")
    result.stdout.fnmatch_lines(["*FAILED*test_lifecycle_in_host_order_returns_the_right_types*"])


def test_the_kit_catches_a_provider_calling_itself_builtin(pytester):
    result = _run_kit(pytester, "name = 'builtin'\n")
    result.stdout.fnmatch_lines(["*FAILED*test_is_a_memory_provider_with_a_usable_name*"])
