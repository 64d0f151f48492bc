"""Find and remove secrets: what keeps an API key out of a committed cassette.

Scrubbing is an allow-list plus a replacement. A cassette keeps only `cassettes.request_headers()`
of the request (so authorization, api-key, x-api-key, x-goog-api-key, openai-organization,
openai-project, cookies and x-stainless-* never reach it) and only `RESPONSE_HEADERS` of the
response; every known key value is replaced anywhere in the interaction, because providers echo
keys in error bodies and gateways put them in URLs. The scanner is the last line of defence, run
by `make test` over every cassette: it knows the shapes of the keys of the providers we cover,
bearer tokens and JWTs, and any value held by a key variable in the current environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

PLACEHOLDER = "<API_KEY>"

#: Response headers a replay needs; vcrpy's header filters never touch responses, so this list
#: is what keeps set-cookie, organisation ids and request ids out of cassettes.
RESPONSE_HEADERS = ("content-type",)
#: Query parameters that carry keys (Gemini's native API accepts ?key=).
SECRET_QUERY_PARAMETERS = ("key", "api_key", "api-key", "access_token")

PATTERNS: dict[str, re.Pattern[str]] = {
    "openai-key": re.compile(r"sk-[A-Za-z0-9_-]{20,}"),
    "xai-key": re.compile(r"xai-[A-Za-z0-9]{32,}"),
    "google-key": re.compile(r"AIza[0-9A-Za-z_-]{30,}"),
    "bearer-token": re.compile(r"Bearer\s+(?!<API_KEY>)[A-Za-z0-9._~+/=-]{16,}"),
    "jwt": re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
}


@dataclass(frozen=True)
class Hit:
    path: Path
    line: int
    kind: str

    def __str__(self) -> str:
        # The secret itself is never printed: a CI log is as public as the cassette.
        return f"{self.path}:{self.line}: looks like a secret ({self.kind})"


def key_values(variables: Iterable[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the given key variables that are set (and long enough to be keys)."""
    env = os.environ if environ is None else environ
    return [env[name] for name in variables if len(env.get(name, "")) >= 8]


def scan_text(text: str, path: Path, known: Iterable[str] = ()) -> list[Hit]:
    hits = []
    values = [v for v in known if v]
    for number, line in enumerate(text.splitlines(), start=1):
        hits += [Hit(path, number, kind) for kind, rx in PATTERNS.items() if rx.search(line)]
        hits += [Hit(path, number, "configured key value") for v in values if v in line]
    return hits


def scan(paths: Iterable[Path], known: Iterable[str] = ()) -> list[Hit]:
    """Every hit in every file under the given paths."""
    known = list(known)
    hits: list[Hit] = []
    for root in paths:
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for file in files:
            hits += scan_text(file.read_text(encoding="utf-8", errors="replace"), file, known)
    return hits


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, PLACEHOLDER)
    return text


def redact_uri(uri: str) -> str:
    parts = urlsplit(uri)
    if not parts.query:
        return uri
    query = [
        (k, PLACEHOLDER if k.lower() in SECRET_QUERY_PARAMETERS else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return urlunsplit(parts._replace(query=urlencode(query, safe="<>")))


def keep_headers(
    headers: Iterable[tuple[str, str]], allowed: Iterable[str]
) -> dict[str, list[str]]:
    """Only the allowed headers, in vcrpy's layout (name -> list of values)."""
    allow = {name.lower() for name in allowed}
    kept: dict[str, list[str]] = {}
    for name, value in headers:
        if name.lower() in allow:
            kept.setdefault(name.lower(), []).append(value)
    return kept
