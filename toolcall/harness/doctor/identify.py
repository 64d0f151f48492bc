"""What a captured stream is: its wire and framing, model, provider and route, each with why.

The wire and framing are the library's own reading. The model is what the events name. The
provider (the model's vendor, as providers.yaml keys them) comes from the model's name, from the
host the capture was sent to, or, when neither says, from the call ids' shape where exactly one
profile's `id_pattern` fits. The route (routes.yaml) comes from what relays and hosts add to the
events (OpenRouter's `provider` and `native_finish_reason`, Groq's `x_groq`, Azure's content
filter results, llama.cpp's `timings`, Vercel's `generationId`) or from the host; the candidates
are then narrowed by the quirk fingerprint (`fingerprint`) against the provider's declared quirks
as each route changes them. Where more than one answer is left, or none, the answer is
"unknown" with the candidates: a wrong name would send the user to the wrong tracker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..reading import wires
from ..suite import fingerprint
from ..suite.profiles import DIRECT, Suite
from .capture import Capture
from .reading import Reading

UNKNOWN = "unknown"

#: Model names' first word -> the providers.yaml key of their vendor.
MODEL_VENDORS: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-", "o1", "o3", "o4", "chatgpt-"),
    "anthropic": ("claude",),
    "deepseek": ("deepseek",),
    "glm": ("glm",),
    "kimi": ("kimi",),
    "qwen": ("qwen", "qwq"),
    "grok": ("grok",),
    "doubao": ("doubao",),
    "gemini": ("gemini",),
}

#: Fields relays and hosts add to chat chunks -> (the routes that add them, what it shows).
MARKERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "native_finish_reason+provider",
        ("openrouter*",),
        "OpenRouter's `provider` and `native_finish_reason` on its chunks",
    ),
    ("x_groq", ("groq", "hf-router-groq"), "Groq's `x_groq` object"),
    ("prompt_filter_results", ("azure",), "Azure's `prompt_filter_results` chunk"),
    ("timings", ("llama-cpp",), "llama.cpp's `timings` object"),
    ("generationId", ("vercel-ai-gateway",), "Vercel AI Gateway's `generationId`"),
    ("native_finish_reason", ("avian",), "`native_finish_reason` without OpenRouter's `provider`"),
    ("obfuscation", (DIRECT,), "OpenAI's `obfuscation` padding, which its own API adds"),
)


@dataclass
class Guess:
    """One answer with its evidence, or "unknown" with the candidates left."""

    value: str = UNKNOWN
    evidence: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "evidence": self.evidence, "candidates": self.candidates}


@dataclass
class Identity:
    wire: Guess
    framing: Guess
    model: Guess
    provider: Guess
    route: Guess
    #: The quirk fingerprint of a chat stream (None on the other wires, or unreadable).
    observed: fingerprint.Observed | None = None


def identify(suite: Suite, capture: Capture, reading: Reading) -> Identity:
    """Everything the capture says about where it came from."""
    observed = _observe(reading)
    model = _model(reading, capture)
    provider = _provider(suite, capture, reading, model.value, observed)
    route = _route(suite, capture, reading, provider.value, observed)
    return Identity(_wire(capture, reading), _framing(reading), model, provider, route, observed)


def _wire(capture: Capture, reading: Reading) -> Guess:
    if reading.wire == UNKNOWN:
        return Guess(evidence=["no event of the body could be read"])
    said = f"the library reads the events as the {reading.wire} wire"
    first = reading.first_events[0] if reading.first_events else {}
    if isinstance(first.get("type"), str):
        said += f" (first event of type {first['type']!r})"
    evidence = [said]
    if capture.url:
        evidence.append(f"requested at {_path(capture.url)}")
    return Guess(reading.wire, evidence)


def _framing(reading: Reading) -> Guess:
    why = {
        "sse": "server-sent events (`data:` lines)",
        "ndjson": "one JSON document per line",
        "json-array": "one JSON array, an element per event",
    }.get(reading.framing, "")
    evidence = [why] if why else []
    if reading.lines_as_sse:
        evidence.append(
            "the lines are another wire's events without their SSE framing: read as SSE"
        )
    return Guess(reading.framing, evidence)


def _path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or ''}{parts.path}"


def _model(reading: Reading, capture: Capture) -> Guess:
    for number, event in enumerate(reading.first_events):
        for where, value in _models_in(event):
            if isinstance(value, str) and value:
                return Guess(value, [f"event {number} names it in `{where}`"])
    if capture.request and isinstance(capture.request.get("model"), str):
        return Guess(capture.request["model"], ["the request names it"])
    return Guess(evidence=["no event names a model"])


def _models_in(event: Mapping[str, Any]) -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = [("model", event.get("model"))]
    for key in ("response", "message"):
        inner = event.get(key)
        if isinstance(inner, Mapping):
            found.append((f"{key}.model", inner.get("model")))
    found.append(("modelVersion", event.get("modelVersion")))
    return found


def _observe(reading: Reading) -> fingerprint.Observed | None:
    if reading.wire != "chat" or reading.framing != "sse" or not reading.head:
        return None
    try:
        return fingerprint.observe(bytes(reading.head))
    except wires.UnreadableBody:
        return None


def _offered(suite: Suite, provider: str, wire: str) -> bool:
    if wire == "chat":
        return provider in suite.providers
    return any(o.provider == provider and o.wire == wire for o in suite.wire_offers)


def _provider(
    suite: Suite,
    capture: Capture,
    reading: Reading,
    model: str,
    observed: fingerprint.Observed | None,
) -> Guess:
    host = _host_match(suite, capture)
    if host is not None and host[0] == "provider":
        return Guess(host[1], [f"the request went to {host[2]}, its base URL"])
    vendor = _vendor(model)
    if vendor is not None:
        if _offered(suite, vendor, reading.wire):
            return Guess(
                vendor, [f"the model {model!r} is {vendor}'s", *_ids(suite, vendor, observed)]
            )
        return Guess(
            evidence=[
                f"the model {model!r} is {vendor}'s, but providers.yaml knows no {vendor} "
                f"stream on the {reading.wire} wire: a host serving it?"
            ],
            candidates=[o.provider for o in suite.wire_offers if o.wire == reading.wire],
        )
    if observed is not None and observed.ids:
        fits = [
            key
            for key, p in suite.providers.items()
            if "id_pattern" in p.quirks
            and fingerprint.shows(observed, "id_pattern", p.quirks["id_pattern"])
        ]
        if len(fits) == 1:
            return Guess(fits[0], [f"the call ids fit providers.{fits[0]}.quirks.id_pattern only"])
        return Guess(
            evidence=["the model names no vendor; the call ids fit several"], candidates=fits
        )
    return Guess(evidence=["neither the model nor the ids name a vendor"])


def _ids(suite: Suite, provider: str, observed: fingerprint.Observed | None) -> list[str]:
    """What the call ids' shape says of `provider`: they fit its profile's `id_pattern`, or not
    (a route that rewrites ids, or a new shape)."""
    profile = suite.providers.get(provider)
    pattern = profile.quirks.get("id_pattern") if profile is not None else None
    if observed is None or pattern is None:
        return []
    fits = fingerprint.shows(observed, "id_pattern", pattern)
    if fits is None:
        return []
    where = f"providers.{provider}.quirks.id_pattern"
    return [f"the call ids fit {where}" if fits else f"the call ids do not fit {where}"]


def _vendor(model: str) -> str | None:
    name = model.lower().rsplit("/", 1)[-1]
    for vendor, prefixes in MODEL_VENDORS.items():
        if name.startswith(prefixes):
            return vendor
    return None


def _host_match(suite: Suite, capture: Capture) -> tuple[str, str, str] | None:
    """("provider" or "route", key, host) when the capture's URL is a known base URL's host."""
    host = urlsplit(capture.url).hostname if capture.url else None
    if not host or host in ("localhost", "127.0.0.1"):
        return None
    for key, p in suite.providers.items():
        if urlsplit(p.base_url).hostname == host:
            return ("provider", key, host)
    for offer in suite.wire_offers:  # another wire's endpoint of a provider (Anthropic's)
        if urlsplit(offer.endpoint).hostname == host:
            return ("provider", offer.provider, host)
    for key, r in suite.routes.items():
        if r.base_url and urlsplit(r.base_url).hostname == host:
            return ("route", key, host)
    return None


def markers(events: Sequence[Mapping[str, Any]]) -> list[tuple[tuple[str, ...], str]]:
    """The relay and host markers the chunks carry: (routes, what shows it), strongest first."""
    keys: set[str] = set()
    for event in events:
        keys.update(event)
        for choice in event.get("choices") or []:
            if isinstance(choice, Mapping):
                keys.update(choice)
    found = []
    for marker, routes, said in MARKERS:
        needed = marker.split("+")
        if all(k in keys for k in needed):
            found.append((routes, said))
            keys -= set(needed)
    return found


def _route(
    suite: Suite,
    capture: Capture,
    reading: Reading,
    provider: str,
    observed: fingerprint.Observed | None,
) -> Guess:
    host = _host_match(suite, capture)
    if host is not None:
        value = host[1] if host[0] == "route" else DIRECT
        return Guess(value, [f"the request went to {host[2]}"])
    if reading.wire != "chat" or provider == UNKNOWN:
        sent = urlsplit(capture.url).hostname if capture.url else None
        if provider == UNKNOWN:
            return Guess(evidence=["the provider is unknown, so no route can be told"])
        why = "no request URL" if sent is None else f"the request went to {sent}, no known host"
        marks = f"no relay's or host's marks are known on the {reading.wire} wire"
        return Guess(evidence=[f"nothing tells it: {marks}, and {why}"])
    found = markers(reading.first_events)
    if found:
        routes, said = found[0]
        evidence = [said, *_key_order(reading.first_events)]
        return _narrowed(suite, provider, observed, _expand(suite, routes), evidence, strong=True)
    # A route that marks its chunks would have shown its mark: only the others are left.
    marking = {r for _, routes, _ in MARKERS for r in _expand(suite, routes)} - {DIRECT}
    candidates = [DIRECT, *(k for k, r in suite.routes.items() if provider in r.changes)]
    candidates = [k for k in candidates if k not in marking]
    evidence = ["no relay's or host's mark on the chunks"]
    return _narrowed(suite, provider, observed, candidates, evidence, strong=False)


def _key_order(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The chunks' keys in alphabetical order, as Azure (and any server that writes a map
    sorted) writes them: evidence beside a mark, never a mark itself."""
    shaped = [list(event) for event in events if len(event) >= 4]
    if len(shaped) >= 3 and all(keys == sorted(keys) for keys in shaped):
        return ["the chunks' keys come in alphabetical order"]
    return []


def _expand(suite: Suite, routes: tuple[str, ...]) -> list[str]:
    out = []
    for route in routes:
        if route.endswith("*"):
            out += [k for k in suite.routes if k.startswith(route[:-1])]
        elif route == DIRECT or route in suite.routes:
            out.append(route)
    return out


def _narrowed(
    suite: Suite,
    provider: str,
    observed: fingerprint.Observed | None,
    candidates: list[str],
    evidence: list[str],
    *,
    strong: bool,
) -> Guess:
    """The candidates whose declared quirks (the provider's, as the route changes them) the
    stream does not contradict; one left is the answer. A `strong` mark names its only
    candidate whatever the quirks; the absence of marks needs the quirks to fit."""
    if len(candidates) == 1 and strong:
        return Guess(candidates[0], evidence)
    profile = suite.providers.get(provider)
    if profile is None or observed is None:
        return Guess(
            evidence=[*evidence, "nothing to tell the candidates apart"], candidates=candidates
        )
    fitting, drifts = [], []
    for key in candidates:
        route = suite.routes.get(key)
        declared = {**profile.quirks, **(route.changes_for(provider) if route else {})}
        drift = fingerprint.compare(declared, observed)
        drifts += [f"{key}: {q} declared {w!r}, seen {g!r}" for q, w, g in drift[:2]]
        if not drift:
            fitting.append(key)
    if len(fitting) == 1:
        what = f"the stream shows every quirk providers.yaml declares for {provider}"
        if fitting[0] != DIRECT:
            what += f" as routes.yaml's {fitting[0]} changes them"
        return Guess(fitting[0], [*evidence, what])
    if fitting:
        return Guess(evidence=[*evidence, "several routes fit the quirks"], candidates=fitting)
    said = f"no route's declared quirks fit ({'; '.join(drifts[:3])})"
    return Guess(evidence=[*evidence, said], candidates=candidates)
