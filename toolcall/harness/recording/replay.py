"""Replay a cassette through vcrpy and a real httpx client, with the network blocked.

Going through the real client (not reading the YAML) proves the cassette still matches the request
the profile would send today: edit a scenario's prompt without re-recording and vcrpy refuses the
request, naming the difference. The socket guard turns any request that slipped past vcrpy into a
loud error instead of a live call with somebody's key (vcrpy once let httpx2 traffic through
silently, kevin1024/vcrpy#990).
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import vcr
from vcr.errors import CannotOverwriteExistingCassetteException

from ..suite.cassettes import CassetteError, CassetteSerializer, Utf8Persister, load
from .scrub import chat_url

MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "body")


class ReplayError(Exception):
    """The cassette could not be replayed for the request the profile sends today."""


class NetworkBlocked(RuntimeError):
    """Something tried to open a socket while replay forbids the network."""


@contextmanager
def no_network(*, loopback: bool = False) -> Iterator[None]:
    """Refuse every outgoing connection for the duration; loopback too unless `loopback` (the
    matrix's HTTP clients talk to the local simulator, and nothing else)."""
    original = socket.socket.connect, socket.socket.connect_ex

    def refuse(self: socket.socket, address: Any) -> Any:
        if loopback and _is_loopback(address):
            return original[0](self, address)
        raise NetworkBlocked(f"network is blocked during replay (connect to {address!r})")

    setattr(socket.socket, "connect", refuse)  # noqa: B010 (mypy rejects a direct assignment)
    setattr(socket.socket, "connect_ex", refuse)  # noqa: B010
    try:
        yield
    finally:
        setattr(socket.socket, "connect", original[0])  # noqa: B010
        setattr(socket.socket, "connect_ex", original[1])  # noqa: B010


def _is_loopback(address: Any) -> bool:
    host = address[0] if isinstance(address, tuple) and address else None
    try:
        return isinstance(host, str) and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def replay_vcr() -> vcr.VCR:
    player = vcr.VCR(
        record_mode="none",
        match_on=list(MATCH_ON),
        serializer="readable",
        decode_compressed_response=False,
    )
    player.register_serializer("readable", CassetteSerializer)
    player.register_persister(Utf8Persister)
    return player


@dataclass(frozen=True)
class Replayed:
    """What came back: the status, the raw body bytes, and the cassette's recorded provenance."""

    status: int
    body: bytes
    provenance: dict[str, Any]


def replay(path: Path, base_url: str, body: dict[str, Any]) -> Replayed:
    """POST `body` under the cassette and return what the client received.

    A cassette recorded through a gateway or a local server names that base URL in its
    provenance; the request goes there, so it matches what was recorded.
    """
    if not path.is_file():
        raise ReplayError(f"no cassette at {path}")
    # vcrpy's own metadata accessor refuses, in record mode "none", a key a cassette lacks, so the
    # provenance is read from the file here (the C YAML loader makes the second parse cheap).
    metadata = _load(path).get("metadata") or {}
    provenance = (metadata.get("provenance") or {}) if isinstance(metadata, dict) else {}
    url = chat_url(str(provenance.get("base_url") or base_url))
    return _post(path, url, json.dumps(body).encode("utf-8"), provenance)


def replay_own_request(path: Path) -> Replayed:
    """POST the request the cassette itself holds, and return what the client received.

    For published recordings: their sources publish the response, and the request in the
    cassette is a placeholder, so there is no profile request to match against. The bytes still
    travel through vcrpy and a real httpx client, as every other cassette's do.
    """
    if not path.is_file():
        raise ReplayError(f"no cassette at {path}")
    cassette = _load(path)
    request = cassette["interactions"][0]["request"]
    metadata = cassette.get("metadata") or {}
    provenance = (metadata.get("provenance") or {}) if isinstance(metadata, dict) else {}
    body = request["body"]
    data = body if isinstance(body, bytes) else str(body).encode("utf-8")
    return _post(path, str(request["uri"]), data, provenance)


def _load(path: Path) -> dict[str, Any]:
    try:
        return load(path)
    except CassetteError as exc:
        raise ReplayError(str(exc)) from None


def _post(path: Path, url: str, data: bytes, provenance: dict[str, Any]) -> Replayed:
    try:
        with no_network(), replay_vcr().use_cassette(str(path)), httpx.Client() as client:
            headers = {"Accept": "text/event-stream", "Content-Type": "application/json"}
            with client.stream("POST", url, content=data, headers=headers) as response:
                raw = b"".join(response.iter_raw())
                return Replayed(response.status_code, raw, dict(provenance))
    except CannotOverwriteExistingCassetteException as exc:
        first_line = str(exc).strip().splitlines()[0]
        raise ReplayError(
            f"the request the profile sends today does not match {path.name}: {first_line} "
            "(re-record it, or revert the scenario change)"
        ) from None
