"""The {{ cookiecutter.plugin_name }} memory provider: turns kept in a JSON Lines file under $HERMES_HOME."""

import json
from pathlib import Path

from hermes_core import MemoryProvider, tool_error

SEARCH_TOOL = "{{ cookiecutter.plugin_name }}_search"


class {{ cookiecutter.plugin_name.title().replace('_', '') }}Provider(MemoryProvider):
    """Remembers every completed turn and recalls the ones that share words with the query."""

    def __init__(self):
        self._path = None

    @property
    def name(self):
        return "{{ cookiecutter.plugin_name }}"

    def is_available(self):
        # Called often and before anything else: check credentials and installed
        # dependencies here, never the network.
        return True

    def initialize(self, session_id, **kwargs):
        self._path = Path(kwargs["hermes_home"]) / "{{ cookiecutter.plugin_name }}" / "turns.jsonl"
        self._path.parent.mkdir(parents=True, exist_ok=True)

    def get_tool_schemas(self):
        return [
            {
                "name": SEARCH_TOOL,
                "description": "Search what was said in earlier turns.",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
            }
        ]

    def sync_turn(self, user_content, assistant_content, *, session_id=""):
        if self._path is None:
            return
        record = {"session_id": session_id, "user": user_content, "assistant": assistant_content}
        with self._path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def _search(self, query):
        if self._path is None or not self._path.exists():
            return []
        words = set(query.lower().split())
        found = []
        for line in self._path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if words & set(record["user"].lower().split()):
                found.append(f"user: {record['user']} / assistant: {record['assistant']}")
        return found

    def prefetch(self, query, *, session_id=""):
        return "\n".join(self._search(query))

    def handle_tool_call(self, tool_name, args, **kwargs):
        if tool_name != SEARCH_TOOL:
            return tool_error(f"unknown tool {tool_name!r}")
        return json.dumps({"results": self._search(str(args.get("query", "")))})
