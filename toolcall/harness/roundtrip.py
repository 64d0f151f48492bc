"""providers.yaml edited in place: ruamel.yaml's round-trip mode, set up as the file is written.

The file's comments are evidence (where a value came from, why a scenario does not apply), so
every command that writes it (`record --accept`, `add-provider`) goes through here: comments, key
order, quoting and flow style survive, and loading then saving an unchanged file gives it back
byte for byte. A new entry is written in the file's own style: quirk entries and provenances as
one-line flow maps. Nothing is written that would not load: the edited text is checked as a suite
(schema and cross-references) first, and on a refusal the file is left byte for byte.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from .cassettes import write_atomically
from .profiles import ProfileError, load_suite


def _editor() -> Any:
    yaml = YAML()  # round-trip mode
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a long flow line
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def load(path: Path) -> Any:
    """The document at `path`, as ruamel's commented mappings."""
    return _editor().load(path.read_text(encoding="utf-8"))


def dump(document: Any) -> str:
    out = io.StringIO()
    _editor().dump(document, out)
    return out.getvalue()


def save(path: Path, document: Any, command: str) -> None:
    """Write providers.yaml at `path`, or raise `ProfileError` (naming `command`) and leave it
    untouched when the edited file would not load."""
    text = dump(document)
    try:
        load_suite(path.parent, providers_text=text)
    except ProfileError as exc:
        raise ProfileError(
            f"{command}: refused, {path.name} is left as it was: the edited file would not load "
            f"({exc})"
        ) from None
    write_atomically(path, text)


def block() -> Any:
    """An empty mapping written in block style."""
    node = CommentedMap()
    node.fa.set_block_style()
    return node


def flow(data: Mapping[str, Any]) -> Any:
    """`data` as a one-line flow map (its lists as flow sequences)."""
    node = CommentedMap()
    for key, value in data.items():
        if isinstance(value, list):
            seq = CommentedSeq(value)
            seq.fa.set_flow_style()
            value = seq
        node[key] = value
    node.fa.set_flow_style()
    return node
