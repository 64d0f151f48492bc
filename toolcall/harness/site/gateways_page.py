"""The gateways page: per gateway, every stream sent through it with its mark in words, what
broke and the fix, and the changes seen that broke nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .html import esc, page, table, value, verdict
from .inputs import MADE_BY

#: Each mark of the gateways report (`gateways.report`) in words.
WORDS = {
    "TURN": "the assembled turn differs",
    "ERROR": "no answer",
    "REQ": "a request field did not reach upstream as sent",
    "CLIENT": "an HTTP client made wrong",
    "USAGE": "the token counts differ",
    "HANG": "hangs",
    "EMPTY": "an empty answer",
    "HIDDEN": "a fault hidden from the client",
    "200": "a fault sent as 200",
    "pass": "pass",
    "same": "byte for byte the same",
}


def mark(word: str) -> str:
    said = WORDS.get(word, word)
    shown = said if said == word else f"{word}: {said}"
    return verdict("pass" if word in ("pass", "same") else "fail", said=shown)


def _gateway(gateway: Mapping[str, Any]) -> str:
    streams = gateway["streams"]
    passed = sum(1 for s in streams if s["passed"])
    parts = [
        f'<h2 id="gateway-{esc(gateway["name"])}">{esc(gateway["name"])}</h2>',
        f"<p>{esc(gateway['version'])}; {esc(gateway['how'])}. "
        f'<span data-passed="{passed}">{passed}</span> of '
        f'<span data-total="{len(streams)}">{len(streams)}</span> streams passed.</p>',
    ]
    if gateway["unavailable"]:
        parts.append(f"<p>Unavailable: {esc(gateway['unavailable'])}</p>")
    rows = []
    for s in streams:
        problems = "".join(
            f"<p>{esc(p['what'])}</p>"
            + "".join(f"<pre>{esc(e)}</pre>" for e in p["evidence"])
            + f"<p>fix: {esc(p['fix'])}</p>"
            for p in s["problems"]
        )
        rows.append(
            [esc(s["provider"]), esc(s["column"]), esc(s["fault"] or ""), mark(s["mark"]), problems]
        )
    parts.append(table(["provider", "stream", "fault", "mark", "what broke and the fix"], rows))
    if gateway["skipped"]:
        parts.append("<h3>Not carried</h3>" + value(gateway["skipped"]))
    if gateway["changes"]:
        parts.append("<h3>Changes seen</h3>" + value(gateway["changes"]))
    return "".join(parts)


def render(document: Mapping[str, Any] | None) -> str:
    if document is None:
        body = (
            f'<p class="muted">No run yet: <code>{esc(MADE_BY["gateways"])}</code> writes it.</p>'
        )
    else:
        body = "<h2>The run</h2>" + value(document["about"])
        body += "".join(_gateway(g) for g in document["gateways"])
    return page("Gateways", body)
