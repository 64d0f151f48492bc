"""Record fresh cassettes from a live provider, safely.

The request goes out through httpx with the user's key; the cassette is written only after the
whole stream arrived within its bounds (a total deadline and a size cap: a server that streams
forever, or sends a keep-alive every few seconds, must not hold the recorder or fill the disk),
assembled into a finished turn that meets the scenario's expectation (a wrong tool or a missing
parallel call is the recording's fault, said before anything is written), and was scrubbed by
structure (`scrub`). The file is then written through a temporary file that must load back to
exactly the cassette meant and replay through vcrpy before it is renamed into place, so a 401, a
rate limit, a cut stream or a cassette YAML would read differently leaves the previous cassette
exactly as it was. Recording does not go through vcrpy: its filters do not touch response headers
and it writes whatever the server sent, while here every byte that reaches the disk has passed
the allow-lists. The cassette it writes is a vcrpy cassette all the same.

The new stream's fingerprint is returned with the drift against the profile; what to do with it
(print it as YAML, or apply it to providers.yaml or routes.yaml) is `accept`'s job.

A recording is attributed to its route (routes.yaml), never silently to the provider: a base URL
that is not the provider's own is refused unless a route is named (`direct` for an alternate
domain of the vendor), a route's cassettes go under `cassettes/<provider>/routes/<route>/`, and
their drift is measured against the provider's quirks with the route's changes over them. Extra
headers (a gateway's routing headers) and a model alias are sent as given; the headers are never
written, and their values are scrubbed from everything written or printed, as the key is.
"""

from __future__ import annotations

import json
import os
import platform
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

import toolcall

from ..checks import check_turn
from ..suite import cassettes, fingerprint
from ..suite.profiles import DIRECT, Cell, ProfileError, Provider, Route, Suite
from . import scrub, secrets
from .replay import ReplayError, replay

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Defaults for one cell: a real provider streams a scenario in seconds and in kilobytes.
DEFAULT_DEADLINE = 300.0
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
#: How much of an error body is read at most (it is cut to `scrub.DETAIL_LENGTH` when printed).
ERROR_BODY_LIMIT = 64 * 1024


class RecordError(Exception):
    """Recording one cell failed; nothing was written. The message names provider and scenario."""


@dataclass
class Recorded:
    provider: str
    scenario: str
    path: Path
    size: int
    drift: list[tuple[str, Any, Any]] = field(default_factory=list)
    #: quirk -> value for every quirk the stream could show (`id_pattern` suggested from its ids).
    observed: dict[str, Any] = field(default_factory=dict)
    #: the calls' ids, which a declared `id_pattern` may match though it is not the suggestion
    ids: list[str] = field(default_factory=list)
    #: the route of routes.yaml the stream came through
    route: str = DIRECT
    #: why the stream's model is not the one asked for, or None when it is
    wrong_model: str | None = None


@dataclass
class RecordOptions:
    base_url: str | None = None
    #: the route of routes.yaml; None when the user named none (then only the provider's own
    #: base URL is accepted)
    route: str | None = None
    #: extra request headers, sent and never written (a gateway's routing headers)
    headers: list[tuple[str, str]] = field(default_factory=list)
    #: the model name to send instead of the profile's (a gateway's alias)
    model: str | None = None
    out_dir: Path | None = None
    #: whether the run may change committed files; without it a stream answered by a model
    #: other than the requested or declared one is written (out of the checkout) and flagged,
    #: with it that stream is refused before anything is written
    accept: bool = False
    #: seconds a connection or one read may take
    timeout: float = 120.0
    #: seconds the whole cell may take, retries included
    deadline: float = DEFAULT_DEADLINE
    #: bytes a response body may have
    max_bytes: int = DEFAULT_MAX_BYTES
    attempts: int = 3
    backoff: float = 1.0
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    sleep: Callable[[float], None] = time.sleep


def base_url_for(
    provider: Provider, options: RecordOptions, route: Route | None = None
) -> tuple[str, str] | None:
    """The base URL and where it came from: the flag first, then `TOOLCALL_<PROVIDER>_BASE_URL`,
    then the profile's own (the route's, for a route that is not direct; a gateway has none)."""
    variable = f"TOOLCALL_{provider.key.upper()}_BASE_URL"
    own = (
        (provider.base_url, f"providers.{provider.key}.base_url")
        if route is None or route.kind == DIRECT
        else (route.base_url, f"routes.{route.key}.base_url")
    )
    for address, source in [
        (options.base_url, "--base-url"),
        (options.environ.get(variable), variable),
        own,
    ]:
        if address:
            return address.rstrip("/"), source
    return None


def route_for(suite: Suite, provider: Provider, options: RecordOptions) -> tuple[Route, str, str]:
    """The route a recording goes through, the base URL it is sent to, and where that URL came
    from (for an error that names it).

    Without a named route only the provider's own base URL is taken: a stream from anywhere
    else would be credited to the provider. A named route's base URL is the flag's, else the
    route's own (a gateway has none: each installation is somewhere else). A base URL that
    cannot be used (no host, a port that is not a number) is refused first, before anything is
    sent, naming where it came from.
    """
    if options.route is None:
        base, source = _usable(provider, base_url_for(provider, options))
        if base != provider.base_url:
            others = ", ".join(k for k in suite.routes if k != DIRECT)
            raise RecordError(
                f"{provider.key}: {scrub.url(base)} is not {provider.name}'s base URL "
                f"({provider.base_url}); say which route it is: ROUTE=<name> (--route; "
                f"routes.yaml has {others}), or ROUTE=direct for another domain of "
                f"{provider.name} itself. Nothing recorded."
            )
        return suite.route(DIRECT), base, source
    try:
        route = suite.route(options.route)
    except ProfileError as exc:
        raise RecordError(f"{provider.key}: {exc}") from None
    found = base_url_for(provider, options, route)
    if found is None:
        raise RecordError(
            f"{provider.key}: route {route.key} ({route.kind}) has no base URL of its own; give "
            "yours with BASE_URL= (--base-url)"
        )
    return (route, *_usable(provider, found))


#: What an HTTP header's name may be made of (RFC 9110, `token`).
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def _usable(provider: Provider, found: tuple[str, str] | None) -> tuple[str, str]:
    if found is None:  # a profile always has a base URL; only a gateway route has none
        raise RecordError(f"{provider.key}: no base URL; give one with BASE_URL= (--base-url)")
    base, source = found
    problem = scrub.url_problem(base)
    if problem is not None:
        raise RecordError(f"{provider.key}: the base URL from {source} is not usable: {problem}")
    return base, source


def record_cell(suite: Suite, provider: Provider, cell: Cell, options: RecordOptions) -> Recorded:
    """Send the cell's request, check the stream is a complete turn that meets its scenario,
    and write it as a scrubbed cassette that is read back and replayed before it replaces
    anything; what the stream showed is compared with the profile (and the route's changes)."""
    where = f"{provider.key}/{cell.scenario}"
    keys = _keys(suite, provider, options, where)
    route, base, _source = route_for(suite, provider, options)
    where = f"{provider.key}@{route.key}/{cell.scenario}" if route.key != DIRECT else where
    request_body = suite.request_body(provider, cell)
    if options.model:
        request_body["model"] = options.model
    status, reason, headers, body = _post(where, scrub.chat_url(base), keys, request_body, options)
    text = _decode(where, body)
    _check_stream(suite, cell, body, keys, where)
    wrong_model = model_problem(body, str(request_body["model"]), cell.model)
    if wrong_model is not None and options.accept:
        raise RecordError(f"{where}: {scrub.printable(wrong_model, keys)}; nothing written")
    recorded_base = scrub.redact(scrub.url(base), keys)
    cassette = cassettes.build(
        uri=scrub.chat_url(recorded_base),
        # The request is ours, built from scenarios.yaml: it is never searched for the key.
        request_body=json.dumps(request_body, ensure_ascii=False),
        request_headers=cassettes.request_headers(),
        status=status,
        reason=reason,
        response_headers={
            name: [scrub.redact(value, keys) for value in values]
            for name, values in scrub.keep_headers(headers, scrub.RESPONSE_HEADERS).items()
        },
        response_body=scrub.redact(text, keys),
    )
    provenance = _provenance(cell, recorded_base, provider, route, str(request_body["model"]))
    cassette["metadata"] = {"provenance": provenance}
    serialized = cassettes.dump(cassette)
    leaks = secrets.scan_text(serialized, Path(where), keys)
    if leaks:
        raise RecordError(f"{where}: scrubbing left {leaks[0].kind} in the cassette; not written")
    root = options.out_dir or suite.cassettes
    path = cassettes.cassette_path(
        root, provider.key, cell.scenario, route=None if route.key == DIRECT else route.key
    )

    def loads_back_and_replays(temporary: Path) -> None:
        _verify(where, temporary, cassette, recorded_base, request_body)

    cassettes.write_atomically(path, serialized, check=loads_back_and_replays)
    observed = fingerprint.observe(body)
    seen = {k: v for k, v in observed.quirks.items() if v is not None}
    if any(observed.ids):
        seen["id_pattern"] = fingerprint.suggest_pattern(observed.ids)
    drift = fingerprint.compare(
        route.quirks_over(provider.key, cell.scenario, cell.quirks), observed
    )
    ids = [i for i in observed.ids if i]
    return Recorded(
        provider.key, cell.scenario, path, len(body), drift, seen, ids, route.key, wrong_model
    )


def _keys(suite: Suite, provider: Provider, options: RecordOptions, where: str) -> list[str]:
    """Every secret the run must never write or print: the provider's key (refused when unset
    or not fit for a header), the extra headers' values, and every key variable set."""
    key = options.environ.get(provider.key_env, "")
    if not key:
        raise RecordError(f"{where}: set {provider.key_env} to record {provider.name}")
    if not (key.isascii() and key.isprintable()):
        raise RecordError(
            f"{where}: {provider.key_env} holds non-ASCII or control characters, which an HTTP "
            "header cannot carry; a key is plain ASCII (a stray quote or space from a paste?)"
        )
    for name, value in options.headers:
        if not _TOKEN.fullmatch(name) or not (value.isascii() and value.isprintable()):
            shown = repr(name) if _TOKEN.fullmatch(name) else "whose name"
            raise RecordError(
                f"{where}: the header {shown} holds non-ASCII or control characters, which an "
                "HTTP header cannot carry (its value is not shown: it may be a key)"
            )
    return [
        key,
        *(value for _name, value in options.headers),
        *secrets.key_values([p.key_env for p in suite.providers.values()], options.environ),
    ]


def _check_stream(suite: Suite, cell: Cell, body: bytes, keys: list[str], where: str) -> None:
    """Refuse a stream that is not one complete turn, or whose turn does not meet the
    scenario's expectation: nothing is written then."""
    try:
        turn = toolcall.assemble(body)
    except toolcall.ToolCallError as exc:
        detail = scrub.printable(str(exc), keys)
        raise RecordError(
            f"{where}: the stream is not a complete turn, nothing written: {detail}"
        ) from None
    wrong = check_turn(suite, cell, turn)
    if wrong:
        lines = "\n  ".join(scrub.printable(f.line(), keys) for f in wrong)
        raise RecordError(
            f"{where}: the turn does not meet scenarios.{cell.scenario}.expect, nothing written "
            f"(a scenario the model or server cannot do is `not_applicable` with the reason):\n  "
            + lines
        )


def model_problem(body: bytes, requested: str, declared: str) -> str | None:
    """Why the models a stream's chunks name are not the one asked for, or None.

    A chunk's `model` may be the requested name, the profile's, or either with a date or
    version after it (`gpt-4o` answers as `gpt-4o-2024-08-06`), with a vendor or `models/`
    prefix or not; anything else is most likely another server's stream (a wrong base URL),
    which must not be filed as this provider's.
    """
    named = []
    for line in body.decode("utf-8", "replace").splitlines():
        if not line.startswith("data:"):
            continue
        try:
            chunk = json.loads(line.removeprefix("data:"))
        except ValueError:
            continue
        model = chunk.get("model") if isinstance(chunk, dict) else None
        if isinstance(model, str) and model and model not in named:
            named.append(model)
    strangers = [m for m in named if not any(_same_model(m, x) for x in (requested, declared))]
    if not strangers:
        return None
    return (
        f"the stream answers as model {strangers[0]!r}, neither the requested {requested!r} nor "
        f"the declared {declared!r} (another server's stream? check BASE_URL; a model meant to "
        "differ is set in providers.yaml first)"
    )


def _same_model(seen: str, expected: str) -> bool:
    """One model under two names: equal but for a vendor prefix, or one of them the other with a
    tag (`:7b`, `@001`) or a dated or numbered version (`-2024-08-06`, `-0905`) after it; not a
    sibling named by a word (`gpt-4o-mini` is not `gpt-4o`)."""
    seen, expected = (name.rsplit("/", 1)[-1].lower() for name in (seen, expected))
    if seen == expected:
        return True
    longer, shorter = (seen, expected) if len(seen) > len(expected) else (expected, seen)
    rest = longer.removeprefix(shorter)
    return rest != longer and (rest[:1] in (":", "@") or (rest[:1] == "-" and rest[1:2].isdigit()))


def _verify(
    where: str,
    temporary: Path,
    cassette: dict[str, Any],
    base_url: str,
    request_body: dict[str, Any],
) -> None:
    """The file about to be renamed into place reads back as the cassette and replays its body."""
    try:
        loaded = cassettes.load(temporary)
        replayed = replay(temporary, base_url, request_body)
    except (cassettes.CassetteError, ReplayError) as exc:
        raise RecordError(
            f"{where}: the written cassette does not replay ({exc}); not written"
        ) from None
    if loaded != cassette:
        raise RecordError(f"{where}: the written cassette reads back differently; not written")
    if replayed.body != cassettes.response_body(cassette):
        raise RecordError(f"{where}: the written cassette replays other bytes; not written")


def _post(
    where: str, url: str, keys: list[str], body: dict[str, Any], options: RecordOptions
) -> tuple[int, str, list[tuple[str, str]], bytes]:
    """POST with retries; `keys[0]` is the key, the rest are scrubbed from what is printed."""
    key = keys[0]
    headers = {
        "Authorization": f"Bearer {key}",
        "Accept": "text/event-stream",
        **dict(options.headers),
    }
    timeout = httpx.Timeout(options.timeout, connect=min(options.timeout, 15.0))
    deadline = time.monotonic() + options.deadline
    for attempt in range(1, options.attempts + 1):
        try:
            with (
                httpx.Client(timeout=timeout) as client,
                client.stream("POST", url, json=body, headers=headers) as response,
            ):
                status = response.status_code
                if status == 200:
                    data = _read(where, response, options.max_bytes, deadline, options.deadline)
                    return status, response.reason_phrase, list(response.headers.items()), data
                raw = _read_some(response, ERROR_BODY_LIMIT, deadline)
                detail = scrub.printable(raw.decode("utf-8", "replace"), keys)
                retry_after = response.headers.get("retry-after", "")
        except httpx.TimeoutException:
            raise RecordError(
                f"{where}: timed out after {options.timeout:g}s; nothing written"
            ) from None
        except httpx.HTTPError as exc:
            message = scrub.printable(str(exc).replace(url, scrub.url(url)), keys)
            raise RecordError(
                f"{where}: request failed ({type(exc).__name__}: {message}); nothing written"
            ) from None
        if status in (401, 403):
            raise RecordError(f"{where}: HTTP {status}: the key was refused: {detail}")
        if status not in RETRY_STATUSES or attempt == options.attempts:
            raise RecordError(
                f"{where}: HTTP {status} after {attempt} attempt(s); nothing written: {detail}"
            )
        delay = options.backoff * 2 ** (attempt - 1)
        if retry_after.isdigit():
            delay = min(max(delay, float(retry_after)), 60.0)
        if time.monotonic() + delay > deadline:
            raise RecordError(
                f"{where}: HTTP {status}, and no time left for a retry within the "
                f"{options.deadline:g}s deadline; nothing written: {detail}"
            )
        options.sleep(delay)
    raise AssertionError("unreachable: the loop returns or raises")


def _read(
    where: str, response: httpx.Response, limit: int, deadline: float, seconds: float
) -> bytes:
    """The whole body, or a `RecordError` once it passes `limit` bytes or the deadline."""
    pieces, size = [], 0
    for piece in response.iter_bytes():
        size += len(piece)
        if size > limit:
            raise RecordError(
                f"{where}: the body passed {limit} bytes (--max-bytes); nothing written"
            )
        if time.monotonic() > deadline:
            raise RecordError(
                f"{where}: the stream did not end within the {seconds:g}s deadline "
                "(--deadline); nothing written"
            )
        pieces.append(piece)
    return b"".join(pieces)


def _read_some(response: httpx.Response, limit: int, deadline: float) -> bytes:
    """At most `limit` bytes of an error body: enough to say what went wrong."""
    pieces, size = [], 0
    for piece in response.iter_bytes():
        pieces.append(piece)
        size += len(piece)
        if size >= limit or time.monotonic() > deadline:
            break
    return b"".join(pieces)[:limit]


def _decode(where: str, body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"{where}: the body is not UTF-8 ({exc}); nothing written") from None


def _provenance(
    cell: Cell, recorded_base: str, provider: Provider, route: Route, model: str
) -> dict[str, Any]:
    import vcr

    provenance: dict[str, Any] = {
        "kind": "recorded",
        "provider": provider.key,
        "route": route.key,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "model": model,
        "versions": {
            "toolcall": toolcall.__version__,
            "httpx": httpx.__version__,
            "vcrpy": str(vcr.__version__),
            "python": platform.python_version(),
        },
    }
    if recorded_base != provider.base_url:
        provenance["base_url"] = recorded_base
    return provenance
