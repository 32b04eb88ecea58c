"""The one way hermes parses YAML (config.yaml, plugin.yaml, command-line values): safe types, bounded.

A few hundred bytes of YAML can describe billions of nodes through nested aliases
(an "alias bomb"), a cycle through a recursive alias, or nesting deep enough to crash
the C parser. Before anything is built, the event stream is checked for depth, then
the composed node graph for cycles and for its size once every alias is expanded.
"""

from __future__ import annotations

from typing import Any

import yaml

#: Nesting of mappings and lists, counting what aliases add; real files stay under 20.
MAX_DEPTH = 100
#: Nodes once every alias is expanded; a large config.yaml has a few thousand.
MAX_EXPANDED_NODES = 100_000


class YamlLimitError(yaml.YAMLError):
    """YAML that is well formed but refused: too deep, recursive, or too large once expanded."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark

    def __str__(self) -> str:
        return self.problem


def _loader_class() -> type:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _check_event_depth(text: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH while it is still a flat stream of events."""
    loader = _loader_class()(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise YamlLimitError(f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # libyaml (as bundled since PyYAML 6.0.4) stops at 1,000 levels while scanning ahead, before
        # the parser hands over the 101st start event: that is the same refusal, not a syntax error
        if "nesting depth" not in str(exc.problem or ""):
            raise
        raise YamlLimitError(f"nested more than {MAX_DEPTH} levels deep", exc.problem_mark) from None
    finally:
        loader.dispose()


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_graph(root: yaml.Node) -> None:
    """Refuse cycles, and graphs too large or too deep once aliases are expanded (no recursion here)."""
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        children = _children(node)
        if finished:
            on_path.discard(key)
            size = 1 + sum(sizes[id(child)] for child in children)
            depth = 1 + max((depths[id(child)] for child in children), default=0)
            if size > MAX_EXPANDED_NODES:
                raise YamlLimitError(
                    f"aliases expand to more than {MAX_EXPANDED_NODES:,} values (an alias bomb?)", node.start_mark
                )
            if depth > MAX_DEPTH:
                raise YamlLimitError(f"aliases nest values more than {MAX_DEPTH} levels deep", node.start_mark)
            sizes[key], depths[key] = size, depth
            continue
        if key in sizes:
            continue
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise YamlLimitError("an alias refers to a value that contains it (a recursive alias)", child.start_mark)
            if id(child) not in sizes:
                stack.append((child, False))


def load_yaml(text: str) -> Any:
    """Parse one YAML document into plain Python values (safe types only).

    :raises yaml.YAMLError: for invalid YAML, and :class:`YamlLimitError` (a subclass) for refused YAML.
    """
    _check_event_depth(text)
    loader = _loader_class()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def describe_yaml_error(exc: yaml.YAMLError, *, invalid: str = "invalid YAML") -> str:
    """``invalid YAML at line 3, column 5: <problem>`` for a parse error, ``refused YAML ...`` for a refusal."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc)
    verb = "refused YAML" if isinstance(exc, YamlLimitError) else invalid
    return f"{verb}{where}: {problem}"
