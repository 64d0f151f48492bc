"""Record fresh cassettes from a live provider, safely.

The request goes out through httpx with the user's key; the cassette is written only after the
whole stream arrived, assembled without error and was scrubbed, and then atomically, so a 401, a
rate limit, a timeout or a stream cut off mid-call leaves the previous cassette exactly as it was.
Recording does not go through vcrpy: vcrpy would buffer the same bytes, but its filters do not
touch response headers and it writes whatever the server sent, while here every byte that reaches
the disk has passed the allow-lists in `secrets`. The cassette it writes is a vcrpy cassette all
the same, replayed by the suite through vcrpy.

After writing, the new stream's fingerprint is compared with the profile: drift is printed with
the exact YAML that would accept it, and the command fails, because a provider that changed how it
streams is exactly what the CI gate exists to catch.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

import toolcall

from . import cassettes, fingerprint, secrets
from .profiles import Cell, Provider, Suite

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class RecordError(Exception):
    """Recording one cell failed; nothing was written. The message names provider and scenario."""


@dataclass
class Recorded:
    provider: str
    scenario: str
    path: Path
    drift: list[tuple[str, Any, Any]] = field(default_factory=list)
    observed: dict[str, Any] = field(default_factory=dict)


@dataclass
class RecordOptions:
    base_url: str | None = None
    out_dir: Path | None = None
    timeout: float = 120.0
    attempts: int = 3
    backoff: float = 1.0
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    sleep: Callable[[float], None] = time.sleep


def base_url_for(provider: Provider, options: RecordOptions) -> str:
    """Flag first, then `TOOLCALL_<PROVIDER>_BASE_URL`, then the profile (gateways, proxies)."""
    variable = f"TOOLCALL_{provider.key.upper()}_BASE_URL"
    return (options.base_url or options.environ.get(variable) or provider.base_url).rstrip("/")


def record_cell(suite: Suite, provider: Provider, cell: Cell, options: RecordOptions) -> Recorded:
    where = f"{provider.key}/{cell.scenario}"
    key = options.environ.get(provider.key_env, "")
    if not key:
        raise RecordError(f"{where}: set {provider.key_env} to record {provider.name}")
    url = f"{base_url_for(provider, options)}/chat/completions"
    request_body = suite.request_body(provider, cell)
    status, reason, headers, body = _post(where, url, key, request_body, options)
    known = [
        key,
        *secrets.key_values([p.key_env for p in suite.providers.values()], options.environ),
    ]
    text = _decode(where, body)
    try:
        toolcall.assemble(body)
    except toolcall.ToolCallError as exc:
        raise RecordError(
            f"{where}: the stream is not a complete turn, nothing written: {exc}"
        ) from None
    cassette = cassettes.build(
        uri=secrets.redact(secrets.redact_uri(url), known),
        request_body=secrets.redact(json.dumps(request_body, ensure_ascii=False), known),
        request_headers=cassettes.request_headers(),
        status=status,
        reason=reason,
        response_headers=secrets.keep_headers(headers, secrets.RESPONSE_HEADERS),
        response_body=secrets.redact(text, known),
    )
    cassette["metadata"] = {"provenance": _provenance(cell, url, provider)}
    serialized = cassettes.dump(cassette)
    leaks = secrets.scan_text(serialized, Path(where), known)
    if leaks:
        raise RecordError(f"{where}: scrubbing left {leaks[0].kind} in the cassette; not written")
    root = options.out_dir or suite.cassettes
    path = cassettes.cassette_path(root, provider.key, cell.scenario)
    cassettes.write_atomically(path, serialized)
    observed = fingerprint.observe(body)
    drift = fingerprint.compare(cell.quirks, observed)
    seen = {k: v for k, v in observed.quirks.items() if v is not None}
    if observed.ids:
        seen["id_pattern"] = fingerprint.suggest_pattern(observed.ids)
    return Recorded(provider.key, cell.scenario, path, drift, seen)


def accept_yaml(recorded: Recorded) -> str:
    """The providers.yaml change that would accept the drift found in one recording."""
    lines = [
        "providers:",
        f"  {recorded.provider}:",
        "    scenarios:",
        f"      {recorded.scenario}:",
        "        quirks:",
    ]
    lines += [f"          {quirk}: {json.dumps(got)}" for quirk, _want, got in recorded.drift]
    return "\n".join(lines)


def _post(
    where: str, url: str, key: str, body: dict[str, Any], options: RecordOptions
) -> tuple[int, str, list[tuple[str, str]], bytes]:
    headers = {"Authorization": f"Bearer {key}", "Accept": "text/event-stream"}
    timeout = httpx.Timeout(options.timeout, connect=min(options.timeout, 15.0))
    for attempt in range(1, options.attempts + 1):
        try:
            with (
                httpx.Client(timeout=timeout) as client,
                client.stream("POST", url, json=body, headers=headers) as response,
            ):
                status = response.status_code
                if status == 200:
                    data = b"".join(response.iter_bytes())
                    return status, response.reason_phrase, list(response.headers.items()), data
                detail = secrets.redact(response.read().decode("utf-8", "replace")[:300], [key])
                retry_after = response.headers.get("retry-after", "")
        except httpx.TimeoutException:
            raise RecordError(
                f"{where}: timed out after {options.timeout:g}s; nothing written"
            ) from None
        except httpx.HTTPError as exc:
            raise RecordError(
                f"{where}: request failed ({type(exc).__name__}: {exc}); nothing written"
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
        options.sleep(delay)
    raise AssertionError("unreachable: the loop returns or raises")


def _decode(where: str, body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"{where}: the body is not UTF-8 ({exc}); nothing written") from None


def _provenance(cell: Cell, url: str, provider: Provider) -> dict[str, Any]:
    import vcr

    provenance: dict[str, Any] = {
        "kind": "recorded",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "model": cell.model,
        "versions": {
            "toolcall": toolcall.__version__,
            "httpx": httpx.__version__,
            "vcrpy": str(vcr.__version__),
            "python": platform.python_version(),
        },
    }
    if not url.startswith(provider.base_url):
        provenance["base_url"] = secrets.redact_uri(url.rsplit("/chat/completions", 1)[0])
    return provenance
