"""What a probe keeps when asked: its streams as cassettes of a route, and with `--accept` the
route's facts in routes.yaml, by the path `toolcall record --route` takes.

The cassettes are written where `make record` writes without `ACCEPT` (`commands.record.PENDING`,
out of what git tracks) unless `--save` names a folder, and under the suite's cassettes/ with
`--accept`: `<family>/routes/<route>/[wires/<wire>/]<scenario>.yaml`. Every byte written passed
`scrub` first (the key and every key of the environment masked, the URL without credentials or
query values), and `secrets.scan_text` must find nothing in the file, or it is not written.
Facts are accepted for the scenarios of scenarios.yaml on chat completions, the wire the
fingerprint and the profiles describe; a family that is no provider has no profile to differ
from, so nothing is accepted for it.
"""

from __future__ import annotations

import json
import platform
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import toolcall

from ..reading import wires
from ..recording import accept, scrub, secrets
from ..recording.record import Recorded
from ..suite import cassettes, fingerprint
from ..suite.cassettes import CHAT
from ..suite.profiles import Suite
from .runner import Exchange


class KeepError(Exception):
    """A cassette or a fact could not be written; the message names which and why."""


def save(
    root: Path,
    family: str,
    route: str,
    wire: str,
    model: str,
    exchanges: list[Exchange],
    keys: list[str],
) -> list[tuple[Exchange, Path]]:
    """Write each streamed, answered exchange as a cassette under `root` (the last repeat of a
    scenario wins); the paths written."""
    chosen = {e.scenario: e for e in exchanges if e.streamed and e.refused is None}
    written = []
    for scenario, exchange in chosen.items():
        path = cassettes.cassette_path(root, family, scenario, wire=wire, route=route)
        text = cassettes.dump(_cassette(exchange, family, route, wire, model, keys))
        leaks = secrets.scan_text(text, path, keys)
        if leaks:
            raise KeepError(
                f"{scenario}: scrubbing left {leaks[0].kind} in the cassette; not written"
            )
        cassettes.write_atomically(path, text)
        written.append((exchange, path))
    return written


def _cassette(
    exchange: Exchange, family: str, route: str, wire: str, model: str, keys: list[str]
) -> dict[str, Any]:
    cassette = cassettes.build(
        uri=scrub.redact(scrub.url(exchange.url), keys),
        request_body=json.dumps(exchange.request, ensure_ascii=False),
        request_headers=cassettes.request_headers(),
        status=exchange.status,
        reason="OK",
        response_headers={"Content-Type": [scrub.redact(exchange.content_type, keys)]},
        response_body=scrub.redact(exchange.body.decode("utf-8", "replace"), keys),
    )
    cassette["metadata"] = {
        "provenance": {
            "kind": "recorded",
            "provider": family,
            "route": route,
            "wire": wire,
            "recorded_by": "toolcall probe",
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
            "model": model,
            "versions": {"toolcall": toolcall.__version__, "python": platform.python_version()},
        }
    }
    return cassette


def accept_route(
    suite: Suite, family: str, route: str, saved: list[tuple[Exchange, Path]]
) -> accept.RouteChange:
    """The route's changes the saved chat streams of scenarios.yaml show, written into
    routes.yaml; the change is returned to be shown."""
    provider = suite.providers[family]
    recorded = []
    for exchange, path in saved:
        if exchange.scenario not in suite.scenarios:
            continue
        try:
            observed = fingerprint.observe(exchange.body)
        except wires.UnreadableBody:
            continue  # a stream the fingerprint cannot read shows no fact (the judges said why)
        seen = {k: v for k, v in observed.quirks.items() if v is not None}
        ids = [i for i in observed.ids if i]
        if ids:
            seen["id_pattern"] = fingerprint.suggest_pattern(ids)
        cell = provider.cells[exchange.scenario]
        declared = suite.route(route).quirks_over(family, exchange.scenario, cell.quirks)
        drift = fingerprint.compare(declared, observed)
        recorded.append(
            Recorded(family, exchange.scenario, path, len(exchange.body), drift, seen, ids, route)
        )
    change = accept.plan_route(suite, suite.route(route), recorded)
    accept.apply_routes(suite.root / "routes.yaml", [change])
    return change


def accept_problem(suite: Suite, family: str, route: str | None, wire: str) -> str | None:
    """Why `--accept` cannot be done for this probe, or None."""
    if route is None:
        return "--accept needs --route: the route of routes.yaml this endpoint is"
    if route not in suite.routes:
        return f"--route {route!r} is not in routes.yaml; known: {sorted(suite.routes)}"
    if family not in suite.providers:
        return f"--accept needs a family of providers.yaml (--family), not {family!r}"
    if wire != CHAT:
        return "--accept writes facts of the chat completions wire only (the profiles' wire)"
    return None
