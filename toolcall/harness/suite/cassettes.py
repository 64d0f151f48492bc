"""Cassettes on disk: vcrpy's format, written to be read by people and by other languages.

vcrpy's own YAML dumper stores an SSE body as one double-quoted, line-folded scalar with escaped
non-ASCII, which nobody can review, and its file persister writes with the locale's encoding,
which fails under `LC_ALL=C` (both verified, see RECORDING-NOTES). So cassettes are written here:
multi-line strings as literal blocks (one SSE line per line), UTF-8 always, and atomically (a
temporary file renamed into place), so a failed write never leaves half a cassette. PyYAML falls
back to a quoted scalar by itself when a literal block could not round-trip (`\\r\\n` bodies); it
does not notice that a YAML reader turns NEL, LS and PS (U+0085, U+2028, U+2029) inside a literal
block into line feeds, so a string holding one is written quoted here. Reading refuses anything
but a mapping of plain YAML, as the typed `CassetteError`, so one bad file is one failing cell.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

CASSETTE_FORMAT_VERSION = 1


#: PyYAML's safe loader, libyaml's when present (about ten times faster); every YAML the suite
#: reads (cassettes, profiles, scenarios) goes through it.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


#: Characters a YAML reader takes as line breaks inside a literal block (YAML 1.1, which PyYAML
#: reads): a literal block would hand them back as `\\n`.
_YAML_ONLY_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


class CassetteError(Exception):
    """A cassette file that cannot be read as one; the message names the file and the reason."""


class _ReadableDumper(yaml.SafeDumper):
    """Literal blocks for multi-line strings; everything else as PyYAML's safe dumper does."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if any(c in value for c in _YAML_ONLY_BREAKS):
        style: str | None = '"'  # the one style that escapes them (a single-quoted one folds them)
    else:
        style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_ReadableDumper.add_representer(str, _represent_str)


class CassetteSerializer:
    """vcrpy serializer (`serialize`/`deserialize`) producing the readable form."""

    @staticmethod
    def serialize(cassette: dict[str, Any]) -> str:
        return dump(cassette)

    @staticmethod
    def deserialize(text: str) -> dict[str, Any]:
        loaded = yaml.load(text, Loader=SAFE_LOADER)
        if not isinstance(loaded, dict):
            raise ValueError("a cassette must be a YAML mapping")
        return loaded


class Utf8Persister:
    """vcrpy persister that reads and writes UTF-8 whatever the locale, atomically."""

    @classmethod
    def load_cassette(cls, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.serialize import deserialize

        path = Path(cassette_path)
        if not path.is_file():
            raise CassetteNotFoundError()
        return deserialize(path.read_text(encoding="utf-8"), serializer)

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize

        write_atomically(Path(cassette_path), serialize(cassette_dict, serializer))


def dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_ReadableDumper, allow_unicode=True, sort_keys=False, width=120)


#: Suffix of the temporary file a cassette is written to before its rename (git-ignored).
TEMPORARY_SUFFIX = ".tmp"


def write_atomically(path: Path, text: str, check: Callable[[Path], None] | None = None) -> None:
    """Write `text` as UTF-8 to `path` through a temporary file and a rename.

    `check` sees the temporary file before the rename and may raise to keep the old file: what
    is judged is what will be on disk, not the string that was meant to get there. The file is
    created with the process's umask, as any other file of the checkout is (a temporary-file
    helper would make it private, which git then records for everyone).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}{TEMPORARY_SUFFIX}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if check is not None:
            check(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


#: The wire of chat completions; a cassette on it sits at the top of its provider's folder.
CHAT = "chat"
#: The folder under `cassettes/<provider>/` holding cassettes recorded through a route.
ROUTES = "routes"
#: The folder under `cassettes/<provider>/` holding the cassettes of its other wires.
WIRES = "wires"


def cassette_path(
    root: Path, provider: str, scenario: str, *, wire: str = CHAT, route: str | None = None
) -> Path:
    """Where a cell's cassette is kept: `<provider>/<scenario>.yaml` for chat completions
    reached directly; a cell recorded through a route (not `direct`) sits under
    `routes/<route>/` and one on another wire under `wires/<wire>/`, beside the provider's own
    cassettes, never in their place."""
    folder = root / provider
    if route is not None:
        folder = folder / ROUTES / route
    if wire != CHAT:
        folder = folder / WIRES / wire
    return folder / f"{scenario}.yaml"


def request_headers() -> dict[str, list[str]]:
    """The only request headers a cassette keeps: what a replay needs, never a credential."""
    return {"Content-Type": ["application/json"], "Accept": ["text/event-stream"]}


def build(
    *,
    uri: str,
    request_body: str,
    request_headers: dict[str, list[str]],
    status: int,
    reason: str,
    response_headers: dict[str, list[str]],
    response_body: str,
) -> dict[str, Any]:
    """One interaction in vcrpy's cassette layout (format version 1)."""
    return {
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": uri,
                    "body": request_body,
                    "headers": request_headers,
                },
                "response": {
                    "status": {"code": status, "message": reason},
                    "headers": response_headers,
                    "body": {"string": response_body},
                },
            }
        ],
        "version": CASSETTE_FORMAT_VERSION,
    }


def load(path: Path) -> dict[str, Any]:
    """The cassette at `path`; a file that is not one raises `CassetteError` naming it."""
    try:
        cassette = CassetteSerializer.deserialize(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CassetteError(f"{path}: no such cassette") from None
    except (yaml.YAMLError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        reason = " ".join(str(exc).split())
        raise CassetteError(f"{path}: not a readable cassette: {reason}") from None
    interactions = cassette.get("interactions")
    if not (
        isinstance(interactions, list)
        and interactions
        and all(
            isinstance(i, dict)
            and isinstance(i.get("request"), dict)
            and isinstance(i.get("response"), dict)
            for i in interactions
        )
    ):
        raise CassetteError(f"{path}: not a cassette: no `interactions` with request and response")
    return cassette


def response_body(cassette: dict[str, Any]) -> bytes:
    """The body of the cassette's only response, as the bytes that went over the wire."""
    body = cassette["interactions"][0]["response"]["body"]["string"]
    return body if isinstance(body, bytes) else str(body).encode("utf-8")


def evidence_kind(path: Path) -> str | None:
    """What a cassette on disk says it is (`recorded`, `published`, `synthesized`), or None.

    The cassette's own metadata is the authority: a file that says it was recorded or published
    is evidence, and nothing that renders cassettes may replace it.
    """
    if not path.is_file():
        return None
    try:
        metadata = load(path).get("metadata") or {}
    except CassetteError:
        return None
    provenance = metadata.get("provenance") if isinstance(metadata, dict) else None
    kind = provenance.get("kind") if isinstance(provenance, dict) else None
    return str(kind) if kind else None
