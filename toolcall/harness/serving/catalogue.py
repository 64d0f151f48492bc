"""Which body answers which request: the cassettes, the wire recordings, and bodies registered
at run time under a token (`X-Toolcall-Body`).

A recording name is looked up among the recordings that exist, never joined to a path, and an
unknown name gets the same 404 whether or not some file of that name exists elsewhere.
"""

from __future__ import annotations

import secrets as random_tokens
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..reading.wires import WIRE_PATHS
from ..suite import cassettes, recordings
from ..suite.cassettes import CHAT, WIRES
from ..suite.profiles import Suite
from ..suite.recordings import Recording
from .capture import Captures, Received


class NoCassette(LookupError):
    """No cassette or recording answers this request; the message says what is known."""


@dataclass
class Catalogue:
    """Which body answers which request: the cassettes, plus bodies registered at run time."""

    suite: Suite | None
    registered: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    captures: Captures = field(default_factory=Captures)

    def capture(self, received: Received) -> None:
        self.captures.add(received)

    def requests(self) -> list[Received]:
        """The last `capture.CAPTURED` requests received, oldest first."""
        return self.captures.requests()

    def clear_requests(self) -> int:
        return self.captures.clear()

    def register(self, body: bytes, wire: str = CHAT) -> str:
        """Serve `body` at `wire`'s path to any request carrying the returned token in
        `X-Toolcall-Body`."""
        token = random_tokens.token_hex(8)
        with self.lock:
            self.registered[token] = (wire, body)
        return token

    def registered_body(self, token: str, wire: str) -> bytes:
        """The body registered under `token`, asked for at `wire`'s path."""
        with self.lock:
            found = self.registered.get(token)
        if found is None:
            raise NoCassette(f"no registered body under X-Toolcall-Body {token!r}")
        if found[0] != wire:
            ending = "/".join(WIRE_PATHS[found[0]].ending)
            raise NoCassette(
                f"the body under X-Toolcall-Body {token!r} is of the {found[0]} wire, served at "
                f"…/{ending}, not at this {wire} path"
            )
        return found[1]

    def forget(self, token: str) -> None:
        with self.lock:
            self.registered.pop(token, None)

    def body_for(
        self,
        provider: str | None,
        request: Mapping[str, Any],
        *,
        scenario: str | None = None,
        token: str | None = None,
    ) -> bytes:
        """The body registered under `token`, else the cassette of `scenario` (or of the
        scenario whose request this is) for `provider`."""
        if token:
            return self.registered_body(token, CHAT)
        if self.suite is None:
            raise NoCassette("this server only serves registered bodies (X-Toolcall-Body)")
        if provider is None:
            raise NoCassette(
                "name the provider: /<provider>/v1/chat/completions or X-Toolcall-Provider; "
                f"known: {sorted(self.suite.providers)}"
            )
        if provider not in self.suite.providers:
            raise NoCassette(
                f"unknown provider {provider!r}; known: {sorted(self.suite.providers)}"
            )
        scenario = scenario or self._match(self.suite, request)
        if scenario.startswith(recordings.PUBLISHED + "/"):
            stem = scenario.removeprefix(recordings.PUBLISHED + "/")
            known = self._published(self.suite, provider)
            if stem not in known:  # the name is looked up, never joined to a path
                raise NoCassette(
                    f"no published recording {stem!r} for {provider}; known: {sorted(known)}"
                )
            path = known[stem]
        else:
            cell = self.suite.providers[provider].cells.get(scenario)
            if cell is None:
                raise NoCassette(
                    f"unknown scenario {scenario!r}; known: {sorted(self.suite.scenarios)}"
                )
            if cell.not_applicable:
                raise NoCassette(f"{provider}/{scenario} does not apply: {cell.not_applicable}")
            path = cassettes.cassette_path(self.suite.cassettes, provider, scenario)
        if not path.is_file():
            raise NoCassette(f"no cassette for {provider}/{scenario}")
        return cassettes.response_body(cassettes.load(path))

    @staticmethod
    def _published(suite: Suite, provider: str) -> dict[str, Path]:
        """The provider's published recordings by name: the only names a request may use."""
        folder = suite.cassettes / provider / recordings.PUBLISHED
        return {path.name.removesuffix(".yaml"): path for path in folder.glob("*.yaml")}

    @staticmethod
    def _match(suite: Suite, request: Mapping[str, Any]) -> str:
        """The scenario whose request this is: same messages and same tools."""
        for name, scenario in suite.scenarios.items():
            wanted = scenario.request
            if request.get("messages") == wanted.get("messages") and request.get(
                "tools"
            ) == wanted.get("tools"):
                return name
        raise NoCassette(
            "the request matches no scenario's messages and tools; send one from scenarios.yaml "
            "or name it in the path (/<provider>/<scenario>/v1) or in X-Toolcall-Scenario "
            f"(known: {sorted(suite.scenarios)})"
        )

    def recording_for(
        self, wire: str, provider: str | None, scenario: str | None, framing: str = ""
    ) -> Recording:
        """The recording a request on another wire than chat asks for, by name or by its
        path's provider, in the `framing` it asks for (`recordings.Recording.framing`)."""
        if self.suite is None:
            raise NoCassette("this server only serves registered bodies (X-Toolcall-Body)")
        suite = self.suite
        offers = [o for o in suite.wire_offers if o.wire == wire]
        by_name = {r.name: r for r in recordings.discover(suite.cassettes, wire=wire)}
        known = sorted(f"{WIRES}/{wire}/{name}" for name in by_name)
        if provider is not None and provider not in {o.provider for o in suite.wire_offers}:
            providers = sorted({o.provider for o in suite.wire_offers})
            raise NoCassette(f"unknown provider {provider!r}; the wires are offered by {providers}")
        if scenario:
            name = scenario.removeprefix(f"{WIRES}/{wire}/")
            if not scenario.startswith(f"{WIRES}/{wire}/") or name not in by_name:
                raise NoCassette(f"no {wire} recording {scenario!r} on this path; known: {known}")
            if provider is not None and not any(
                o.provider == provider and name in o.recordings for o in offers
            ):
                raise NoCassette(f"{scenario} is not a recording of {provider}'s {wire} wire")
            found = by_name[name]
            if found.framing != framing:
                asked = "without ?alt=sse" if found.framing else "with ?alt=sse"
                raise NoCassette(f"{scenario} is answered to a request {asked}")
            return found
        if provider is None:
            raise NoCassette(
                f"name the recording in X-Toolcall-Scenario ({known}) or the provider as the "
                "path's first segment (/<provider>/...)"
            )
        names = [n for o in offers if o.provider == provider for n in o.recordings]
        fitting = [n for n in names if n in by_name and by_name[n].framing == framing]
        if not fitting:
            framed = f" as a {framing}" if framing else ""
            raise NoCassette(f"{provider} has no {wire} recording{framed}; known: {known}")
        return by_name[fitting[0]]
