"""Synthesized cassettes: a scenario's `reply` rendered as one provider sends it, on every wire
it offers.

Most cells cannot be recorded (no keys, no budget, eight providers on five wires), yet a reader
has to be proved against each provider's stream as it really is. So how each provider's stream
looks is written down as DATA in providers.yaml, beside the evidence it rests on, and this
package only interprets it; there is no `if provider == ...` anywhere in it. One table says how
each wire is rendered (`_RENDERERS`): chat completions from the templates of the provider's
`synthesis` block (`templates`, where the block's format is documented), Responses, Anthropic
Messages and Gemini by copying the events of the recordings the `synthesis` block of the wire
offer `follows` (`copies`). Ollama has no renderer: no provider with scenarios offers it.

Output is deterministic (same input, byte-identical files): everything that looks random (ids,
obfuscation padding, timestamps) comes from generators seeded with provider, wire and scenario.
A cassette whose own metadata says it was recorded or published is evidence and is never
overwritten; a cell whose reply needs an event no followed recording shows is left out, named.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..suite import cassettes
from ..suite.cassettes import CHAT
from ..suite.profiles import Cell, Provider, Suite, WireOffer
from . import copies
from .copies import Shape, Unshown, skeleton, structure_problems, wire_request
from .templates import (
    SYNTHESIS_SCHEMA,
    SYNTHESIZED,
    SynthesisError,
    content_type,
    cut,
    generate,
    render_reply,
    settings,
)

__all__ = [
    "SYNTHESIS_SCHEMA",
    "SYNTHESIZED",
    "Shape",
    "SynthesisError",
    "Unshown",
    "cassette_text",
    "cells",
    "cut",
    "generate",
    "render",
    "render_reply",
    "settings",
    "shape",
    "skeleton",
    "structure_problems",
    "synthesize",
    "wire_request",
]


def shape(suite: Suite, provider: str, wire: str) -> Shape | None:
    """The shape of `provider`'s synthesized cassettes on `wire` (not chat), if it has one."""
    offer = _offer(suite, provider, wire)
    if offer is None or offer.synthesis is None:
        return None
    return Shape.of(offer.synthesis)


def cells(
    suite: Suite, provider: str | None = None, scenario: str | None = None
) -> Iterator[tuple[Provider, Cell, str]]:
    """Every (provider, scenario, wire) `synthesize` renders: on chat each applicable cell
    providers.yaml says is synthesized, then on each wire with a `synthesis` block each
    applicable cell."""
    selected = [
        (prov, cell)
        for prov, _scen, cell in suite.cells(provider, scenario)
        if cell.not_applicable is None
    ]
    for prov, cell in selected:
        if cell.provenance.get("kind") == SYNTHESIZED:
            yield prov, cell, CHAT
    for prov, cell in selected:
        for offer in suite.wire_offers:
            if offer.provider == prov.key and offer.synthesis is not None:
                yield prov, cell, offer.wire


def render(suite: Suite, provider: Provider, cell: Cell, wire: str = CHAT) -> str:
    """The body `provider` would send for `cell` on `wire`, carrying the scenario's `reply`."""
    if cell.not_applicable is not None:
        raise SynthesisError(f"{cell.id} is not applicable: {cell.not_applicable}")
    renderer = _RENDERERS.get(wire)
    if renderer is None:
        raise SynthesisError(f"{provider.key}@{wire}: no renderer for the {wire} wire")
    return renderer(suite, provider, cell, wire)


def cassette_text(suite: Suite, provider: Provider, cell: Cell, wire: str = CHAT) -> str:
    """The exact text `synthesize` writes for a cell on a wire (what a stale-cassette check
    compares)."""
    body = render(suite, provider, cell, wire)
    chat_request = suite.request_body(provider, cell)
    if wire == CHAT:
        uri = provider.base_url + "/chat/completions"
        request: dict[str, Any] = dict(chat_request)
        headers = [content_type(provider, cell.scenario)]
        where = f"providers.yaml providers.{provider.key}.synthesis"
        provenance: dict[str, Any] = {"kind": SYNTHESIZED}
        follows: Any = " ".join(str(cell.provenance.get("follows", "")).split())
    else:
        offer = _offer(suite, provider.key, wire)
        shaped = shape(suite, provider.key, wire)
        assert offer is not None and shaped is not None  # `render` found the renderer
        uri = offer.endpoint.replace("{model}", cell.model)
        request = wire_request(wire, chat_request)
        headers = ["text/event-stream; charset=utf-8"]
        where = f"providers.yaml providers.{provider.key}.wires.{wire}.synthesis"
        provenance = {"kind": SYNTHESIZED, "wire": wire}
        follows = copies.follows_paths(suite, wire, shaped)
    cassette = cassettes.build(
        uri=uri,
        request_body=json.dumps(request, ensure_ascii=False),
        request_headers=cassettes.request_headers(),
        status=200,
        reason="OK",
        response_headers={"Content-Type": headers},
        response_body=body,
    )
    provenance["rendered_from"] = f"{where} and scenarios.yaml scenarios.{cell.scenario}.reply"
    provenance["follows"] = follows
    cassette["metadata"] = {"provenance": provenance}
    return cassettes.dump(cassette)


def synthesize(
    suite: Suite, provider: str | None = None, scenario: str | None = None
) -> tuple[list[Path], list[str]]:
    """Write every cassette `cells` names; return the paths and, one line each, the cells left
    out because their reply needs an event no followed recording shows (a synthesized cassette
    left from before is removed)."""
    written, left_out = [], []
    for prov, cell, wire in cells(suite, provider, scenario):
        path = cassettes.cassette_path(suite.cassettes, prov.key, cell.scenario, wire=wire)
        if cassettes.evidence_kind(path) not in (None, SYNTHESIZED):
            continue
        try:
            text = cassette_text(suite, prov, cell, wire)
        except Unshown as exc:
            left_out.append(str(exc))
            path.unlink(missing_ok=True)
            continue
        cassettes.write_atomically(path, text)
        written.append(path)
    return written, left_out


def _offer(suite: Suite, provider: str, wire: str) -> WireOffer | None:
    return next((o for o in suite.wire_offers if (o.provider, o.wire) == (provider, wire)), None)


def _chat(suite: Suite, provider: Provider, cell: Cell, _wire: str) -> str:
    return render_reply(suite, provider, cell, suite.scenarios[cell.scenario].reply)


def _copied(suite: Suite, provider: Provider, cell: Cell, wire: str) -> str:
    shaped = shape(suite, provider.key, wire)
    if shaped is None:
        raise SynthesisError(f"providers.{provider.key}.wires.{wire} has no synthesis block")
    return copies.render(suite, provider, cell, wire, shaped)


#: How each wire is rendered: chat from the provider's templates, the others by copying the
#: events of the recordings the offer follows.
_RENDERERS: dict[str, Callable[[Suite, Provider, Cell, str], str]] = {
    CHAT: _chat,
    **{wire: _copied for wire in copies.RENDERED_WIRES},
}
