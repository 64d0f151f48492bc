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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.representer import RoundTripRepresenter
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from ..suite.cassettes import write_atomically
from ..suite.profiles import ProfileError, load_routes, load_suite


class _Representer(RoundTripRepresenter):
    """ruamel.yaml writes YAML 1.2, where `yes`, `on` or `1:30` are plain strings; the suite reads
    the file with PyYAML (YAML 1.1), where they are a boolean and a number. A string that PyYAML
    would read as anything else is written quoted, so what is written is what is read back."""


def _represent_str(representer: RoundTripRepresenter, data: str) -> Any:
    other = _resolve(ScalarNode, data, (True, False)) != "tag:yaml.org,2002:str"
    return representer.represent_scalar("tag:yaml.org,2002:str", data, style="'" if other else None)


#: PyYAML's tag for a plain scalar (its resolver has no type hints).
_resolve: Callable[[type, str, tuple[bool, bool]], str] = Resolver().resolve
_Representer.add_representer(str, _represent_str)


def _editor() -> Any:
    yaml = YAML()  # round-trip mode
    yaml.Representer = _Representer
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
    """Write providers.yaml or routes.yaml at `path`, or raise `ProfileError` (naming `command`)
    and leave it untouched when the edited file would not load."""
    text = dump(document)
    try:
        if path.name == "routes.yaml":
            load_routes(path.parent, text)
        else:
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
