"""config.yaml rewritten around a change: the user's comments, key order and quoting stay where values did not change.

PyYAML reads and writes plain values only, so writing config.yaml from them would drop every comment a
user wrote by hand. ruamel.yaml's round-trip mode keeps them: the file as it is is loaded into its
commented nodes, only the values that differ from the new settings are replaced (keys gone are deleted,
new keys are appended), and the nodes are written back. It is imported here alone, on the write path.

hermes reads YAML as 1.1 (PyYAML) and ruamel.yaml writes 1.2, which differ on words such as ``yes`` and
``on``: a new text value that PyYAML would read as something else is written quoted, and the caller
checks that the whole text reads back as the settings it was given before anything is written.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: A config.yaml larger than this is written plainly (hermes refuses to read much larger ones anyway).
MAX_KEPT_BYTES = 1 << 20


def edited_text(old_text: str, data: Mapping[str, Any]) -> str | None:
    """``old_text`` changed to hold ``data``, with its comments; ``None`` when it cannot be (then the caller writes plain YAML).

    ``old_text`` must already have passed hermes' own bounded reader (``yaml_limits``): it is parsed
    again here only to find its comments.
    """
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.comments import CommentedMap
    except ImportError:  # an install without it: the settings are still written, without the comments
        return None
    handler = YAML(typ="rt")
    handler.preserve_quotes = True
    handler.width = 4096  # long values stay on one line, as PyYAML wrote them
    try:
        handler.indent(**_indentation(old_text))
        document = handler.load(old_text)
    except Exception:  # noqa: BLE001 - any text ruamel.yaml cannot take back is written plainly instead
        return None
    if not isinstance(document, CommentedMap):
        return None
    _apply(document, data)
    out = io.StringIO()
    try:
        handler.dump(document, out)
    except Exception:  # noqa: BLE001 - a value it cannot represent: plain YAML, which the caller checks
        return None
    return out.getvalue()


def _indentation(text: str) -> dict[str, int]:
    """The file's own indentation, so lines no value of changes are written back as they were.

    ruamel.yaml writes a whole document in one style; its guess gives the column of a list item's
    text (``indent``) and of its dash (``offset``) from the file, the mapping indent is their difference.
    Without lists, new ones are written as PyYAML writes them (the dash under the key).
    """
    from ruamel.yaml.util import load_yaml_guess_indent

    _, indent, offset = load_yaml_guess_indent(text)
    offset = offset or 0
    mapping = indent - offset if indent and indent > offset else 2
    return {"mapping": mapping, "sequence": indent if indent and indent >= offset + 2 else offset + 2, "offset": offset}


def _same(current: Any, value: Any) -> bool:
    """Whether a loaded value already is ``value`` (kept then, with its quotes); ``1`` is not ``True``, nor ``"1"``."""
    if isinstance(current, bool) or isinstance(value, bool):
        return isinstance(current, bool) and isinstance(value, bool) and current == value
    if isinstance(current, str) != isinstance(value, str):
        return False
    if isinstance(current, Mapping) or isinstance(value, Mapping) or isinstance(current, list) or isinstance(value, list):
        return False
    return bool(current == value)


def _apply(node: Any, data: Mapping[str, Any]) -> None:
    """Make the commented mapping ``node`` hold ``data``, touching only what differs."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    for key in [k for k in node if k not in data]:
        _delete(node, key)
    for key, value in data.items():
        current = node.get(key) if key in node else None
        if key in node and isinstance(current, CommentedMap) and isinstance(value, Mapping):
            _apply(current, value)
        elif key in node and isinstance(current, CommentedSeq) and isinstance(value, list):
            lines = _apply_list(current, value)
            following = list(node)[list(node).index(key) + 1:]
            if lines.strip() and following:  # the list is empty now: the lines its last item carried go before the next key
                _keep_before(node, following[0], lines)
        elif not (key in node and _same(current, value)):
            lines = _take_trailing_of(current) if _is_container(current) else ""
            node[key] = _node_for(value)
            if lines.strip():
                _keep_after(node, key, lines)


def _apply_list(node: Any, value: list[Any]) -> str:
    """A list keeps the items (and their comments) that stay, in order; the rest is replaced.

    Returns the comment lines that followed its last item when no item is left to carry them.
    """
    kept = [i for i, item in enumerate(node) if i < len(value) and _same(item, value[i])]
    if len(kept) == len(node) == len(value):
        return ""
    lines = _take_trailing_of(node)  # what follows the list, whichever items go
    for index in reversed(range(len(node))):  # ruamel moves the comments of later items along
        if index >= len(value) or not _same(node[index], value[index]):
            _delete(node, index)
    if not (len(node) == len(value) and all(_same(a, b) for a, b in zip(node, value))):
        lines = _take_trailing_of(node) + lines
        node.clear()
        node.extend(_node_for(item) for item in value)
    if lines.strip() and len(node):
        _keep_after(node, _last(node), lines)
        return ""
    return lines


# ruamel.yaml keeps the comment lines between two entries with the entry before them (after its own
# end-of-line comment): removing or replacing that entry would take the next entry's comments with it,
# so they are moved to the entry left before it, or before the entry after it. Only lines whose every
# neighbour in their mapping or list is gone go with them.


def _slot(node: Any) -> int:
    """Where ruamel.yaml keeps the comment after an entry: slot 2 of a mapping's, slot 0 of a list's."""
    from ruamel.yaml.comments import CommentedMap

    return 2 if isinstance(node, CommentedMap) else 0


def _last(node: Any) -> Any:
    from ruamel.yaml.comments import CommentedMap

    return list(node)[-1] if isinstance(node, CommentedMap) else len(node) - 1


def _is_container(value: Any) -> bool:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    return isinstance(value, (CommentedMap, CommentedSeq))


def _take_trailing(node: Any, key: Any) -> str:
    """The full comment lines after entry ``key`` of ``node`` (after its last nested entry too), removed from it."""
    value = node[key]
    lines = _take_trailing(value, _last(value)) if _is_container(value) and len(value) else ""
    entry = node.ca.items.get(key)
    token = entry[_slot(node)] if entry else None
    if token is not None:
        own, _, rest = token.value.partition("\n")
        token.value = own + "\n" if own.strip() else "\n"
        lines = rest + lines
    return lines


def _keep_after(node: Any, key: Any, lines: str) -> None:
    """Put ``lines`` after entry ``key`` of ``node`` (after its last nested entry, for a mapping or list)."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    value = node[key]
    if _is_container(value) and len(value):
        _keep_after(value, _last(value), lines)
        return
    entry = node.ca.items.setdefault(key, [None, None, None, None])
    token = entry[_slot(node)]
    if token is None:
        entry[_slot(node)] = CommentToken("\n" + lines, CommentMark(0), None)
    else:
        token.value = (token.value if token.value.endswith("\n") else token.value + "\n") + lines


def _keep_before(node: Any, key: Any, lines: str) -> None:
    """Put ``lines`` before entry ``key`` of the mapping ``node``."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    entry = node.ca.items.setdefault(key, [None, None, None, None])
    indent = len(lines) - len(lines.lstrip(" "))
    entry[1] = [CommentToken(lines.lstrip(" "), CommentMark(indent), None), *(entry[1] or [])]


def _take_trailing_of(node: Any) -> str:
    return _take_trailing(node, _last(node)) if len(node) else ""


def _delete(node: Any, key: Any) -> None:
    """Remove entry ``key`` of ``node``, keeping the comment lines that belong to what follows it."""
    from ruamel.yaml.comments import CommentedMap

    keys = list(node) if isinstance(node, CommentedMap) else list(range(len(node)))
    position = keys.index(key)
    lines = _take_trailing(node, key)
    del node[key]
    if not lines.strip():
        return
    if position > 0:
        _keep_after(node, keys[position - 1], lines)
    elif isinstance(node, CommentedMap) and len(node):
        _keep_before(node, list(node)[0], lines)


def _node_for(value: Any) -> Any:
    """A new value for the document: text PyYAML would read as something else is quoted."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, Mapping):
        mapping = CommentedMap()
        for key, item in value.items():
            mapping[key] = _node_for(item)
        return mapping
    if isinstance(value, list):
        return CommentedSeq(_node_for(item) for item in value)
    if isinstance(value, str) and value and not _reads_back(value):
        return DoubleQuotedScalarString(value)
    return value


def _reads_back(text: str) -> bool:
    """Whether PyYAML reads ``text`` written plainly as the same text (not ``yes`` -> True, ``1.0`` -> 1.0, ``a: b``)."""
    if "\n" in text or text != text.strip():
        return False
    import yaml

    from hermes_core.yaml_limits import load_yaml

    try:
        return bool(load_yaml(text) == text)
    except (yaml.YAMLError, RecursionError):
        return False


def commented_config(path: Path, data: Mapping[str, Any]) -> str | None:
    """The text of config.yaml at ``path`` edited to hold ``data`` with its comments, when it reads back as ``data``.

    ``None`` (write plain YAML) when there is no file, nothing in it to keep, or the edited text
    would not read back exactly as ``data`` under hermes' own reader.
    """
    import yaml

    from hermes_core.errors import HermesError
    from hermes_core.files import read_limited_text
    from hermes_core.yaml_limits import load_yaml

    try:
        old_text = read_limited_text(path, MAX_KEPT_BYTES, what="config file")
        load_yaml(old_text)  # the bounded reader first: ruamel.yaml only ever parses text it accepted
    except (OSError, ValueError, HermesError, yaml.YAMLError, RecursionError):  # missing, unreadable, refused
        return None
    if "#" not in old_text:  # no comment to keep: the plain writer's layout, as before
        return None
    text = edited_text(old_text, data)
    if text is None:
        return None
    try:
        same = _canonical(load_yaml(text)) == _canonical(dict(data))
    except (yaml.YAMLError, RecursionError):
        return None
    return text if same else None


def _canonical(value: Any) -> str:
    """The settings as text to compare: sorted, and an alias written out (a parse read from hermes' cache shares nothing)."""
    import yaml

    class _Expanded(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    return yaml.dump(value, Dumper=_Expanded, sort_keys=True, allow_unicode=True)
