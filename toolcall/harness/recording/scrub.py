"""What of a live exchange may reach a cassette or a message: scrubbing by structure.

Every part of an interaction is scrubbed by what it is, not by searching the whole file for the
key: request headers are a fixed pair (`cassettes.request_headers`), response headers an
allow-list, the URL loses its userinfo and keeps the values of allow-listed query parameters
only, and the request body is never searched at all (it is built from scenarios.yaml, so a key
that is an ordinary word, `anything` or `the`, cannot rewrite it). Only what the server sent back
(the stream, an error body) is searched for the key, in every form JSON may give it (`\\u002d` for
`-`, `\\/` for `/`), and only for keys long enough to be credentials (`secrets.searchable`): every
provider's key is far longer than `secrets.MIN_KEY_LENGTH`, and a shorter value is a local
server's dummy that would otherwise rewrite the words of the reply. Anything printed (an error
body, an exception) is scrubbed the same way before it is cut to length, so a key straddling the
cut cannot show its first characters.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from . import secrets

PLACEHOLDER = "<API_KEY>"
REDACTED = "<REDACTED>"

#: Response headers a replay needs; vcrpy's header filters never touch responses, so this list
#: is what keeps set-cookie, organisation ids and request ids out of cassettes.
RESPONSE_HEADERS = ("content-type",)

#: Query parameters whose values are kept (lower case): they select an API, never authenticate.
#: Every other parameter keeps its name and loses its value (`apiKey`, `token`, `sig`...).
SAFE_QUERY_PARAMETERS = ("api-version", "alt", "fault")

#: How long a printed error body may be, after scrubbing.
DETAIL_LENGTH = 300


def redact(text: str, keys: Iterable[str]) -> str:
    """`text` with every searchable key, in every JSON form, replaced by `PLACEHOLDER`."""
    for key in secrets.searchable(keys):
        text = secrets.key_pattern(key).sub(PLACEHOLDER, text)
    return text


def printable(text: str, keys: Iterable[str], limit: int = DETAIL_LENGTH) -> str:
    """A server's text fit for a terminal or a CI log: keys and URL credentials removed first,
    then cut to `limit` characters."""
    clean = secrets.mask(redact(text, keys))
    return clean if len(clean) <= limit else clean[:limit] + "..."


def url_problem(address: str) -> str | None:
    """What keeps `address` from being an http(s) base URL the recorder can reach, or None.

    Checked in full before anything is written or sent (scheme, host, port), because
    `urlsplit` accepts a port it cannot read (`:abc`) and raises a bare ValueError on a bracket.
    The address itself is never part of the answer: it may carry credentials.
    """
    if any(not c.isprintable() or c.isspace() for c in address):
        return "it holds whitespace or control characters"
    try:
        parts = urlsplit(address)
    except ValueError as exc:
        return f"it is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "it must start with http:// or https://"
    if not parts.hostname:
        return "it names no host"
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        return "its port must be a number from 1 to 65535"
    return None


def url(address: str) -> str:
    """`address` without userinfo and with only allow-listed query values."""
    parts = urlsplit(address)
    netloc = parts.netloc.rpartition("@")[2]
    query = "&".join(
        f"{quote(name, safe='-_.~')}="
        + (quote(value, safe="-_.~") if name.lower() in SAFE_QUERY_PARAMETERS else REDACTED)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit(parts._replace(netloc=netloc, query=query, fragment=""))


def chat_url(base_url: str) -> str:
    """The chat-completions endpoint under `base_url`, its query (if any) kept after the path."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/") + "/chat/completions"
    return urlunsplit(parts._replace(path=path, fragment=""))


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
