"""Find secrets: the last line of defence between an API key and a committed file.

`make test` and `make record` scan every cassette with it. It knows the shapes of the keys of the
providers we cover and of common others (OpenAI and its look-alikes `sk-`, xAI, Google `AIza` and
OAuth `ya29.`, Groq `gsk_`, Zhipu's `id.secret`), credentials in a header's form (`Bearer`,
`Basic`, any case), in a URL's userinfo, or assigned to a key-like name (`api_key=`, `"token":`;
this is how a UUID-shaped Volcengine Ark key is told from a chunk id, which is a UUID too), JWTs,
and the value of every key variable set in the environment. Each line is also read with its JSON
escapes undone, because a provider may echo a key as `sk\\u002dproj...`, and every quoted YAML
string is read as YAML reads it (its escapes undone, its folded lines joined).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from ..suite.cassettes import SAFE_LOADER

_VALUE = r"(?!<API_KEY>|<REDACTED>)[A-Za-z0-9._~+/=-]{16,}"

PATTERNS: dict[str, re.Pattern[str]] = {
    "openai-key": re.compile(r"sk-[A-Za-z0-9_-]{20,}"),
    "xai-key": re.compile(r"xai-[A-Za-z0-9]{32,}"),
    "google-key": re.compile(r"AIza[0-9A-Za-z_-]{30,}"),
    "google-oauth-token": re.compile(r"ya29\.[0-9A-Za-z_-]{20,}"),
    "groq-key": re.compile(r"gsk_[A-Za-z0-9]{20,}"),
    "zhipu-key": re.compile(r"\b[0-9a-f]{32}\.[A-Za-z0-9]{16}\b"),
    "bearer-token": re.compile(r"(?i:bearer)\s+" + _VALUE),
    "basic-credentials": re.compile(
        r"\b(?i:basic)\s+(?=[A-Za-z0-9+/]*[A-Z][A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*[a-z])"
        r"[A-Za-z0-9+/]{12,}={0,2}"
    ),
    # Anchored on the one scheme character before `://`, not on where the scheme starts: a
    # scheme-shaped run has no bound, and re-reading it from every start was quadratic.
    "url-credentials": re.compile(r"[A-Za-z0-9+.-]://[^/\s:@]+:[^/\s@]+@"),
    "assigned-credential": re.compile(
        r"(?i:api[_-]?key|access[_-]?token|token|secret|password|subscription[_-]?key)"
        r"[\"']?\s*[:=]\s*[\"']?" + _VALUE
    ),
    # Starts only where a run of token characters starts, so `eyJeyJ...` is read once, not once
    # per `eyJ` in it.
    "jwt": re.compile(
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    ),
}

_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\/")


#: A key variable's value shorter than this is a local server's dummy (`anything`), never
#: searched for: every provider's key is far longer, and a dummy would match words of the reply.
MIN_KEY_LENGTH = 16


def searchable(keys: Iterable[str]) -> list[str]:
    """The keys worth searching for: long enough to be credentials, without whitespace."""
    found = []
    for key in keys:
        if len(key) >= MIN_KEY_LENGTH and not any(c.isspace() for c in key) and key not in found:
            found.append(key)
    return found


@cache
def key_pattern(key: str) -> re.Pattern[str]:
    """`key` as written, or with any of its characters JSON-escaped (`\\u002d`, `\\/`)."""
    parts = []
    for char in key:
        forms = [re.escape(char), "\\\\u(?i:" + f"{ord(char):04x}" + ")"]
        if char == "/":
            forms.append(re.escape("\\/"))
        parts.append("(?:" + "|".join(forms) + ")")
    return re.compile("".join(parts))


@dataclass(frozen=True)
class Hit:
    path: Path
    line: int
    kind: str

    def __str__(self) -> str:
        # The secret itself is never printed: a CI log is as public as the cassette.
        return f"{self.path}:{self.line}: looks like a secret ({self.kind})"


def key_values(variables: Iterable[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the given key variables that are set and long enough to be keys."""
    env = os.environ if environ is None else environ
    return searchable(env.get(name, "") for name in variables)


def unescape(line: str) -> str:
    """`line` with JSON's `\\uXXXX` and `\\/` escapes undone (everything else left alone)."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else "/", line)


def kinds(line: str, among: Iterable[str] = PATTERNS) -> list[str]:
    """The kinds of secret (of those named by `among`) `line` looks like it holds, as written or
    with JSON escapes undone."""
    forms = {line, unescape(line)}
    return [kind for kind in among if any(PATTERNS[kind].search(form) for form in forms)]


def mask(text: str) -> str:
    """`text` with everything that looks like a secret replaced (for messages, not cassettes)."""
    text = unescape(text)
    for rx in PATTERNS.values():
        text = rx.sub("<REDACTED>", text)
    return text


def scan_text(text: str, path: Path, known: Iterable[str] = ()) -> list[Hit]:
    """Every hit in `text`: each line as written, and each quoted YAML string as YAML reads it.

    Each pattern is first searched for in all the lines at once, and only a pattern found there
    is searched for line by line, to number its hits. Nothing is missed that way: a line joined
    to the others by a line break is still delimited by a character no pattern takes as part of
    a secret, so a pattern that matches in a line matches in the whole. A clean file (nearly
    every file) then costs a few scans in C instead of one Python call per line and pattern.
    """
    lines = list(enumerate(text.splitlines(), start=1)) + _quoted_strings(text)
    whole = "\n".join(line for _number, line in lines)
    suspected = kinds(whole)
    configured = [rx for rx in map(key_pattern, searchable(known)) if rx.search(whole)]
    hits: dict[Hit, None] = {}
    if not suspected and not configured:
        return []
    for number, line in lines:
        hits.update(dict.fromkeys(Hit(path, number, kind) for kind in kinds(line, suspected)))
        if any(rx.search(line) for rx in configured):
            hits[Hit(path, number, "configured key value")] = None
    return list(hits)


def _quoted_strings(text: str) -> list[tuple[int, str]]:
    """The lines of every quoted string of `text` read as YAML, each numbered by the line its
    string starts on. A double-quoted body (what the cassette writer makes of a body holding CR,
    NEL, LS or PS) doubles each backslash, so a JSON escape in it (`sk\\u002dproj`) is not a JSON
    escape on the line, and a long one is folded over lines, escapes and all; read as YAML, it is
    the body again. Text that is not YAML has none."""
    try:
        root = yaml.compose(text, Loader=SAFE_LOADER)
    except yaml.YAMLError:
        return []
    found: list[tuple[int, str]] = []
    todo = [root] if root is not None else []
    while todo:
        node = todo.pop()
        if isinstance(node, yaml.ScalarNode):
            if node.style in ('"', "'"):
                line = node.start_mark.line + 1
                found += [(line, part) for part in node.value.splitlines()]
        elif isinstance(node, yaml.SequenceNode):
            todo += node.value
        elif isinstance(node, yaml.MappingNode):
            todo += [part for pair in node.value for part in pair]
    return found


def scan(paths: Iterable[Path], known: Iterable[str] = ()) -> list[Hit]:
    """Every hit in every file under the given paths."""
    known = list(known)
    hits: list[Hit] = []
    for root in paths:
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for file in files:
            hits += scan_text(file.read_text(encoding="utf-8", errors="replace"), file, known)
    return hits
